package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/magicfrog/mf-lsp/engine/frontmatter"
	"github.com/magicfrog/mf-lsp/engine/safefs"
	"github.com/magicfrog/mf-lsp/engine/store"
)

// ExportResult lists what an export wrote.
type ExportResult struct {
	Written int
	Skipped []string // notes left out, with why
	// OtherMachines are the device notes of other machines an export with
	// device notes left out (without AllMachines): "device/gpu.md (machine …)".
	OtherMachines []string
	// Config are the configuration files written beside the notes
	// (magicfrog.json, layers.json), relative to the export.
	Config []string
}

// ExportOptions say which device notes an export carries.
type ExportOptions struct {
	WithDevice  bool // this machine's device notes, under machine/
	AllMachines bool // every machine's device notes, each with its binding (implies WithDevice)
}

// PortableConfig is the portable tree's magicfrog.json: what is needed to read
// its notes the same way elsewhere. Agents and Shared are the data directory's
// roster (magicfrog.json plus the project's agents); Tasks are the project's
// task IDs (its bound task and `tasks`).
type PortableConfig struct {
	Agents []string `json:"agents"`
	Shared []string `json:"shared,omitempty"`
	Tasks  []string `json:"tasks,omitempty"`
}

// The configuration files at the top of a portable tree.
const (
	PortableConfigFile = "magicfrog.json"
	PortableLayersFile = "layers.json"
)

// exportDir is the top folder of a dimension in the portable tree (SPEC §8).
func exportDir(d Dimension) string {
	if d == Device {
		return "machine"
	}
	return d.String()
}

// Export writes the chain dimensions (and, withDevice, this machine's device
// notes) as a portable tree; see ExportWith.
func (m *Memory) Export(dir string, withDevice bool) (*ExportResult, error) {
	return m.ExportWith(dir, ExportOptions{WithDevice: withDevice})
}

