package rollup

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
	"github.com/magicfrog/mf-lsp/engine/journal"
	"github.com/magicfrog/mf-lsp/engine/safefs"
	"github.com/magicfrog/mf-lsp/engine/store"
)

// ImportStatus is what happened to one file of an imported journal.
type ImportStatus string

const (
	// Imported: written into the journal.
	Imported ImportStatus = "imported"
	// Unchanged: the journal already holds these bytes.
	Unchanged ImportStatus = "unchanged"
	// Kept: the journal's note is at the same or a newer revision; it stays.
	Kept ImportStatus = "kept"
	// Ignored: not a journal note (not .md, hidden, outside memory/); not read.
	Ignored ImportStatus = "ignored"
	// Skipped: refused (a link, a name that could leave the tree, frontmatter
	// that does not parse, an unreadable file): fix it and import again.
	Skipped ImportStatus = "skipped"
)

// ImportedFile is one file of the workspace and what the import did with it.
type ImportedFile struct {
	From   string // slash path relative to the workspace folder
	To     string // destination file ("" when skipped before one was chosen)
	Status ImportStatus
	// Why says why a file was skipped, and notes on imported ones (a misnamed
	// journal file, frontmatter that was added).
	Why string
}

// Report lists every file an import saw, in path order.
type Report struct {
	Journal Journal
	Files   []ImportedFile
}

// Count returns how many files have status s.
func (r Report) Count(s ImportStatus) int {
	n := 0
	for _, f := range r.Files {
		if f.Status == s {
			n++
		}
	}
	return n
}

// ImportJournal takes an existing agent journal laid out as in the Fractal
// journal write-up — memory/YYYY-MM-DD.md, memory/refined/, memory/weekly/,
// memory/monthly/, memory/sticky-notes/, and MEMORY.md at the workspace root
// or in memory/ — into the journal of dimension d and scope (JournalFor).
// When dir has no memory/ folder, dir itself is read as the memory folder.
//
// Every .md file below memory/ is imported to the same path in the journal
// layer, misnamed journal files included (the report and the editor's
// diagnostics say what is wrong). A file without frontmatter gets one
// (revision 1, updated = the file's modification time in UTC) in front of its
// bytes; a frontmatter without revision gets those two keys; a machine key is
// dropped (no journal note is a device note); every other byte is kept. Links, names that could leave the tree and frontmatter that does
// not parse are refused (Skipped); hidden names, files that are not .md and
// the workspace root's other notes are reported as Ignored, not read. As in
// engine.Import, a note never replaces a newer one: an existing destination at
// the same or a higher revision is Kept (same bytes: Unchanged). Nothing is
// dropped silently: every file is in the report.
func ImportJournal(m *engine.Memory, dir string, d engine.Dimension, scope string) (Report, error) {
	j, err := JournalFor(m, d, scope)
	rep := Report{Journal: j}
	if err != nil {
		return rep, err
	}
	if d == engine.Task && m.Paths.TaskDir() == "" {
		return rep, engine.ErrNoProject
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return rep, err
	}
	if info, err := os.Stat(dir); err != nil {
		return rep, fmt.Errorf("import --journal: %w", err)
	} else if !info.IsDir() {
		return rep, fmt.Errorf("import --journal: %s is not a folder", dir)
	}
	skip := func(from, why string) {
		rep.Files = append(rep.Files, ImportedFile{From: from, Status: Skipped, Why: why})
	}
	ignore := func(from, why string) {
		rep.Files = append(rep.Files, ImportedFile{From: from, Status: Ignored, Why: why})
	}
	base, prefix := dir, ""
	memDir := filepath.Join(dir, "memory")
	if info, err := os.Lstat(memDir); err == nil {
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			skip("memory", "links are refused: memory/ is a symbolic link")
			return rep, nil
		case info.IsDir():
			base, prefix = memDir, "memory/"
		}
	}
	type item struct{ from, rel, path string }
	var items []item
	if prefix != "" {
		// The workspace root: MEMORY.md, and a report of everything else.
		ents, err := os.ReadDir(dir)
		if err != nil {
			return rep, fmt.Errorf("import --journal: %w", err)
		}
		inMem := false
		if _, err := os.Lstat(filepath.Join(memDir, journal.MemoryFile)); err == nil {
			inMem = true
		}
		for _, e := range ents {
			name := e.Name()
			switch {
			case name == "memory":
			case name == journal.MemoryFile && e.Type()&fs.ModeSymlink != 0:
				skip(name, "links are refused")
			case name == journal.MemoryFile && inMem:
				skip(name, "memory/MEMORY.md is imported instead; merge the two by hand")
			case name == journal.MemoryFile && e.Type().IsRegular():
				items = append(items, item{from: name, rel: journal.MemoryFile, path: filepath.Join(dir, name)})
			case e.IsDir():
				ignore(name+"/", "not part of the journal (only memory/ and MEMORY.md are read)")
			default:
				ignore(name, "not part of the journal (only memory/ and MEMORY.md are read)")
			}
		}
	}
	err = filepath.WalkDir(base, func(p string, de fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(base, p)
		rel = filepath.ToSlash(rel)
		from := prefix + rel
		if err != nil {
			skip(from, "cannot read: "+err.Error())
			if de != nil && de.IsDir() && p != base {
				return fs.SkipDir
			}
			return nil
		}
		if p == base {
			return nil
		}
		name := de.Name()
		switch {
		case de.Type()&fs.ModeSymlink != 0:
			skip(from, "links are refused")
			return nil
		case strings.HasPrefix(name, "."):
			ignore(from, "hidden names are not notes")
			if de.IsDir() {
				return fs.SkipDir
			}
			return nil
		case de.IsDir():
			return nil
		case !de.Type().IsRegular():
			skip(from, "not a regular file")
			return nil
		case !strings.EqualFold(filepath.Ext(name), ".md"):
			ignore(from, "not a note (only .md files are notes)")
			return nil
		}
		if err := engine.CheckImportPath(rel); err != nil {
			skip(from, err.Error())
			return nil
		}
		items = append(items, item{from: from, rel: rel, path: p})
		return nil
	})
	if err != nil {
		return rep, err
	}
	changed := false
	for _, it := range items {
		f := importOne(m, j, it.from, it.rel, it.path)
		if f.Status == Imported {
			changed = true
		}
		rep.Files = append(rep.Files, f)
	}
	sort.SliceStable(rep.Files, func(a, b int) bool { return rep.Files[a].From < rep.Files[b].From })
	if changed {
		m.Reload()
	}
	return rep, nil
}

