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
	if dir, err = checkJournalImport(m, dir, d); err != nil {
		return rep, err
	}
	p := &journalImport{rep: &rep, dir: dir, base: dir}
	if !p.layout() {
		return rep, nil
	}
	if err := p.planRoot(); err != nil {
		return rep, err
	}
	if err := p.planMemory(); err != nil {
		return rep, err
	}
	p.apply(m, j)
	return rep, nil
}

// checkJournalImport refuses a task journal without a project and a dir
// that is not a folder; it returns dir made absolute.
func checkJournalImport(m *engine.Memory, dir string, d engine.Dimension) (string, error) {
	if d == engine.Task && m.Paths.TaskDir() == "" {
		return "", engine.ErrNoProject
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if info, err := os.Stat(dir); err != nil {
		return "", fmt.Errorf("import --journal: %w", err)
	} else if !info.IsDir() {
		return "", fmt.Errorf("import --journal: %s is not a folder", dir)
	}
	return dir, nil
}

// journalImport is one journal import being planned: the report it fills,
// the workspace (dir), the folder read as the memory folder (base, with the
// prefix its files are reported under) and the notes to import.
type journalImport struct {
	rep          *Report
	dir          string
	base, prefix string
	items        []journalItem
}

// journalItem is a file to import: as reported (from), its path in the
// journal layer (rel) and on disk.
type journalItem struct{ from, rel, path string }

func (p *journalImport) skip(from, why string) {
	p.rep.Files = append(p.rep.Files, ImportedFile{From: from, Status: Skipped, Why: why})
}

func (p *journalImport) ignore(from, why string) {
	p.rep.Files = append(p.rep.Files, ImportedFile{From: from, Status: Ignored, Why: why})
}

// layout finds the memory folder: the workspace's memory/ when it has one,
// else the workspace itself. false: memory/ is a link, refused, and nothing
// else is read.
func (p *journalImport) layout() bool {
	memDir := filepath.Join(p.dir, "memory")
	if info, err := os.Lstat(memDir); err == nil {
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			p.skip("memory", "links are refused: memory/ is a symbolic link")
			return false
		case info.IsDir():
			p.base, p.prefix = memDir, "memory/"
		}
	}
	return true
}

// planRoot reads the workspace root beside memory/: its MEMORY.md, and a
// report of everything else.
func (p *journalImport) planRoot() error {
	if p.prefix == "" {
		return nil
	}
	ents, err := os.ReadDir(p.dir)
	if err != nil {
		return fmt.Errorf("import --journal: %w", err)
	}
	inMem := false
	if _, err := os.Lstat(filepath.Join(p.base, journal.MemoryFile)); err == nil {
		inMem = true
	}
	for _, e := range ents {
		name := e.Name()
		switch {
		case name == "memory":
		case name == journal.MemoryFile && e.Type()&fs.ModeSymlink != 0:
			p.skip(name, "links are refused")
		case name == journal.MemoryFile && inMem:
			p.skip(name, "memory/MEMORY.md is imported instead; merge the two by hand")
		case name == journal.MemoryFile && e.Type().IsRegular():
			p.items = append(p.items, journalItem{from: name, rel: journal.MemoryFile, path: filepath.Join(p.dir, name)})
		case e.IsDir():
			p.ignore(name+"/", "not part of the journal (only memory/ and MEMORY.md are read)")
		default:
			p.ignore(name, "not part of the journal (only memory/ and MEMORY.md are read)")
		}
	}
	return nil
}

// planMemory walks the memory folder: every .md file is a note to import;
// links, special files and names that could leave the tree are refused,
// hidden names and other files ignored.
func (p *journalImport) planMemory() error {
	return filepath.WalkDir(p.base, func(path string, de fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(p.base, path)
		rel = filepath.ToSlash(rel)
		from := p.prefix + rel
		if err != nil {
			p.skip(from, "cannot read: "+err.Error())
			if de != nil && de.IsDir() && path != p.base {
				return fs.SkipDir
			}
			return nil
		}
		if path == p.base {
			return nil
		}
		name := de.Name()
		switch {
		case de.Type()&fs.ModeSymlink != 0:
			p.skip(from, "links are refused")
			return nil
		case strings.HasPrefix(name, "."):
			p.ignore(from, "hidden names are not notes")
			if de.IsDir() {
				return fs.SkipDir
			}
			return nil
		case de.IsDir():
			return nil
		case !de.Type().IsRegular():
			p.skip(from, "not a regular file")
			return nil
		case !strings.EqualFold(filepath.Ext(name), ".md"):
			p.ignore(from, "not a note (only .md files are notes)")
			return nil
		}
		if err := engine.CheckImportPath(rel); err != nil {
			p.skip(from, err.Error())
			return nil
		}
		p.items = append(p.items, journalItem{from: from, rel: rel, path: path})
		return nil
	})
}

// apply imports the planned notes into journal j, sorts the report by file
// and reloads m when a note was written.
func (p *journalImport) apply(m *engine.Memory, j Journal) {
	changed := false
	for _, it := range p.items {
		f := importOne(m, j, it.from, it.rel, it.path)
		if f.Status == Imported {
			changed = true
		}
		p.rep.Files = append(p.rep.Files, f)
	}
	files := p.rep.Files
	sort.SliceStable(files, func(a, b int) bool { return files[a].From < files[b].From })
	if changed {
		m.Reload()
	}
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