// ExportWith writes the chain dimensions (and device notes as opts say, under
// machine/) as a portable tree of Markdown files with frontmatter intact, with
// magicfrog.json (roster, shared, the project's tasks) and layers.json at its
// top so the tree reads the same way elsewhere. Legacy notes are exported
// under their canonical dimension; where a canonical note has the same path,
// it wins.
//
// Everything is checked before anything is written: dir may not be inside a
// memory root or hold one, no folder on the way to a file may be a link or
// anything but a folder, and an existing file with other content is never
// overwritten. The store's lock folder is removed again when the export is
// done: an export is not a memory root.
func (m *Memory) ExportWith(dir string, opts ExportOptions) (*ExportResult, error) {
	if err := m.refuseScopeOnly("export"); err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := m.checkOutsideRoots("export", dir); err != nil {
		return nil, err
	}
	res := &ExportResult{}
	files := map[string][]byte{}
	from := map[string]string{}
	here := Scope{Machine: m.MachineID()}
	withDevice := opts.WithDevice || opts.AllMachines
	for _, e := range m.Notes() { // canonical before legacy
		if e.Dimension == Device {
			if !withDevice {
				continue // only when asked
			}
			if !opts.AllMachines && !here.inScope(e, here.Machine) {
				res.OtherMachines = append(res.OtherMachines, fmt.Sprintf("%s (machine %s)", portablePath(e), deviceMachine(e)))
				continue
			}
		}
		rel := exportPath(e, here.Machine)
		if prev, ok := from[rel]; ok {
			res.Skipped = append(res.Skipped, fmt.Sprintf("%s: %s has the same path", e.Path, prev))
			continue
		}
		from[rel] = e.Path
		src, err := e.Text()
		if err != nil {
			return nil, err
		}
		files[rel] = src
		if e.Dimension == Device && e.Machine() == "" && here.Machine != "" {
			// An unbound device note (legacy machine/) is this machine's: the
			// portable copy says so, or it would land on every machine it reaches.
			files[rel] = bindToMachine(src, e.Doc(), here.Machine)
		}
	}
	cfg, layers := m.portableConfig()
	files[PortableConfigFile] = cfg
	res.Config = append(res.Config, PortableConfigFile)
	if layers != nil {
		files[PortableLayersFile] = layers
		res.Config = append(res.Config, PortableLayersFile)
	}
	rels := make([]string, 0, len(files))
	for rel := range files {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	if err := checkExportTarget(dir, rels, files); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	defer store.RemoveLock(dir)
	for _, rel := range rels {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		cur, err := safefs.ReadFile(p, store.MaxRead)
		if err == nil && bytes.Equal(cur, files[rel]) {
			continue
		}
		if err := store.Write(dir, p, files[rel], store.Expect{}); err != nil {
			return res, fmt.Errorf("export: %w", err)
		}
		if _, isNote := from[rel]; isNote {
			res.Written++
		}
	}
	return res, nil
}

// portablePath is where e goes in a portable tree.
func portablePath(e *Note) string { return joinRef(exportDir(e.Dimension), e.Owner, e.Key) }

// portableConfig is the export's magicfrog.json and its layers.json (the
// data directory's file as it is; nil when there is none).
func (m *Memory) portableConfig() (cfg, layers []byte) {
	m.mu.RLock()
	c := PortableConfig{
		Agents: append([]string{}, m.roster...),
		Shared: append([]string(nil), m.shared...),
		Tasks:  unique(append([]string{m.binding.Task}, m.binding.Tasks...)),
	}
	m.mu.RUnlock()
	cfg, _ = json.MarshalIndent(c, "", "  ")
	cfg = append(cfg, '\n')
	if b, err := safefs.ReadFile(m.Paths.LayersFile(), MaxConfigSize); err == nil {
		layers = b
	}
	return cfg, layers
}

// checkExportTarget fails, before anything is written, when a file of the
// export could not be written as it is: a folder on its way is a link or not
// a folder, or the file exists with other content.
func checkExportTarget(dir string, rels []string, files map[string][]byte) error {
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("export: %s is a symbolic link; export to a real folder", dir)
	} else if err == nil && !fi.IsDir() {
		return fmt.Errorf("export: %s is %s, not a folder", dir, safefs.Kind(fi.Mode()))
	}
	checked := map[string]bool{}
	var conflicts []string
	for _, rel := range rels {
		parts := strings.Split(rel, "/")
		for i := 1; i < len(parts); i++ {
			sub := strings.Join(parts[:i], "/")
			if checked[sub] {
				continue
			}
			checked[sub] = true
			fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(sub)))
			switch {
			case errors.Is(err, fs.ErrNotExist):
			case err != nil:
				return fmt.Errorf("export: %w", err)
			case !fi.IsDir():
				return fmt.Errorf("export: %s is %s, not a folder; nothing was written", filepath.Join(dir, filepath.FromSlash(sub)), safefs.Kind(fi.Mode()))
			}
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return fmt.Errorf("export: %w", err)
		case !fi.Mode().IsRegular():
			return fmt.Errorf("export: %s is %s; nothing was written", p, safefs.Kind(fi.Mode()))
		default:
			if cur, err := safefs.ReadFile(p, store.MaxRead); err != nil || !bytes.Equal(cur, files[rel]) {
				conflicts = append(conflicts, p)
			}
		}
	}
	if len(conflicts) > 0 {
		return fmt.Errorf("export: %d files in %s already exist with other content (first: %s); export to an empty folder", len(conflicts), dir, conflicts[0])
	}
	return nil
}

// checkOutsideRoots refuses a folder to export to or import from that is
// inside a memory root, or holds one: an export into data/memory put device
// notes in the project's task memory and in every <memory> block.
func (m *Memory) checkOutsideRoots(op, dir string) error {
	real := realPath(dir)
	for _, root := range []string{m.Paths.MemoryDir(), m.Paths.TaskDir()} {
		if root == "" {
			continue
		}
		r := realPath(root)
		switch {
		case within(r, real):
			return fmt.Errorf("%s: %s is inside the memory root %s; %s to a folder outside it", op, dir, root, op)
		case within(real, r):
			return fmt.Errorf("%s: %s holds the memory root %s; %s to a folder outside it", op, dir, root, op)
		}
	}
	return nil
}

