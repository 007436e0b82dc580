package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/magicfrog/mf-lsp/engine/frontmatter"
	"github.com/magicfrog/mf-lsp/engine/store"
)

// ExportResult lists what an export wrote.
type ExportResult struct {
	Written int
	Skipped []string // notes left out, with why
}

// exportDir is the top folder of a dimension in the portable tree (SPEC §8).
func exportDir(d Dimension) string {
	if d == Device {
		return "machine"
	}
	return d.String()
}

// Export writes the chain dimensions (and, withDevice, this machine's device
// notes under machine/) as a portable tree of Markdown files with frontmatter
// intact. Legacy notes are exported under their canonical dimension; where a
// canonical note has the same path, it wins. An existing file in dir with other
// content is never overwritten: the export fails before writing anything.
func (m *Memory) Export(dir string, withDevice bool) (*ExportResult, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	res := &ExportResult{}
	files := map[string]*Entry{}
	here := Scope{Machine: m.MachineID()}
	for _, e := range m.Entries() { // canonical before legacy
		if e.Dimension == Device && (!withDevice || !here.inScope(e, here.Machine)) {
			continue // only this machine's device notes, and only when asked
		}
		rel := exportDir(e.Dimension) + "/" + e.Key
		if e.Scope != "" {
			rel = exportDir(e.Dimension) + "/" + e.Scope + "/" + e.Key
		}
		if prev, ok := files[rel]; ok {
			res.Skipped = append(res.Skipped, fmt.Sprintf("%s: %s has the same path", e.Path, prev.Path))
			continue
		}
		files[rel] = e
		if e.Dimension == Device && e.Machine() == "" && here.Machine != "" {
			// An unbound device note (legacy machine/) is this machine's: the
			// portable copy says so, or it would land on every machine it reaches.
			files[rel] = bindToMachine(e, here.Machine)
		}
	}
	rels := make([]string, 0, len(files))
	for rel := range files {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	var conflicts []string
	for _, rel := range rels {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if cur, err := os.ReadFile(p); err == nil && !bytes.Equal(cur, files[rel].Src) {
			conflicts = append(conflicts, p)
		}
	}
	if len(conflicts) > 0 {
		return nil, fmt.Errorf("export: %d files in %s already exist with other content (first: %s); export to an empty folder", len(conflicts), dir, conflicts[0])
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for _, rel := range rels {
		e := files[rel]
		p := filepath.Join(dir, filepath.FromSlash(rel))
		cur, err := os.ReadFile(p)
		if err == nil && bytes.Equal(cur, e.Src) {
			continue
		}
		expect := store.Expect{}
		if err := store.Write(dir, p, e.Src, expect); err != nil {
			return res, fmt.Errorf("export: %w", err)
		}
		res.Written++
	}
	return res, nil
}

// ImportResult lists what an import did.
type ImportResult struct {
	Imported  []string     // destination paths written
	Unchanged int          // already there, same revision and content
	Skipped   []ImportSkip // kept back or refused, each with why
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
// written: a path that could leave the target, a link, or a file that is not a
// note refuses that file. An imported note never replaces a newer revision: a
// destination at a higher revision, or at the same revision with other content,
// is kept and the file is reported as skipped. Revisions and the machine binding
// travel as they are.
func (m *Memory) Import(dir string) (*ImportResult, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("import: %s is not a folder", dir)
	}
	res := &ImportResult{}
	type item struct {
		dim  Dimension
		rel  string // inside the canonical root
		src  []byte
		from string
	}
	var items []item
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			res.Skipped = append(res.Skipped, ImportSkip{From: p, Reason: err.Error()})
			return nil
		}
		if p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.Type()&fs.ModeSymlink != 0 {
			res.Skipped = append(res.Skipped, ImportSkip{From: rel, Reason: "links are refused"})
			return nil
		}
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") || !d.Type().IsRegular() {
			return nil
		}
		if err := CheckImportPath(rel); err != nil {
			res.Skipped = append(res.Skipped, ImportSkip{From: rel, Reason: err.Error()})
			return nil
		}
		dim, inner, err := importTarget(rel)
		if err != nil {
			res.Skipped = append(res.Skipped, ImportSkip{From: rel, Reason: err.Error()})
			return nil
		}
		if dim == Task && m.Paths.TaskDir() == "" {
			res.Skipped = append(res.Skipped, ImportSkip{From: rel, Reason: "task notes need a project (--project)"})
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			res.Skipped = append(res.Skipped, ImportSkip{From: rel, Reason: err.Error()})
			return nil
		}
		if len(src) > MaxNoteSize || bytes.IndexByte(src, 0) >= 0 {
			res.Skipped = append(res.Skipped, ImportSkip{From: rel, Reason: "not a note (binary, or larger than 4 MiB)"})
			return nil
		}
		items = append(items, item{dim: dim, rel: inner, src: src, from: rel})
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		dest := filepath.Join(m.Paths.CanonicalRoot(it.dim), filepath.FromSlash(it.rel))
		newRev, ok := store.RevisionOf(it.src)
		if !ok {
			res.Skipped = append(res.Skipped, ImportSkip{From: it.from, Reason: "its frontmatter does not parse; fix it and import again"})
			continue
		}
		cur, err := os.ReadFile(dest)
		expect := store.Expect{}
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			res.Skipped = append(res.Skipped, ImportSkip{From: it.from, Reason: err.Error()})
			continue
		default:
			curRev, readable := store.RevisionOf(cur)
			switch {
			case bytes.Equal(cur, it.src):
				res.Unchanged++
				continue
			case !readable:
				res.Skipped = append(res.Skipped, ImportSkip{From: it.from, Reason: dest + " has frontmatter that does not parse; it was kept", Kept: true})
				continue
			case curRev >= newRev:
				res.Skipped = append(res.Skipped, ImportSkip{From: it.from, Reason: fmt.Sprintf("revision %d does not replace %s at revision %d", newRev, dest, curRev), Kept: true})
				continue
			}
			expect = store.Expect{Revision: curRev, Hash: store.Hash(cur)}
		}
		if err := store.Write(m.Paths.LockRoot(dest), dest, it.src, expect); err != nil {
			res.Skipped = append(res.Skipped, ImportSkip{From: it.from, Reason: err.Error()})
			continue
		}
		res.Imported = append(res.Imported, dest)
	}
	if len(res.Imported) > 0 {
		m.Reload()
	}
	return res, nil
}

// bindToMachine returns a copy of a device entry whose frontmatter names machine.
func bindToMachine(e *Entry, machine string) *Entry {
	sets := []frontmatter.Set{{Key: "machine", Value: machine}}
	edits, ok := frontmatter.SetFields(e.Src, e.Doc, sets)
	if !ok {
		return e
	}
	c := &Entry{Path: e.Path, Root: e.Root, Dimension: e.Dimension, Key: e.Key, Layer: e.Layer, Legacy: e.Legacy}
	c.Src = frontmatter.Apply(e.Src, edits)
	c.Doc = frontmatter.Parse(c.Src)
	c.Hash = hashBytes(c.Src)
	return c
}
