package session

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/errcode"
	"github.com/magicfrog/mf-lsp/engine/journal"
	"github.com/magicfrog/mf-lsp/engine/rollup"
)

// The commands that write memory, as plain functions: promote a note, export
// and import a portable tree, make today's daily, register an ID. Their
// results are the JSON docs/protocol.md documents for magicfrog.promote,
// magicfrog.export, magicfrog.import, magicfrog.today and
// magicfrog.registerAgent/registerTask. Each says whether the tree changed, so
// a front end can tell its clients.
//
// Several results list their fields in the order of their JSON names: the
// order clients have always received.

// ErrNotOnDisk: the note to promote is not on disk (an unsaved new buffer).
var ErrNotOnDisk = newCoded(errcode.NotFound, "not a note on disk (save it first)")

// ErrUnsaved: the open buffer of the note to promote differs from the disk
// and is not known to be based on what the disk holds now (the disk moved on,
// or the buffer's base is unknown), so nothing is moved.
var ErrUnsaved = errors.New("has unsaved changes or differs from the disk: save it first; nothing was moved")

// NoLayerError: a promotion names a layer layers.json does not define.
type NoLayerError struct {
	Layer string
	Known []string // the layers layers.json defines
}

func (e *NoLayerError) Error() string { return fmt.Sprintf("no layer %q (see layers.json)", e.Layer) }

// Promotion is what to promote and where: the note at Path (with Buffer, the
// open buffer's bytes, or nil), to dimension To (0: the note's own dimension
// and owner) and layer Layer, under Owner when set.
type Promotion struct {
	Path   string
	Buffer []byte
	// Base is what Buffer was based on (Snapshot.Base), nil when unknown. A
	// buffer based on what the disk holds now is promoted as it is, unsaved
	// edits included; any other buffer that differs is refused (ErrUnsaved).
	Base  *Base
	To    engine.Dimension
	Owner *string
	Layer string
	Copy  bool
	// SourceRevision and DestRevision are what the editor showed: the
	// promotion is a compare-and-swap on both ends (engine.PromoteRequest);
	// DestRevision 0 means the destination must not exist.
	SourceRevision *int
	DestRevision   int
	Register       bool
}

// Promoted is a promotion's answer: the new file, its revision, and whether
// the source was removed.
type Promoted struct {
	Moved    bool   `json:"moved"`
	Revision int    `json:"revision"`
	URI      string `json:"uri"`
	Key      string `json:"-"` // the note's key at the destination
}

// Promote moves or copies the note p names. The note is read from the disk
// now rather than trusted from the index (a file watcher may not have
// reported a note written a moment ago). An open buffer that differs from it
// is promoted as it is when it was based on that disk version (its unsaved
// edits go with the note: saved at the destination), else refused with
// ErrUnsaved. changed reports whether anything was written, also when an
// error says the move did not complete.
func Promote(m *engine.Memory, p Promotion) (out Promoted, changed bool, err error) {
	m.Refresh(p.Path)
	src := m.Note(p.Path)
	if src == nil {
		return Promoted{}, false, ErrNotOnDisk
	}
	req, err := p.request(m, src)
	if err != nil {
		return Promoted{}, false, err
	}
	text, err := src.Text()
	if err != nil {
		return Promoted{}, false, err
	}
	if p.Buffer != nil && !bytes.Equal(p.Buffer, text) {
		if p.Base == nil || conflicts(*p.Base, text) {
			return Promoted{}, false, ErrUnsaved
		}
		req.Text = p.Buffer
	}
	res, err := m.Promote(req)
	changed = res != nil || err == nil
	if err != nil {
		return Promoted{}, changed, err
	}
	return Promoted{Moved: res.Removed, Revision: res.Revision, URI: PathToURI(res.Path), Key: res.Key}, changed, nil
}

// request is the engine's promotion of src that p asks for.
func (p Promotion) request(m *engine.Memory, src *engine.Note) (engine.PromoteRequest, error) {
	req := engine.PromoteRequest{From: src, To: p.To, ToLayer: p.Layer, Copy: p.Copy,
		ExpectSourceRevision: p.SourceRevision, ExpectDestRevision: p.DestRevision, Register: p.Register}
	if p.To == 0 {
		req.To, req.ToOwner = src.Dimension, src.Owner
	}
	if p.Owner != nil {
		req.ToOwner = *p.Owner
	}
	if p.Layer != "" {
		if _, ok := m.Layers().ByName(p.Layer); !ok {
			return req, noLayer(m.Layers(), p.Layer)
		}
	}
	return req, nil
}

// Exported is an export's answer: how many notes were written, those left out
// with why, and other machines' device notes left out.
type Exported struct {
	LeftOut []string `json:"leftOut"`
	Skipped []string `json:"skipped"`
	Written int      `json:"written"`
}

// Export writes m's portable tree into dir.
func Export(m *engine.Memory, dir string, opts engine.ExportOptions) (Exported, error) {
	res, err := m.ExportWith(dir, opts)
	if err != nil {
		return Exported{}, err
	}
	return Exported{LeftOut: append([]string{}, res.OtherMachines...), Skipped: append([]string{}, res.Skipped...), Written: res.Written}, nil
}

// NotAFolderError: an import names something that is not a folder.
type NotAFolderError struct{ Dir string }

func (e *NotAFolderError) Error() string { return e.Dir + " is not a folder" }

// ImportSkip is a file an import kept back (the destination is not older) or
// refused, with why.
type ImportSkip struct {
	From   string `json:"from"`
	Reason string `json:"reason"`
	Kept   bool   `json:"kept"`
}