// realPath resolves the links of the deepest existing part of p.
func realPath(p string) string {
	p = filepath.Clean(p)
	var rest []string
	for cur := p; ; cur = filepath.Dir(cur) {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		}
		if filepath.Dir(cur) == cur {
			return p
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
	}
}

// ImportResult lists what an import did.
type ImportResult struct {
	Imported []string // destination paths written
	Config   []string // what the tree's configuration changed here, one line each
	// LayersDiffer says that this data directory's layers.json differs from
	// the tree's, which was not taken; "" when they agree or one was written.
	LayersDiffer string
	Unchanged    int          // already there, same revision and content
	Skipped      []ImportSkip // kept back or refused, each with why
	// Ignored are the tree's dot-folders (".git/" of a clone, an editor's
	// ".obsidian/"), not read: no note is ever in one, so they are not refused.
	Ignored []string
}

// ImportSkip is a file an import did not write.
type ImportSkip struct {
	From   string // the path in the portable tree (or on disk when it could not be read)
	Reason string
	// Kept: the destination is at least as new, which is not an error. Otherwise
	// the file was refused (a link, a path leaving the tree, not a note, broken
	// frontmatter) and needs the user's attention.
	Kept bool
}

func (s ImportSkip) String() string { return s.From + ": " + s.Reason }

// CheckImportPath refuses any path in a portable tree that could leave the
// target: absolute paths, "..", empty or hidden elements, backslashes, drive
// letters, NUL. rel uses / separators; the error says why, not which path.
func CheckImportPath(rel string) error {
	if rel == "" {
		return errors.New("empty path")
	}
	if strings.HasPrefix(rel, "/") || filepath.IsAbs(rel) {
		return errors.New("absolute paths are refused")
	}
	for _, part := range strings.Split(rel, "/") {
		if err := checkName(part); err != nil {
			return err
		}
	}
	return nil
}

// importTarget maps a portable path to its dimension and the path inside the
// canonical root: machine/ lands in device, project/ in task.
func importTarget(rel string) (Dimension, string, error) {
	top, rest, ok := strings.Cut(rel, "/")
	if !ok || rest == "" {
		return 0, "", errors.New("not inside a dimension folder (account/, user/, agent/, task/, machine/, device/, project/)")
	}
	d, err := ParseDimension(top)
	if err != nil {
		return 0, "", err
	}
	if err := CheckKey(rest); err != nil {
		return 0, "", err
	}
	return d, rest, nil
}

// Import takes a portable tree (SPEC §8). Every file is checked before any is
// written, and read through an os.Root of dir: a path that could leave the
// target, a link (or a file swapped for one while it is read), a FIFO or
// other special file, a hidden name, a file larger than a note (never read
// whole), binary or non-UTF-8 content, or broken frontmatter refuses that
// file, each with its reason. An imported note never replaces a newer
// revision: a destination at a higher revision, or at the same revision with
// other content, is kept and the file is reported as skipped. Revisions and
// the machine binding travel as they are.
//
// The tree's magicfrog.json is merged into this data directory's (agents and
// shared: the union) and its tasks into the project's `tasks`; its
// layers.json is taken when there is none here, and a different one is
// reported (LayersDiffer), never written over.
func (m *Memory) Import(dir string) (*ImportResult, error) {
	if err := m.refuseScopeOnly("import"); err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := m.checkOutsideRoots("import", dir); err != nil {
		return nil, err
	}
	root, err := safefs.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	defer root.Close()
	res := &ImportResult{}
	tree, err := m.readPortable(root, res)
	if err != nil {
		return nil, err
	}
	if err := m.importConfig(tree.config, tree.layers, res); err != nil {
		return res, err
	}
	for _, f := range tree.notes {
		m.importNote(m.planImport(f), res)
	}
	if len(res.Imported) > 0 || len(res.Config) > 0 {
		m.Reload()
	}
	return res, nil
}

