package engine

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/magicfrog/mf-lsp/engine/frontmatter"
	"github.com/magicfrog/mf-lsp/engine/safefs"
	"github.com/magicfrog/mf-lsp/engine/store"
)

// WriteRequest is one revision-checked write of a note (SPEC §7).
type WriteRequest struct {
	Dimension Dimension
	Owner     string // agent or task ID prefix; "" for a shared note
	Key       string // slash-separated, ends in .md
	Body      []byte // the note without frontmatter
	// Meta sets frontmatter keys besides revision, updated and machine (a skill's
	// name and description, a rollup's sources); a nil Value removes the key.
	// Keys not named are kept as they are.
	Meta []frontmatter.Set
	// ExpectRevision is the revision the writer read; 0: the note must not exist.
	ExpectRevision int
	// ExpectHash is the content hash the writer read (Note.Hash()); "" does not
	// check it. Required to overwrite a note without a trustworthy revision.
	ExpectHash string
	Now        time.Time // the write's time; zero is now
	// KeepFrom, when set, is a note whose frontmatter keys are kept instead of
	// the destination's own (a promotion carries its note's keys along).
	KeepFrom []byte
	// Register adds an agent or task ID that is not registered yet (Register)
	// before writing; without it a write under such an ID is refused with an
	// *UnregisteredError (SPEC §2: no write creates an unregistered scope).
	Register bool
}

// WriteResult says what was written.
type WriteResult struct {
	Path     string
	Revision int
	Hash     string
	// Registered is the configuration file Register changed ("" when none).
	Registered string
	// Legacy is the legacy file (machine/, project/) this write continued: the
	// new canonical note took its revision + 1 and the legacy file was removed
	// (LegacyRemoved), or kept when it changed meanwhile (LegacyKept says why).
	Legacy        string
	LegacyRemoved bool
	LegacyKept    string
}

// StaleError reports that the disk moved past what the writer expected. Nothing
// was written.
type StaleError = store.StaleError

// IsStale reports whether err is a stale write, with the current state.
func IsStale(err error) (*StaleError, bool) { return store.IsStale(err) }

// ErrNoProject is returned for task writes without a project.
var ErrNoProject = errors.New("task memory lives in a project: no project directory is set")

// PathOf is the canonical file of a note: where new writes of it land.
func (m *Memory) PathOf(d Dimension, scope, key string) (string, error) {
	if err := CheckKey(key); err != nil {
		return "", err
	}
	if scope != "" {
		if !d.HasOwners() {
			return "", fmt.Errorf("%s notes have no ID prefix (got %q)", d, scope)
		}
		if err := checkName(scope); err != nil {
			return "", fmt.Errorf("scope ID: %w", err)
		}
	}
	if mt, ok := m.Paths.mountFor(d, scope, key); ok {
		return mt.file(key), nil
	}
	root := m.Paths.CanonicalRoot(d)
	if root == "" {
		return "", ErrNoProject
	}
	rel := key
	if scope != "" {
		rel = scope + "/" + key
	}
	return filepath.Join(root, filepath.FromSlash(rel)), nil
}

// CheckKey refuses keys that are not a relative .md path inside a root.
func CheckKey(key string) error {
	if key == "" {
		return errors.New("empty key")
	}
	if !strings.EqualFold(path.Ext(key), ".md") {
		return fmt.Errorf("key %q: a note is a .md file", key)
	}
	if strings.HasPrefix(key, "/") || strings.Contains(key, "\\") || strings.ContainsRune(key, 0) {
		return fmt.Errorf("key %q: want a relative path with / separators", key)
	}
	for _, part := range strings.Split(key, "/") {
		if err := checkName(part); err != nil {
			return fmt.Errorf("key %q: %w", key, err)
		}
	}
	return nil
}

// CheckOwnerID refuses an agent or task ID that is not a single folder name
// a note could be written under: blank, hidden, "..", a path, a control
// character. "" (shared) is allowed.
func CheckOwnerID(id string) error {
	if id == "" {
		return nil
	}
	if err := checkName(id); err != nil {
		return fmt.Errorf("scope ID: %w", err)
	}
	return nil
}

func checkName(part string) error {
	switch {
	case part == "" || part == "." || part == "..":
		return fmt.Errorf("path element %q is not allowed", part)
	case strings.HasPrefix(part, "."):
		return fmt.Errorf("path element %q: names starting with . are not notes", part)
	case strings.ContainsAny(part, "/\\\x00:") || (len(part) >= 2 && part[1] == ':'):
		return fmt.Errorf("path element %q has a character that is not allowed", part)
	case strings.TrimSpace(part) == "":
		return fmt.Errorf("path element %q is blank", part)
	case badName(part):
		return fmt.Errorf("path element %q has a control character or is not UTF-8 (it would split line-oriented output)", part)
	}
	return nil
}

