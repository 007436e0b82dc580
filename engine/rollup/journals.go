package rollup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/journal"
	"github.com/magicfrog/mf-lsp/engine/safefs"
	"github.com/magicfrog/mf-lsp/engine/store"
)

// Journal is one journal: a fractal layer in one dimension and scope. The
// journal of the task dimension's shared notes is {Task, "", journal layer};
// an agent's own is {Agent, "larry", journal layer}.
type Journal struct {
	Dimension engine.Dimension
	Owner     string // agent or task ID prefix; "" for the shared journal
	Layer     engine.Layer
}

// String names the journal as a portable path prefix: "task/journal/",
// "agent/larry/journal/".
func (j Journal) String() string { return engine.Ref(j.Dimension, j.Owner, j.Layer.Prefix) }

// Key is the dimension key of a layer-relative journal path.
func (j Journal) Key(rel string) string { return j.Layer.Prefix + rel }

// Path is the canonical file of a layer-relative journal path: where writes land.
func (j Journal) Path(m *engine.Memory, rel string) (string, error) {
	return m.PathOf(j.Dimension, j.Owner, j.Key(rel))
}

// File is a journal file: its classification and the loaded note.
type File struct {
	journal.File
	Note *engine.Note
}

// FractalLayer returns the journal layer of m: the fractal layer named
// "journal" when there is one, else the first fractal layer (longest prefix
// first, as layers.json is matched).
func FractalLayer(m *engine.Memory) (engine.Layer, error) {
	l, ok := m.Layers().Journal()
	if !ok {
		return engine.Layer{}, errors.New(`no journal layer: add {"name": "journal", "prefix": "journal/", "kind": "fractal"} to layers.json`)
	}
	return l, nil
}

// JournalFor returns the journal of a dimension and scope in the journal layer
// (FractalLayer).
func JournalFor(m *engine.Memory, d engine.Dimension, scope string) (Journal, error) {
	l, err := FractalLayer(m)
	if err != nil {
		return Journal{}, err
	}
	if scope != "" && !d.HasOwners() {
		return Journal{}, fmt.Errorf("%s notes have no ID prefix (got scope %q)", d, scope)
	}
	return Journal{Dimension: d, Owner: scope, Layer: l}, nil
}

// usable reports whether e can be part of a journal this machine maintains:
// device notes bound to another machine are not.
func usable(m *engine.Memory, e *engine.Note) bool {
	if e.Dimension != engine.Device {
		return true
	}
	b := e.Machine()
	return b == "" || b == m.MachineID()
}

// Journals returns every journal that has files, sorted by dimension, scope and
// layer prefix. A journal under an unregistered folder is no one's (SPEC §2)
// and no rollup may write into it: it is left out until it is registered.
func Journals(m *engine.Memory) []Journal {
	seen := map[Journal]bool{}
	var out []Journal
	for _, e := range m.Notes() {
		if e.Layer.Kind != engine.KindFractal || !usable(m, e) || e.Unregistered {
			continue
		}
		j := Journal{Dimension: e.Dimension, Owner: e.Owner, Layer: *e.Layer}
		if !seen[j] {
			seen[j] = true
			out = append(out, j)
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		x, y := out[a], out[b]
		if x.Dimension != y.Dimension {
			return x.Dimension < y.Dimension
		}
		if x.Owner != y.Owner {
			return x.Owner < y.Owner
		}
		return x.Layer.Prefix < y.Layer.Prefix
	})
	return out
}

// Files lists the journal's files, classified (journal.Classify on the
// layer-relative key), sorted by that key. A key read from both a canonical and
// a legacy root is listed once, canonical first.
func (j Journal) Files(m *engine.Memory) []File {
	var out []File
	seen := map[string]bool{}
	for _, e := range m.Notes() {
		if e.Dimension != j.Dimension || e.Owner != j.Owner || e.Layer.Name != j.Layer.Name || !usable(m, e) {
			continue
		}
		rel := e.LayerKey()
		if seen[rel] {
			continue
		}
		seen[rel] = true
		f, _ := journal.Classify(rel)
		out = append(out, File{File: f, Note: e})
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Rel < out[b].Rel })
	return out
}

// candidates are the files a journal's lookup tries for one layer-relative
// path: the canonical file first, then the legacy root's (project/, machine/).
func (j Journal) candidates(m *engine.Memory, rel string) []string {
	key := j.Key(rel)
	sub := key
	if j.Owner != "" {
		sub = j.Owner + "/" + key
	}
	var out []string
	if p, err := j.Path(m, rel); err == nil {
		out = append(out, p)
	}
	for _, r := range m.Paths.Roots() {
		if r.Legacy && r.Dimension == j.Dimension {
			out = append(out, filepath.Join(r.Dir, filepath.FromSlash(sub)))
		}
	}
	return out
}

// lookup returns the note at a layer-relative path as it is on disk now: the
// loaded note, refreshed first when the file changed, appeared or went away
// since the tree was loaded (another process, a plain text editor). nil when
// there is no such note.
func (j Journal) lookup(m *engine.Memory, rel string) *engine.Note {
	for _, p := range j.candidates(m, rel) {
		if e := fresh(m, p); e != nil && usable(m, e) {
			return e
		}
	}
	return nil
}

// fresh returns the note at path, re-read when the disk differs from the loaded
// note.
func fresh(m *engine.Memory, path string) *engine.Note {
	data, err := safefs.ReadFile(path, store.MaxRead)
	e := m.Note(path)
	switch {
	case err != nil && e == nil:
		return nil
	case err != nil, e == nil, e.Hash() != store.Hash(data):
		m.Refresh(path)
		e = m.Note(path)
	}
	return e
}

// sourceFiles returns the files rollup r of the journal reads, as on disk now,
// in journal.Sources order.
func (j Journal) sourceFiles(m *engine.Memory, r journal.Rollup) []File {
	var files []journal.File
	entries := map[string]*engine.Note{}
	for _, rel := range r.SourcePaths() {
		e := j.lookup(m, rel)
		if e == nil {
			continue
		}
		f, _ := journal.Classify(rel)
		files = append(files, f)
		entries[rel] = e
	}
	var out []File
	for _, f := range journal.Sources(r, files) {
		out = append(out, File{File: f, Note: entries[f.Rel]})
	}
	return out
}

// refresh re-reads the journal's folders from disk, so that a plan sees edits
// the loaded tree has not caught up with (a plain editor, another process).
func (j Journal) refresh(m *engine.Memory) {
	for _, p := range j.candidates(m, "x.md") {
		dir := filepath.Dir(p)
		if info, err := os.Stat(dir); err == nil && info.IsDir() {
			m.Refresh(dir)
		}
	}
}