// importOne imports one note file.
func importOne(m *engine.Memory, j Journal, from, rel, path string) ImportedFile {
	out := ImportedFile{From: from, Status: Skipped}
	if err := engine.CheckKey(j.Key(rel)); err != nil {
		out.Why = err.Error()
		return out
	}
	dest, err := j.Path(m, rel)
	if err != nil {
		out.Why = err.Error()
		return out
	}
	out.To = dest
	info, err := os.Lstat(path)
	if err != nil {
		out.Why = err.Error()
		return out
	}
	src, err := safefs.ReadNoFollow(path, engine.MaxNoteSize) // a link swapped in after the walk is refused
	if err != nil {
		out.Why = engine.ReadRefusal(err).Error()
		return out
	}
	if err := engine.CheckNote(src); err != nil {
		out.Why = err.Error()
		return out
	}
	var notes []string
	if _, p := journal.Classify(rel); p != nil {
		notes = append(notes, p.Message)
	}
	rev, readable := store.RevisionOf(src)
	if !readable {
		out.Why = "its frontmatter does not parse; fix it and import again"
		return out
	}
	if d := frontmatter.Parse(src); d.Field("machine") != nil {
		// A journal note is no device note: machine is the engine's to write,
		// and on any other note check flags it (machine-forbidden).
		if edits, ok := frontmatter.SetFields(src, d, []frontmatter.Set{{Key: "machine"}}); ok {
			src = frontmatter.Apply(src, edits)
			notes = append(notes, "machine dropped from its frontmatter (only device notes are bound to a machine)")
		}
	}
	if rev == 0 {
		d := frontmatter.Parse(src)
		sets := []frontmatter.Set{{Key: "revision", Value: 1}}
		if _, ok := d.String("updated"); !ok {
			sets = append(sets, frontmatter.Set{Key: "updated", Value: engine.FormatTime(info.ModTime())})
		}
		edits, ok := frontmatter.SetFields(src, d, sets)
		if !ok {
			out.Why = "its frontmatter does not parse; fix it and import again"
			return out
		}
		src = frontmatter.Apply(src, edits)
		rev = 1
		if d.Present {
			notes = append(notes, "revision 1 added to its frontmatter")
		} else {
			notes = append(notes, "frontmatter added (revision 1, updated from the file's time)")
		}
	}
	cur, err := safefs.ReadFile(dest, store.MaxRead)
	expect := store.Expect{}
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		out.Why = err.Error()
		return out
	default:
		curRev, ok := store.RevisionOf(cur)
		switch {
		case bytes.Equal(cur, src):
			out.Status = Unchanged
			out.Why = strings.Join(notes, "; ")
			return out
		case !ok:
			out.Why = dest + " has frontmatter that does not parse; kept"
			return out
		case curRev >= rev:
			out.Status = Kept
			out.Why = fmt.Sprintf("revision %d does not replace %s at revision %d (kept)", rev, dest, curRev)
			return out
		}
		expect = store.Expect{Revision: curRev, Hash: store.Hash(cur)}
	}
	if err := store.Write(m.Paths.LockRoot(dest), dest, src, expect); err != nil {
		out.Why = err.Error()
		return out
	}
	out.Status, out.Why = Imported, strings.Join(notes, "; ")
	return out
}