// badName reports whether a file or folder name has a control character (a
// newline splits every line-oriented output that names it) or is not UTF-8.
func badName(name string) bool {
	if !utf8.ValidString(name) {
		return true
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' {
			return true
		}
	}
	return false
}

// Write writes a note if the disk still holds the expected revision (and hash),
// setting revision to ExpectRevision+1 and updated to now, binding device notes
// to this machine, keeping every other frontmatter key. A stale write returns a
// *StaleError and changes nothing.
func (m *Memory) Write(req WriteRequest) (*WriteResult, error) {
	p, err := m.PathOf(req.Dimension, req.Owner, req.Key)
	if err != nil {
		return nil, err
	}
	if err := CheckBody(req.Body); err != nil {
		return nil, notANoteAt(err, p)
	}
	if err := m.refuseUnloaded("write", p); err != nil {
		return nil, err
	}
	out := &WriteResult{Path: p}
	if out.Registered, err = m.checkScope(p, req); err != nil {
		return nil, err
	}
	var machine string
	if req.Dimension == Device {
		if machine, err = m.EnsureMachineID(); err != nil {
			return nil, err
		}
	}
	now := req.Now
	if now.IsZero() {
		now = time.Now()
	}
	// A key whose only version is a legacy note goes on from it: the expected
	// revision is the legacy one and the canonical note continues its count
	// (legacy 2 -> canonical 3), so a key's revision never goes backwards.
	expect := store.Expect{Revision: req.ExpectRevision, Hash: req.ExpectHash}
	legacy := m.legacyPredecessor(p)
	if legacy != nil {
		if legacy.Revision() != req.ExpectRevision || (req.ExpectHash != "" && req.ExpectHash != legacy.Hash()) {
			return nil, &StaleError{Path: legacy.Path, Expected: expect, Exists: true, Revision: legacy.Revision(), Hash: legacy.Hash(), Readable: true,
				Reason: fmt.Sprintf("the note's current version is the legacy file at revision %d (its canonical successor continues from it)", legacy.Revision())}
		}
		expect = store.Expect{} // the canonical file must not exist yet
	}
	rev := req.ExpectRevision + 1
	sets := []frontmatter.Set{{Key: "revision", Value: rev}, {Key: "updated", Value: FormatTime(now)}}
	if req.Dimension == Device {
		sets = append(sets, frontmatter.Set{Key: "machine", Value: machine})
	} else {
		sets = append(sets, frontmatter.Set{Key: "machine"})
	}
	sets = append(sets, req.Meta...)
	// In a journal kept in place (Paths.Mounts) the host's file format is
	// kept: a file the host wrote without frontmatter, and a new one written
	// without frontmatter keys of its own (an append, today's daily), stays a
	// plain Markdown file. It reads as revision 0, so its writes are checked
	// by content hash (docs/journal.md).
	_, mounted := m.Paths.MountOf(p)
	plain := false
	var replaced []byte
	var existed bool
	written, err := store.Update(m.Paths.LockRoot(p), p, expect,
		func(current []byte, exists bool) ([]byte, error) {
			replaced, existed = current, exists && legacy == nil
			if legacy != nil {
				now, err := safefs.ReadFile(legacy.Path, store.MaxRead)
				if err != nil || store.Hash(now) != legacy.Hash() {
					return nil, &StaleError{Path: legacy.Path, Expected: store.Expect{Revision: req.ExpectRevision, Hash: req.ExpectHash}, Exists: err == nil,
						Reason: "the legacy file changed since it was read"}
				}
				current, exists = now, true // the loaded text (same hash); its frontmatter keys carry over
			}
			if exists && req.Dimension == Device {
				if other := frontmatter.Parse(current); other.Has() {
					if bound, _ := other.String("machine"); bound != "" && bound != machine {
						return nil, fmt.Errorf("%s is bound to machine %s, not this one (%s): device notes are written only on their own machine", p, bound, machine)
					}
				}
			}
			var next []byte
			if mounted && req.KeepFrom == nil && len(req.Meta) == 0 && (!exists || !frontmatter.Parse(current).Present) {
				plain = true
				return append([]byte(nil), req.Body...), nil
			}
			if req.KeepFrom != nil {
				next = compose(req.KeepFrom, true, sets, req.Body)
			} else {
				next = compose(current, exists, sets, req.Body)
			}
			return next, nil // the store checks what a note may be
		})
	if err != nil {
		return nil, err
	}
	judged := m.recordWrite(p, replaced, existed, req.ExpectHash != "", written, now)
	if !m.oneShot { // a one-shot memory is not read again (Options.OneShot)
		m.refreshWritten(p, replaced, written, judged)
	}
	out.Revision = rev
	if n := m.Note(p); n != nil && n.Resident() && bytes.Equal(n.src, written) {
		out.Hash = n.Hash() // the refresh hashed the same bytes (Note.Sum)
	} else {
		out.Hash = store.Hash(written)
	}
	if plain {
		out.Revision = 0
	}
	if legacy != nil {
		// The canonical note is durable; the legacy file is its previous
		// revision. Removing it (checked: only if it is still what was
		// continued) keeps it from coming back as the key's version should the
		// canonical note be deleted, with a revision that went backwards.
		out.Legacy = legacy.Path
		if err := m.Delete(legacy.Path, legacy.Revision(), legacy.Hash()); err != nil {
			out.LegacyKept = err.Error()
		} else {
			out.LegacyRemoved = true
		}
	}
	return out, nil
}

