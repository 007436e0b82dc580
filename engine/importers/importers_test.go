package importers_test

// The importer tests: each case imports one of the sample trees in
// testdata/import into a fresh memory, and compares the plan, the import and
// the rendered <memory> block with testdata/import/golden/CASE.txtar. Then it
// imports again, which must change nothing.
//
//	go test ./engine/importers -update    rewrite the goldens (read the diff!)

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/importers"
)

var update = flag.Bool("update", false, "rewrite testdata/import/golden/*.txtar")

// now is the time of every import: goldens never depend on the clock.
var now = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

const machine = "0123456789abcdef"

type importCase struct {
	name  string
	from  importers.Source
	tree  string   // folder under testdata/import, copied into the test's folder
	paths []string // relative to the copy
	split bool
	scope string
}

var cases = []importCase{
	{name: "claude", from: importers.Claude, tree: "claude", paths: []string{"project", "home/.claude"}},
	{name: "claude_split", from: importers.Claude, tree: "claude", paths: []string{"project/CLAUDE.md"}, split: true},
	{name: "agents", from: importers.Agents, tree: "agents", paths: []string{"repo"}},
	{name: "cursor", from: importers.Cursor, tree: "cursor", paths: []string{"project"}},
	{name: "openclaw", from: importers.OpenClaw, tree: "openclaw", paths: []string{"workspace"}, scope: "pip"},
}

func TestImport(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runCase(t, c) })
	}
}

func runCase(t *testing.T, c importCase) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	copyTree(t, filepath.Join("..", "..", "testdata", "import", c.tree), src)
	m := freshMemory(t, dir)
	opts := importers.Options{From: c.from, Split: c.split, Owner: c.scope, Home: filepath.Join(src, "home"), Now: now}
	for _, p := range c.paths {
		opts.Paths = append(opts.Paths, filepath.Join(src, p))
	}

	plan, err := importers.PlanImport(m, opts)
	if err != nil {
		t.Fatal(err)
	}
	var planOut, applyOut bytes.Buffer
	importers.WritePlan(&planOut, plan)
	if files := tree(t, dir); len(files["data/memory"]) != 0 || len(files["project/.magicfrog/memory"]) != 0 {
		t.Fatalf("a plan wrote notes: %v", files)
	}
	res, err := importers.Apply(m, plan)
	if err != nil {
		t.Fatal(err)
	}
	importers.WriteResult(&applyOut, res)
	m.Reload()
	blk, err := m.Render(engine.RenderOptions{Scope: m.DefaultScope(), Today: "2026-11-29"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{"plan": planOut.String(), "apply": applyOut.String(), "render": blk.Text}
	golden(t, c.name, got)

	// A second import changes nothing: every note is there unchanged.
	before := tree(t, dir)
	again, err := importers.PlanImport(m, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range again.Items {
		if it.Status != importers.Unchanged {
			t.Errorf("second plan: %s is %s, want unchanged", it.Ref(), it.Status)
		}
	}
	res2, err := importers.Apply(m, again)
	if err != nil {
		t.Fatal(err)
	}
	if len(res2.Written) != 0 || len(res2.Kept) != 0 || len(res2.Skipped) != 0 {
		var b bytes.Buffer
		importers.WriteResult(&b, res2)
		t.Errorf("second import did something:\n%s", b.String())
	}
	if after := tree(t, dir); !equalTrees(before, after) {
		t.Errorf("second import changed files")
	}
}

// freshMemory makes a data directory (agent pip, a journal layer, a fixed
// machine id) and a project bound to task T-1 and pip.
func freshMemory(t *testing.T, dir string) *engine.Memory {
	t.Helper()
	write := func(rel, text string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("data/magicfrog.json", `{"agents": ["pip"]}`)
	write("data/machine-id", machine+"\n")
	write("data/memory/layers.json", `{"layers": [{"name": "core", "prefix": ""}, {"name": "skills", "prefix": "skills/"}, {"name": "journal", "prefix": "journal/", "kind": "fractal"}]}`)
	write("project/.magicfrog/config.json", `{"task": "T-1", "agents": ["pip"]}`)
	m, err := engine.Open(engine.Options{DataDir: filepath.Join(dir, "data"), ProjectDir: filepath.Join(dir, "project")})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// copyTree copies src into dst, every file with the same modification time
// (the journal import dates notes without frontmatter by it).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(target, b, 0o644); err != nil {
			return err
		}
		return os.Chtimes(target, now, now)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// tree maps each memory root of dir to its files and contents.
func tree(t *testing.T, dir string) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	for _, root := range []string{"data/memory", "project/.magicfrog/memory"} {
		files := map[string]string{}
		base := filepath.Join(dir, root)
		_ = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") || d.Name() == "layers.json" {
				return nil
			}
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(base, p)
			files[filepath.ToSlash(rel)] = string(b)
			return nil
		})
		out[root] = files
	}
	return out
}