// Imported is an import's answer.
type Imported struct {
	Imported  int          `json:"imported"`
	URIs      []string     `json:"uris"`
	Unchanged int          `json:"unchanged"`
	Skipped   []ImportSkip `json:"skipped"`
	Config    []string     `json:"config"`
	// LayersDiffer: this data directory's layers.json differs from the
	// tree's, which was not taken.
	LayersDiffer string `json:"layersDiffer,omitempty"`
	// Paths are the files written (URIs' paths), for the command line.
	Paths []string `json:"-"`
	// Ignored are the tree's dot-folders, not read (.git/ of a clone).
	Ignored []string `json:"-"`
}

// Import reads the portable tree in dir into m. changed reports whether a
// note or the configuration was written, also when an error stopped it.
func Import(m *engine.Memory, dir string) (out Imported, changed bool, err error) {
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return Imported{}, false, &NotAFolderError{Dir: dir}
	}
	res, err := m.Import(dir)
	changed = res != nil && (len(res.Imported) > 0 || len(res.Config) > 0)
	if err != nil {
		return Imported{}, changed, err
	}
	out = Imported{Imported: len(res.Imported), URIs: []string{}, Unchanged: res.Unchanged, Skipped: []ImportSkip{},
		Config: append([]string{}, res.Config...), LayersDiffer: res.LayersDiffer,
		Paths: append([]string{}, res.Imported...), Ignored: append([]string{}, res.Ignored...)}
	for _, p := range res.Imported {
		out.URIs = append(out.URIs, PathToURI(p))
	}
	for _, sk := range res.Skipped {
		out.Skipped = append(out.Skipped, ImportSkip{From: sk.From, Reason: sk.Reason, Kept: sk.Kept})
	}
	return out, changed, nil
}

// RegisteringError: registering an owner ID before writing under it failed.
type RegisteringError struct {
	ID  string
	Err error
}

func (e *RegisteringError) Error() string { return fmt.Sprintf("registering %q: %v", e.ID, e.Err) }
func (e *RegisteringError) Unwrap() error { return e.Err }

// Daily is today's raw daily of a journal, and whether it was just made.
type Daily struct {
	Created bool   `json:"created"`
	URI     string `json:"uri"`
	Path    string `json:"-"`
	// Registered is the configuration file the owner ID was registered in
	// first; "" when it was not.
	Registered string `json:"-"`
}

// Today returns day's raw daily in the journal of dimension d and owner
// (owner "" is the dimension's shared journal), made with frontmatter when
// missing. With register, an owner ID that is not registered is registered
// first; without it, such an owner is refused (*engine.UnregisteredError).
func Today(m *engine.Memory, d engine.Dimension, owner string, register bool, day journal.Day) (Daily, error) {
	var out Daily
	file, err := EnsureRegistered(m, d, owner, register)
	if err != nil {
		return Daily{}, err
	}
	out.Registered = file
	path, created, err := rollup.Today(m, d, owner, day)
	if err != nil {
		return Daily{}, err
	}
	out.Created, out.URI, out.Path = created, PathToURI(path), path
	return out, nil
}

// EnsureRegistered is the registration check of the writes that do not go
// through engine.WriteRequest.Register (today, import --journal): an owner ID
// of d that is not registered is refused (*engine.UnregisteredError) or, with
// register, registered first (a failure is a *RegisteringError). It returns
// the configuration file it registered the ID in, "" when it registered none.
func EnsureRegistered(m *engine.Memory, d engine.Dimension, owner string, register bool) (string, error) {
	if owner == "" || !d.HasOwners() || m.IsRegistered(d, owner) {
		return "", nil
	}
	if !register {
		return "", &engine.UnregisteredError{Dimension: d, ID: owner}
	}
	file, _, err := m.Register(d, owner, false)
	if err != nil {
		return "", &RegisteringError{ID: owner, Err: err}
	}
	return file, nil
}

// ImportJournal imports the workspace journal dir into the journal of
// dimension d and owner (rollup.ImportJournal), after EnsureRegistered:
// `mf-lsp import --journal`. registered is the file the owner was registered
// in, "" when none.
func ImportJournal(m *engine.Memory, dir string, d engine.Dimension, owner string, register bool) (rep rollup.Report, registered string, err error) {
	if registered, err = EnsureRegistered(m, d, owner, register); err != nil {
		return rollup.Report{}, "", err
	}
	rep, err = rollup.ImportJournal(m, dir, d, owner)
	return rep, registered, err
}

// NotePath is where the note of dimension d, owner and key lives; an error
// says why no note can be there (a bad key, an owner d does not have).
func NotePath(m *engine.Memory, d engine.Dimension, owner, key string) (string, error) {
	return m.PathOf(d, owner, key)
}

// Write is a revision-checked write of one note by its place: `mf-lsp
// write`. Its refusals are the engine's (*engine.StaleError,
// *engine.UnregisteredError, *engine.NotANoteError), each with its code.
func Write(m *engine.Memory, r engine.WriteRequest) (*engine.WriteResult, error) {
	return m.Write(r)
}

// RegistrableID reports whether id can be registered as an agent or task ID:
// a single folder name, not hidden.
func RegistrableID(id string) bool {
	return !strings.ContainsAny(id, `/\`) && !strings.HasPrefix(id, ".") && engine.CheckImportPath(id) == nil
}

// Registration is a registration's answer: the configuration file, and
// whether it changed (false: the ID was there already).
type Registration struct {
	Changed bool   `json:"changed"`
	URI     string `json:"uri"`
}

// Register adds id to the roster of dimension d (with shared, to the agents
// deliberately every agent's).
func Register(m *engine.Memory, d engine.Dimension, id string, shared bool) (Registration, error) {
	file, changed, err := m.Register(d, id, shared)
	if err != nil {
		return Registration{}, err
	}
	return Registration{Changed: changed, URI: PathToURI(file)}, nil
}