// checkScope refuses a write to p under an unregistered ID, or registers the
// ID first when req.Register says so; it returns the file it changed. A scope
// that the tree reads as a shared folder rather than an ID is refused too: the
// note would not be that ID's.
func (m *Memory) checkScope(p string, req WriteRequest) (string, error) {
	loc, ok := m.Locate(p)
	if !ok {
		return "", nil
	}
	if req.Owner != "" && loc.Owner != req.Owner && !loc.Unregistered {
		return "", fmt.Errorf("%q is a shared folder of %s notes (magicfrog.json \"shared\" or a layer), not an ID: write the key %s/%s without a scope", req.Owner, req.Dimension, req.Owner, req.Key)
	}
	if !loc.Unregistered {
		return "", nil
	}
	if !req.Register {
		return "", &UnregisteredError{Dimension: loc.Dimension, ID: loc.Owner}
	}
	file, _, err := m.Register(loc.Dimension, loc.Owner, false)
	if err != nil {
		return "", fmt.Errorf("registering %q: %w", loc.Owner, err)
	}
	return file, nil
}

// legacyPredecessor is the legacy note (machine/, project/) of the same
// dimension, ID and key as the canonical path p, when p holds no note yet.
func (m *Memory) legacyPredecessor(p string) *Note {
	if m.Note(p) != nil {
		return nil
	}
	if _, err := os.Lstat(p); err == nil {
		return nil // on disk but not loaded (unreadable): the store decides
	}
	loc, ok := m.Locate(p)
	if !ok || loc.Legacy {
		return nil
	}
	for _, e := range m.Versions(loc.Key) {
		if e.Legacy && e.Dimension == loc.Dimension && e.Owner == loc.Owner {
			if e.Dimension == Device && e.Machine() != "" && e.Machine() != m.MachineID() {
				continue // another machine's note is not this machine's predecessor
			}
			return e
		}
	}
	return nil
}

// compose builds the new note: the current frontmatter with sets applied (every
// other key, comment and line end kept) and the new body. A note whose
// frontmatter is missing or broken gets a fresh block; the caller's expected hash
// has already shown the writer saw what it replaces.
func compose(current []byte, exists bool, sets []frontmatter.Set, body []byte) []byte {
	if exists {
		d := frontmatter.Parse(current)
		if d.Has() {
			head := current[:d.Body]
			if edits, ok := frontmatter.SetFields(head, d, sets); ok {
				head = frontmatter.Apply(head, edits)
				out := make([]byte, 0, len(head)+2+len(body))
				out = append(out, head...)
				if !bytes.HasSuffix(head, []byte("\n")) {
					// A closing line without its line end (the file ended
					// there): the body must start on the next line, or its
					// first line would be read as part of the delimiter.
					if d.CRLF {
						out = append(out, '\r')
					}
					out = append(out, '\n')
				}
				return append(out, body...)
			}
		}
	}
	return frontmatter.Compose(sets, body)
}

// UpdatedLayout is how `updated` is written: RFC 3339 in UTC with
// milliseconds, as the spec's examples do. Everything that writes or checks
// `updated` uses this one layout.
const UpdatedLayout = "2006-01-02T15:04:05.000Z"

// FormatTime writes the `updated` value (UpdatedLayout).
func FormatTime(t time.Time) string {
	return t.UTC().Format(UpdatedLayout)
}

// Delete removes a note if the disk still holds the expected revision and hash.
func (m *Memory) Delete(path string, expectRevision int, expectHash string) error {
	path = filepath.Clean(path)
	if err := m.refuseUnloaded("delete", path); err != nil {
		return err
	}
	if _, ok := m.Locate(path); !ok {
		return fmt.Errorf("%s is not in a memory tree", path)
	}
	last, _ := safefs.ReadFile(path, MaxNoteSize) // kept in the history once removed
	err := store.Remove(m.Paths.LockRoot(path), path, store.Expect{Revision: expectRevision, Hash: expectHash})
	if err == nil {
		if last != nil && (expectHash == "" || store.Hash(last) == expectHash) {
			m.recordDelete(path, last, time.Now())
		}
		m.Refresh(path)
	}
	return err
}