func equalTrees(a, b map[string]map[string]string) bool {
	for root, files := range a {
		if len(files) != len(b[root]) {
			return false
		}
		for k, v := range files {
			if b[root][k] != v {
				return false
			}
		}
	}
	return true
}

// golden compares got with testdata/import/golden/NAME.txtar (or rewrites it).
func golden(t *testing.T, name string, got map[string]string) {
	t.Helper()
	file := filepath.Join("..", "..", "testdata", "import", "golden", name+".txtar")
	order := []string{"plan", "apply", "render"}
	if *update {
		ar := &txtar.Archive{Comment: []byte("Generated by go test ./engine/importers -update: the plan, the import and the\nrender of testdata/import (see importers_test.go). Read the diff before committing.\n")}
		for _, k := range order {
			ar.Files = append(ar.Files, txtar.File{Name: k, Data: []byte(got[k])})
		}
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update to make it)", err)
	}
	want := map[string]string{}
	for _, f := range ar.Files {
		want[f.Name] = string(f.Data)
	}
	keys := make([]string, 0, len(got))
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if got[k] != want[k] {
			t.Errorf("%s differs from %s:\n--- got\n%s\n--- want\n%s", k, file, got[k], want[k])
		}
	}
}

// TestClaudeLinksAndDepth: a link that leaves the project is refused, whether
// named or reached by @import; @imports stop after five hops.
func TestClaudeLinksAndDepth(t *testing.T) {
	dir := t.TempDir()
	m := freshMemory(t, dir)
	proj := filepath.Join(dir, "src")
	write := func(rel, text string) {
		p := filepath.Join(proj, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("../elsewhere/secret.md", "TOKEN=x\n")
	write("CLAUDE.md", "Start: @h1.md and @linked.md\n")
	for i := 1; i <= 7; i++ {
		write("h"+string(rune('0'+i))+".md", "hop @h"+string(rune('0'+i+1))+".md\n")
	}
	if err := os.Symlink(filepath.Join(dir, "elsewhere", "secret.md"), filepath.Join(proj, "linked.md")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	plan, err := importers.PlanImport(m, importers.Options{From: importers.Claude, Paths: []string{proj}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	importers.WritePlan(&out, plan)
	text := out.String()
	for _, want := range []string{
		"skipped CLAUDE.md: @linked.md: outside the project folder",
		"skipped h5.md: @h6.md: more than five hops",
		"task/claude/h5.md",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("plan lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "secret") && !strings.Contains(text, "outside") || strings.Contains(text, "task/claude/h6.md") || strings.Contains(text, "task/claude/linked.md") {
		t.Errorf("plan follows what it must not:\n%s", text)
	}
}

// TestOpenClawJournalNeverOverwrites: import --journal replaces a note at a
// lower revision; import --from openclaw never overwrites one. The workspace's
// 2026-11-29.md is at revision 2; the journal already holds revision 1.
func TestOpenClawJournalNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	copyTree(t, filepath.Join("..", "..", "testdata", "import", "openclaw"), src)
	m := freshMemory(t, dir)
	if _, err := m.Write(engine.WriteRequest{Dimension: engine.Agent, Owner: "pip", Key: "journal/2026-11-29.md", Body: []byte("Mine, by hand.\n"), Now: now}); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(dir, "data", "memory", "agent", "pip", "journal", "2026-11-29.md")
	before, _ := os.ReadFile(dest)
	plan, err := importers.PlanImport(m, importers.Options{From: importers.OpenClaw, Paths: []string{filepath.Join(src, "workspace")}, Owner: "pip", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range plan.Items {
		if it.Key == "journal/2026-11-29.md" && it.Status != importers.Exists {
			t.Errorf("plan: %s is %s, want exists", it.Ref(), it.Status)
		}
	}
	res, err := importers.Apply(m, plan)
	if err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(dest); string(after) != string(before) {
		t.Errorf("the journal note was overwritten:\n%s", after)
	}
	if len(res.Kept) != 1 || res.Kept[0].Key != "journal/2026-11-29.md" || len(res.Written) != 9 {
		var b bytes.Buffer
		importers.WriteResult(&b, res)
		t.Errorf("result:\n%s", b.String())
	}
}

// TestImportDropsEngineKeys: a source's revision, updated and machine are
// never carried into a note (issue 22); the engine writes them as for every
// write (revision 1, updated = the import's time, machine only on device
// notes). Other keys are kept. Each source kind: OpenClaw's journal, its other
// files and skills, and a CLAUDE.md.
func TestImportDropsEngineKeys(t *testing.T) {
	const forged = "---\nrevision: 99\nmachine: evil\nupdated: 2030-01-01\ntags: [kept]\n---\n"
	for _, tc := range []struct {
		name  string
		from  importers.Source
		files map[string]string // source files, relative to the source folder
		owner string
		notes []string // the written notes, relative to the data directory or the project
	}{
		{"openclaw", importers.OpenClaw, map[string]string{
			"memory/2026-11-28.md":        forged + "- a daily.\n",
			"MEMORY.md":                   forged + "Long-term.\n",
			"memory/sticky-notes/wifi.md": forged + "The router.\n",
			"SOUL.md":                     forged + "Curious.\n",
			"skills/weather/SKILL.md":     strings.Replace(forged, "tags: [kept]", "name: weather\ndescription: the weather\ntags: [kept]", 1) + "Look outside.\n",
		}, "pip", []string{
			"data/memory/agent/pip/journal/2026-11-28.md",
			"data/memory/agent/pip/journal/MEMORY.md",
			"data/memory/agent/pip/journal/sticky-notes/wifi.md",
			"data/memory/agent/pip/openclaw/SOUL.md",
			"data/memory/agent/pip/skills/weather/SKILL.md",
		}},
		{"claude", importers.Claude, map[string]string{"CLAUDE.md": forged + "Run make.\n"}, "", []string{
			"project/.magicfrog/memory/claude/CLAUDE.md",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "src")
			for rel, text := range tc.files {
				p := filepath.Join(src, filepath.FromSlash(rel))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			m := freshMemory(t, dir)
			plan, err := importers.PlanImport(m, importers.Options{From: tc.from, Paths: []string{src}, Owner: tc.owner, Now: now})
			if err != nil {
				t.Fatal(err)
			}
			res, err := importers.Apply(m, plan)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Written) != len(tc.notes) || len(res.Skipped) != 0 {
				var b bytes.Buffer
				importers.WriteResult(&b, res)
				t.Fatalf("result:\n%s", b.String())
			}
			m.Reload()
			for _, rel := range tc.notes {
				p := filepath.Join(dir, filepath.FromSlash(rel))
				n := m.Note(p)
				if n == nil {
					t.Errorf("%s: not loaded as a note (%v)", rel, m.Problems())
					continue
				}
				b, _ := os.ReadFile(p)
				if u, _ := n.UpdatedTime(); n.Revision() != 1 || !u.Equal(now) || n.Machine() != "" {
					t.Errorf("%s: revision %d, updated %q, machine %q; want 1, %v, none:\n%s", rel, n.Revision(), n.Updated(), n.Machine(), now, b)
				}
				// The provenance line holds a temporary path, whose digits may be anything.
				keys := regexp.MustCompile(`(?m)^imported-(from|via): .*$`).ReplaceAllString(string(b), "")
				if strings.Contains(keys, "2030") || strings.Contains(keys, "evil") || strings.Contains(keys, "99") {
					t.Errorf("%s keeps a source's engine key:\n%s", rel, b)
				}
				// Journal files go through import --journal, which keeps no provenance.
				if !strings.Contains(rel, "/journal/") && !strings.Contains(string(b), "\nimported-from: ") {
					t.Errorf("%s does not record its source (imported-from):\n%s", rel, b)
				}
				if !strings.Contains(string(b), "tags: [kept]") {
					t.Errorf("%s lost the source's other keys:\n%s", rel, b)
				}
			}
		})
	}
}
