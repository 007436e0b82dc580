package rollup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
)

func TestImportJournal(t *testing.T) {
	f := newFixture(t)
	ws := t.TempDir()
	put := func(rel, body string) {
		p := filepath.Join(ws, filepath.FromSlash(rel))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(body), 0o644))
	}
	mtime := time.Date(2026, 2, 17, 23, 30, 0, 0, time.FixedZone("X", 3600))
	put("memory/2026-02-16.md", "# 2026-02-16\n- Built the Telegram bot\n")
	put("memory/2026-02-17.md", "# 2026-02-17\n- Fixed the vault\n")
	must(t, os.Chtimes(filepath.Join(ws, "memory/2026-02-16.md"), mtime, mtime))
	put("memory/refined/2026-02-16.md", "---\nrevision: 4\nupdated: 2026-02-16T23:30:00.000Z\n---\n## Things Built\n- bot\n")
	put("memory/weekly/2026-W07.md", "---\ntitle: week 7\n---\n## Themes\n- bot\n")
	put("memory/weekly/2026-w08.md", "misnamed\n")
	put("memory/monthly/2026-02.md", "## The Arc\n- February\n")
	put("memory/sticky-notes/devices.md", "- mac mini: the agent's home\n")
	put("memory/sticky-notes/infra/servers.md", "- hetzner box\n")
	put("memory/notes.txt", "not markdown\n")
	put("memory/.DS_Store", "junk")
	put("memory/evil\\name.md", "backslash\n")
	put("memory/broken.md", "---\nrevision: [\n---\nbody\n")
	put("MEMORY.md", "# Long-term\n- Prefer small PRs\n")
	put("AGENTS.md", "# rules\n")
	put("projects/x/readme.md", "elsewhere\n")
	outside := t.TempDir()
	must(t, os.WriteFile(filepath.Join(outside, "secret.md"), []byte("secret\n"), 0o644))
	must(t, os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(ws, "memory", "link.md")))
	must(t, os.Symlink(outside, filepath.Join(ws, "memory", "linkdir")))
	// A newer note already in the journal is never replaced.
	f.put(t, "2026-02-17.md", "# kept\n")
	must(t, os.WriteFile(f.path("2026-02-17.md"), []byte("---\nrevision: 3\n---\n# newer, kept\n"), 0o644))

	rep, err := ImportJournal(f.m, ws, engine.Task, "")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]ImportedFile{}
	for _, x := range rep.Files {
		got[x.From] = x
	}
	expect := map[string]ImportStatus{
		"memory/2026-02-16.md":                 Imported,
		"memory/2026-02-17.md":                 Kept,
		"memory/refined/2026-02-16.md":         Imported,
		"memory/weekly/2026-W07.md":            Imported,
		"memory/weekly/2026-w08.md":            Imported,
		"memory/monthly/2026-02.md":            Imported,
		"memory/sticky-notes/devices.md":       Imported,
		"memory/sticky-notes/infra/servers.md": Imported,
		"memory/notes.txt":                     Ignored,
		"memory/.DS_Store":                     Ignored,
		"memory/evil\\name.md":                 Skipped,
		"memory/broken.md":                     Skipped,
		"memory/link.md":                       Skipped,
		"memory/linkdir":                       Skipped,
		"MEMORY.md":                            Imported,
		"AGENTS.md":                            Ignored,
		"projects/":                            Ignored,
	}
	for from, st := range expect {
		x, ok := got[from]
		if !ok {
			t.Errorf("%s is not in the report", from)
			continue
		}
		if x.Status != st {
			t.Errorf("%s: %s (%s), want %s", from, x.Status, x.Why, st)
		}
	}
	if len(rep.Files) != len(expect) {
		for _, x := range rep.Files {
			if _, ok := expect[x.From]; !ok {
				t.Errorf("unexpected report line %+v", x)
			}
		}
	}
	for from, want := range map[string]string{
		"memory/link.md": "links are refused", "memory/linkdir": "links are refused",
		"memory/2026-02-17.md": "does not replace", "memory/evil\\name.md": "not allowed",
		"memory/broken.md": "does not parse", "memory/weekly/2026-w08.md": "2026-W08",
		"AGENTS.md": "not part of the journal",
	} {
		if !strings.Contains(got[from].Why, want) {
			t.Errorf("%s: why %q, want %q", from, got[from].Why, want)
		}
	}
	// Bytes kept; frontmatter added where missing, with the file's time in UTC.
	if b := f.read(t, "2026-02-16.md"); b != "---\nrevision: 1\nupdated: 2026-02-17T22:30:00.000Z\n---\n# 2026-02-16\n- Built the Telegram bot\n" {
		t.Errorf("imported raw daily:\n%s", b)
	}
	if b := f.read(t, "refined/2026-02-16.md"); !strings.HasPrefix(b, "---\nrevision: 4\nupdated: 2026-02-16T23:30:00.000Z\n---\n") {
		t.Errorf("a note with frontmatter was changed:\n%s", b)
	}
	if b := f.read(t, "weekly/2026-W07.md"); !strings.HasPrefix(b, "---\ntitle: week 7\nrevision: 1\nupdated: ") {
		t.Errorf("revision not added to existing frontmatter:\n%s", b)
	}
	if b := f.read(t, "2026-02-17.md"); !strings.Contains(b, "newer, kept") {
		t.Error("a newer note was replaced")
	}
	contains(t, "MEMORY.md", f.read(t, "MEMORY.md"), "- Prefer small PRs")
	contains(t, "sticky", f.read(t, "sticky-notes/infra/servers.md"), "hetzner")
	if _, err := os.Stat(filepath.Join(f.jdir, "link.md")); !os.IsNotExist(err) {
		t.Error("a link was followed")
	}
	if e := f.m.Note(f.path("2026-02-16.md")); e == nil || e.Revision() != 1 {
		t.Error("the memory was not reloaded")
	}

	// Again: everything imported is unchanged now.
	rep2, err := ImportJournal(f.m, ws, engine.Task, "")
	if err != nil {
		t.Fatal(err)
	}
	if n := rep2.Count(Imported); n != 0 {
		t.Errorf("second import imported %d files", n)
	}
	if n := rep2.Count(Unchanged); n != rep.Count(Imported) {
		t.Errorf("second import: %d unchanged, want %d", n, rep.Count(Imported))
	}

	// A workspace whose memory/ is a link is refused whole.
	ws2 := t.TempDir()
	must(t, os.Symlink(filepath.Join(ws, "memory"), filepath.Join(ws2, "memory")))
	rep3, err := ImportJournal(f.m, ws2, engine.Agent, "")
	if err != nil || rep3.Count(Imported) != 0 || rep3.Count(Skipped) != 1 {
		t.Errorf("memory/ as a link: %+v %v", rep3, err)
	}
}