// portableTree is what an import read of a portable tree: the notes that
// passed every check, and its configuration files.
type portableTree struct {
	notes  []portableNote
	config *PortableConfig // magicfrog.json; nil when absent or broken
	layers []byte          // layers.json as it is; nil when absent
}

// portableNote is one note file of a portable tree, read and checked.
type portableNote struct {
	dim  Dimension
	rel  string // inside the canonical root
	src  []byte
	from string // the path in the portable tree
}

// refuse records a file of the tree that is not imported, and why.
func (res *ImportResult) refuse(from, reason string) {
	res.Skipped = append(res.Skipped, ImportSkip{From: from, Reason: reason})
}

// readPortable checks every file of the tree before anything is written: it
// reads the notes and configuration files that pass, and refuses the rest
// (in res) each with its reason.
func (m *Memory) readPortable(root *os.Root, res *ImportResult) (*portableTree, error) {
	tree := &portableTree{}
	err := fs.WalkDir(root.FS(), ".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			res.refuse(rel, err.Error())
			return nil
		}
		if rel == "." {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") && d.IsDir() {
			res.Ignored = append(res.Ignored, rel+"/")
			return fs.SkipDir
		}
		if strings.HasPrefix(d.Name(), ".") {
			res.refuse(rel, "hidden names are not notes (a store's lock or temporary file, or an editor's)")
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			res.refuse(rel, "links are refused")
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			res.refuse(rel, safefs.Kind(d.Type())+", not a note: refused, never opened")
			return nil
		}
		switch rel {
		case PortableConfigFile, PortableLayersFile:
			tree.readConfig(root, rel, res)
			return nil
		}
		if n, reason := m.readPortableNote(root, rel); reason != "" {
			res.refuse(rel, reason)
		} else {
			tree.notes = append(tree.notes, n)
		}
		return nil
	})
	return tree, err
}

// readConfig reads the tree's magicfrog.json or layers.json.
func (tree *portableTree) readConfig(root *os.Root, rel string, res *ImportResult) {
	b, err := safefs.ReadIn(root, rel, MaxConfigSize)
	if err != nil {
		res.refuse(rel, readReason(err))
		return
	}
	if rel == PortableLayersFile {
		tree.layers = b
		return
	}
	tree.config = &PortableConfig{}
	if err := json.Unmarshal(b, tree.config); err != nil {
		tree.config = nil
		res.refuse(rel, "does not parse: "+err.Error())
	}
}

// readPortableNote reads the note at rel in the tree, or says why it is
// refused: a path that could leave the target or no dimension folder, task
// notes without a project, a file that cannot be read whole, or content
// that is not a note.
func (m *Memory) readPortableNote(root *os.Root, rel string) (portableNote, string) {
	if err := CheckImportPath(rel); err != nil {
		return portableNote{}, err.Error()
	}
	dim, inner, err := importTarget(rel)
	if err != nil {
		return portableNote{}, err.Error()
	}
	if dim == Task && m.Paths.TaskDir() == "" {
		return portableNote{}, "task notes need a project (--project)"
	}
	src, err := safefs.ReadIn(root, filepath.FromSlash(rel), MaxNoteSize)
	if err != nil {
		return portableNote{}, readReason(err)
	}
	if err := CheckNote(src); err != nil {
		return portableNote{}, err.Error()
	}
	if dim == Device {
		var reason string
		if inner, reason = m.deviceImportRel(inner, src); reason != "" {
			return portableNote{}, reason
		}
	}
	return portableNote{dim: dim, rel: inner, src: src, from: rel}, ""
}

