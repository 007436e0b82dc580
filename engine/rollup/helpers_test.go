package rollup

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/journal"
)

const layersJSON = `{"layers": [
  {"name": "core",    "prefix": ""},
  {"name": "skills",  "prefix": "skills/"},
  {"name": "journal", "prefix": "journal/", "kind": "fractal"}
]}`

// fixture is a data directory and a project bound to task T-7, with a journal
// layer; jdir is the task dimension's shared journal.
type fixture struct {
	data, project, jdir string
	m                   *engine.Memory
}

func newFixture(tb testing.TB) *fixture {
	tb.Helper()
	dir := tb.TempDir()
	f := &fixture{data: filepath.Join(dir, "data"), project: filepath.Join(dir, "project")}
	must(tb, os.MkdirAll(filepath.Join(f.data, "memory"), 0o755))
	must(tb, os.WriteFile(filepath.Join(f.data, "memory", "layers.json"), []byte(layersJSON), 0o644))
	must(tb, os.MkdirAll(filepath.Join(f.project, ".magicfrog"), 0o755))
	must(tb, os.WriteFile(filepath.Join(f.project, ".magicfrog", "config.json"), []byte(`{"task": "T-7", "agents": ["larry"]}`), 0o644))
	f.jdir = filepath.Join(f.project, ".magicfrog", "memory", "journal")
	f.open(tb)
	return f
}

func (f *fixture) open(tb testing.TB) {
	tb.Helper()
	m, err := engine.Open(engine.Options{DataDir: f.data, ProjectDir: f.project, Machine: "m1", Getenv: func(string) string { return "" }})
	if err != nil {
		tb.Fatal(err)
	}
	f.m = m
}

func (f *fixture) journal(tb testing.TB) Journal {
	tb.Helper()
	j, err := JournalFor(f.m, engine.Task, "")
	if err != nil {
		tb.Fatal(err)
	}
	return j
}

func (f *fixture) path(rel string) string { return filepath.Join(f.jdir, filepath.FromSlash(rel)) }

// put writes a journal file as a plain editor would (revision 1 frontmatter)
// and refreshes the memory.
func (f *fixture) put(tb testing.TB, rel, body string) {
	tb.Helper()
	p := f.path(rel)
	must(tb, os.MkdirAll(filepath.Dir(p), 0o755))
	must(tb, os.WriteFile(p, []byte("---\nrevision: 1\nupdated: 2026-11-01T00:00:00.000Z\n---\n"+body), 0o644))
	f.m.Refresh(p)
}

func (f *fixture) read(tb testing.TB, rel string) string {
	tb.Helper()
	b, err := os.ReadFile(f.path(rel))
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// snapshot returns every raw daily's bytes.
func (f *fixture) snapshot(tb testing.TB) map[string]string {
	tb.Helper()
	out := map[string]string{}
	ents, _ := os.ReadDir(f.jdir)
	for _, e := range ents {
		if fl, _ := journal.Classify(e.Name()); fl.Kind == journal.Daily {
			out[e.Name()] = f.read(tb, e.Name())
		}
	}
	return out
}

func must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

func day(tb testing.TB, s string) journal.Day {
	tb.Helper()
	d, err := journal.ParseDay(s)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// rawDay is a small raw daily with something in every refined section.
func rawDay(d journal.Day, n int) string {
	return fmt.Sprintf(`# %s

- 09:10 Decision: keep the export format flat (day %d)
- 10:00 Built the import dry run for batch %d
- 11:30 Error: checksum mismatch on fixture %d, fixed by normalizing line ends
- 14:00 BLOCKED: waiting on the storage team for bucket %d
- TODO: write the export docs, part %d
- Lesson: run the import twice in tests to prove it is idempotent
chatter about lunch
`, d, n, n, n, n, n)
}

// novemberFixture has raw dailies for 2026-11-02 (Monday of W45) to
// 2026-11-29 (Sunday of W48): the four weeks of November 2026.
func novemberFixture(tb testing.TB) *fixture {
	f := newFixture(tb)
	start := day(tb, "2026-11-02")
	for i := 0; i < 28; i++ {
		d := start.AddDays(i)
		f.put(tb, d.String()+".md", rawDay(d, i))
	}
	return f
}

func jobNames(jobs []Job) []string {
	var out []string
	for _, j := range jobs {
		out = append(out, j.Rollup.String())
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func contains(t *testing.T, what, s, sub string) {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Errorf("%s: want %q in:\n%s", what, sub, s)
	}
}