// A folder of journal files without memory/ is read as the memory folder.
func TestImportJournalBareFolder(t *testing.T) {
	f := newFixture(t)
	ws := t.TempDir()
	must(t, os.WriteFile(filepath.Join(ws, "2026-02-16.md"), []byte("# day\n"), 0o644))
	rep, err := ImportJournal(f.m, ws, engine.Agent, "")
	if err != nil || rep.Count(Imported) != 1 {
		t.Fatalf("%+v %v", rep, err)
	}
	if _, err := os.Stat(filepath.Join(f.data, "memory", "agent", "journal", "2026-02-16.md")); err != nil {
		t.Fatal(err)
	}
}

// TestImportJournalDropsMachine is issue 22's importer case for import
// --journal: a source's machine: evil never reaches the note (a journal note
// is no device note; check flags machine-forbidden), while its revision and
// updated, which this command keeps by design, and every other key stay.
func TestImportJournalDropsMachine(t *testing.T) {
	f := newFixture(t)
	ws := t.TempDir()
	src := "---\nrevision: 99\nupdated: 2030-01-01T00:00:00.000Z\nmachine: evil\ntags: [a]\n---\n# day\n"
	must(t, os.WriteFile(filepath.Join(ws, "2026-02-16.md"), []byte(src), 0o644))
	rep, err := ImportJournal(f.m, ws, engine.Agent, "")
	if err != nil || rep.Count(Imported) != 1 {
		t.Fatalf("%+v %v", rep, err)
	}
	got, err := os.ReadFile(filepath.Join(f.data, "memory", "agent", "journal", "2026-02-16.md"))
	must(t, err)
	if want := "---\nrevision: 99\nupdated: 2030-01-01T00:00:00.000Z\ntags: [a]\n---\n# day\n"; string(got) != want {
		t.Errorf("imported:\n%s\nwant:\n%s", got, want)
	}
}