// importPlan is what an import does with one note: write it over what the
// destination held (expect), leave it (unchanged), or skip it.
type importPlan struct {
	note      portableNote
	dest      string
	expect    store.Expect
	unchanged bool
	skip      *ImportSkip
}

// planImport decides one note against its destination: an imported note never
// replaces a newer revision, nor the same revision with other content, nor a
// file whose frontmatter does not parse.
func (m *Memory) planImport(n portableNote) importPlan {
	p := importPlan{note: n, dest: filepath.Join(m.Paths.CanonicalRoot(n.dim), filepath.FromSlash(n.rel))}
	newRev, ok := store.RevisionOf(n.src)
	if !ok {
		p.skip = &ImportSkip{From: n.from, Reason: revisionReason(n.src)}
		return p
	}
	if m.ThroughLink(p.dest) {
		// Never read (nor written, the store refuses it) through a link: it
		// may lead into another owner's folder.
		p.skip = &ImportSkip{From: n.from, Reason: p.dest + ": a symbolic link on the way (the note, or a folder above it): not imported through it"}
		return p
	}
	cur, err := safefs.ReadFile(p.dest, store.MaxRead)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return p
	case err != nil:
		p.skip = &ImportSkip{From: n.from, Reason: err.Error()}
		return p
	}
	curRev, readable := store.RevisionOf(cur)
	switch {
	case bytes.Equal(cur, n.src):
		p.unchanged = true
	case !readable:
		p.skip = &ImportSkip{From: n.from, Reason: p.dest + " has frontmatter that does not parse; it was kept", Kept: true}
	case curRev >= newRev:
		p.skip = &ImportSkip{From: n.from, Reason: fmt.Sprintf("revision %d does not replace %s at revision %d", newRev, p.dest, curRev), Kept: true}
	default:
		p.expect = store.Expect{Revision: curRev, Hash: store.Hash(cur)}
	}
	return p
}

// importNote carries out a plan, revision-checked against what the plan
// read, and records the outcome in res.
func (m *Memory) importNote(p importPlan, res *ImportResult) {
	switch {
	case p.skip != nil:
		res.Skipped = append(res.Skipped, *p.skip)
	case p.unchanged:
		res.Unchanged++
	default:
		if err := store.Write(m.Paths.LockRoot(p.dest), p.dest, p.note.src, p.expect); err != nil {
			res.refuse(p.note.from, err.Error())
			return
		}
		res.Imported = append(res.Imported, p.dest)
	}
}

// readReason says why a file of a portable tree could not be read.
func readReason(err error) string {
	switch {
	case errors.Is(err, safefs.ErrTooLarge):
		return ReadRefusal(err).Error() + ": not read"
	case errors.Is(err, safefs.ErrLink):
		return "a link (or replaced by one while it was read): refused"
	case errors.Is(err, safefs.ErrNotRegular):
		return "not a regular file: refused, never read"
	}
	return err.Error()
}

// revisionReason says what is wrong with the frontmatter of src, whose
// revision could not be read.
func revisionReason(src []byte) string {
	d := frontmatter.Parse(src)
	for _, e := range d.Errors {
		switch e.Kind {
		case frontmatter.Syntax, frontmatter.NotMapping, frontmatter.Unterminated:
			return "its frontmatter does not parse (" + e.Message + "); fix it and import again"
		}
	}
	if f := d.Field("revision"); f != nil {
		return fmt.Sprintf("revision %q is not a whole number of 0 or more; fix it and import again", src[f.ValueSpan.Start:f.ValueSpan.End])
	}
	return "revision appears more than once; fix it and import again"
}

// bindToMachine returns a device note's text src (its frontmatter doc) with
// a frontmatter that names machine.
func bindToMachine(src []byte, doc *frontmatter.Document, machine string) []byte {
	sets := []frontmatter.Set{{Key: "machine", Value: machine}}
	edits, ok := frontmatter.SetFields(src, doc, sets)
	if !ok {
		return src
	}
	return frontmatter.Apply(src, edits)
}
