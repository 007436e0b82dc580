package diagnostics

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/journal"
	"github.com/magicfrog/mf-lsp/engine/store"
)

const fm = "---\nrevision: 1\nupdated: 2026-10-20T09:12:00.000Z\n---\n"

// tree writes files (paths relative to a temp dir holding data/ and project/)
// and opens the memory.
func tree(t testing.TB, files map[string]string) (*engine.Memory, string) {
	t.Helper()
	dir := t.TempDir()
	for p, s := range files {
		path := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := engine.Open(engine.Options{DataDir: filepath.Join(dir, "data"), ProjectDir: filepath.Join(dir, "project"),
		Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return m, dir
}

func find(fs []Finding, code string) *Finding {
	for i := range fs {
		if fs[i].Code == code {
			return &fs[i]
		}
	}
	return nil
}

func codes(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Code)
	}
	return out
}

// TestSpans holds findings to the exact bytes they are about, in sources with
// CRLF line ends, a byte order mark and multi-byte text.
func TestSpans(t *testing.T) {
	cases := []struct {
		name, path, src, code, text string
	}{
		{"crlf revision", "user/a.md", "---\r\nrevision: x\r\nupdated: 2026-10-20T09:12:00.000Z\r\n---\r\nBody\r\n", CodeRevisionNotInteger, "x"},
		{"crlf missing updated", "user/a.md", "---\r\nrevision: 2\r\n---\r\nBody\r\n", CodeUpdatedMissing, "---"},
		{"bom no frontmatter", "user/a.md", "\ufeffNo frontmatter here\r\nsecond line\n", CodeFrontmatterMissing, "No frontmatter here"},
		{"duplicate later key", "user/a.md", "---\nrevision: 1\nupdated: 2026-10-20T09:12:00.000Z\nupdated: 2026-10-21T09:12:00.000Z\n---\n", CodeDuplicateKey, "updated"},
		{"forbidden machine", "user/a.md", "---\nrevision: 1\nupdated: 2026-10-20T09:12:00.000Z\nmachine:  abc  \n---\n", CodeMachineForbidden, "machine:  abc"},
		{"updated not a string", "user/a.md", "---\nrevision: 1\nupdated: [1, 2]\n---\n", CodeUpdatedInvalid, "[1, 2]"},
		{"empty revision", "user/a.md", "---\nrevision:\nupdated: 2026-10-20T09:12:00.000Z\n---\n", CodeRevisionNotInteger, "revision"},
		{"link after multibyte text", "user/a.md", fm + "Grüße → [x](nä.md)\n", CodeBrokenLink, "nä.md"},
		{"link in heading", "user/a.md", fm + "# See [x](y.md)\n", CodeBrokenLink, "y.md"},
		{"link in list", "user/a.md", fm + "- one\n- two [x](./sub/../z.md)\n", CodeBrokenLink, "./sub/../z.md"},
		{"link label equals destination", "user/a.md", fm + "[q.md](q.md)\n", CodeBrokenLink, "q.md"},
		{"empty label", "user/a.md", fm + "x [](e.md)\n", CodeBrokenLink, "e.md"},
		{"multi-line paragraph", "user/a.md", fm + "first line\nsecond [a](b.md) line\n", CodeBrokenLink, "b.md"},
		{"open loop crlf", "project/.magicfrog/memory/journal/refined/2026-11-02.md",
			"---\r\nrevision: 1\r\nupdated: 2026-11-02T09:12:00.000Z\r\n---\r\n## Blockers\r\n- Vendor contract renewal stalled\r\n", CodeOpenLoop, "- Vendor contract renewal stalled"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := c.path
			if !strings.HasPrefix(path, "project/") {
				path = "data/memory/" + path
			}
			m, dir := tree(t, map[string]string{
				path:                      c.src,
				"data/memory/layers.json": `{"layers": [{"name": "journal", "prefix": "journal/", "kind": "fractal"}]}`,
			})
			e := m.Note(filepath.Join(dir, filepath.FromSlash(path)))
			if e == nil {
				t.Fatalf("%s not loaded: %v", path, m.Problems())
			}
			fs := Check(Input{Memory: m, Note: e, Today: journal.Day{Year: 2026, Month: 11, Day: 30}})
			f := find(fs, c.code)
			if f == nil {
				t.Fatalf("no %s; got %v", c.code, codes(fs))
			}
			if got := string(e.TextOrNil()[f.Span.Start:f.Span.End]); got != c.text {
				t.Errorf("span %v covers %q; want %q", f.Span, got, c.text)
			}
		})
	}
}

func TestNoFindingsForHealthyNotes(t *testing.T) {
	m, _ := tree(t, map[string]string{
		"data/machine-id":                       "m1\n",
		"data/memory/user/a.md":                 fm + "See [b](b.md), [web](https://x.y/z.md), [top](#top).\n",
		"data/memory/user/b.md":                 fm + "B.\n",
		"data/memory/device/gpu.md":             "---\nrevision: 2\nupdated: 2026-10-20T09:12:00Z\nmachine: m1\n---\nGPU.\n",
		"data/memory/user/skills/s.md":          "---\nrevision: 1\nupdated: 2026-10-20T09:12:00.000Z\nname: s\ndescription: Does s.\n---\n",
		"project/.magicfrog/memory/notes.md":    fm + "Task notes.\n",
		"project/.magicfrog/config.json":        `{"task": "T-7", "agents": ["larry"]}`,
		"data/memory/agent/larry/only-larry.md": fm,
	})
	if fs := CheckTree(m, Input{Scope: m.DefaultScope(), Today: journal.Day{Year: 2026, Month: 11, Day: 30}}); len(fs) != 0 {
		for _, f := range fs {
			t.Errorf("%s %s %s", f.Path, f.Code, f.Message)
		}
	}
}

// TestData checks what quick fixes rely on: Data and Related.
func TestData(t *testing.T) {
	m, dir := tree(t, map[string]string{
		"data/magicfrog.json":                  `{"agents": ["larry"]}`,
		"project/.magicfrog/config.json":       `{"task": "T-7", "agents": ["larry"]}`,
		"data/memory/user/style.md":            fm + "User.\n",
		"data/memory/agent/larry/style.md":     "---\nrevision: 4\nupdated: 2026-10-20T09:12:00.000Z\n---\nLarry.\n",
		"data/memory/machine/paths.md":         "Legacy.\n",
		"data/memory/project/T-7/plan.md":      fm,
		"data/memory/agent/helpers/x.md":       fm,
		"data/memory/user/links.md":            fm + "[a](missing.md)\n",
		"data/memory/user/revision-quoted.md":  "---\nrevision: \"7\"\nupdated: 2026-10-20T09:12:00.000Z\n---\n",
		"data/memory/user/local.md":            "---\nrevision: 1\nupdated: 2026-10-20T11:12:00.5+02:00\n---\n",
		"data/memory/layers.json":              `{"layers": [{"name": "journal", "prefix": "journal/", "kind": "fractal"}]}`,
		"data/memory/user/journal/2026-w48.md": fm,
	})
	p := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	check := func(rel string) []Finding {
		e := m.Note(p(rel))
		if e == nil {
			t.Fatalf("%s not loaded", rel)
		}
		return Check(Input{Memory: m, Note: e, Scope: m.DefaultScope()})
	}
	want := func(fs []Finding, code string) *Finding {
		t.Helper()
		f := find(fs, code)
		if f == nil {
			t.Fatalf("no %s in %v", code, codes(fs))
		}
		return f
	}

	f := want(check("data/memory/user/style.md"), CodeShadowed)
	if len(f.Related) != 1 || f.Related[0].Path != p("data/memory/agent/larry/style.md") || f.Data["revision"] != 4 || f.Data["scope"] != "larry" {
		t.Errorf("shadowed: related %v data %v", f.Related, f.Data)
	}
	f = want(check("data/memory/machine/paths.md"), CodeLegacyLocation)
	if f.Data["canonical"] != p("data/memory/device/paths.md") {
		t.Errorf("legacy canonical %v", f.Data["canonical"])
	}
	f = want(check("data/memory/project/T-7/plan.md"), CodeLegacyLocation)
	if f.Data["canonical"] != p("project/.magicfrog/memory/T-7/plan.md") {
		t.Errorf("legacy task canonical %v", f.Data["canonical"])
	}
	if f := want(check("data/memory/agent/helpers/x.md"), CodeUnregisteredAgentFolder); f.Data["folder"] != "helpers" {
		t.Errorf("folder %v", f.Data)
	}
	if f := want(check("data/memory/user/links.md"), CodeBrokenLink); f.Data["target"] != p("data/memory/user/missing.md") {
		t.Errorf("target %v", f.Data)
	}
	if f := want(check("data/memory/user/revision-quoted.md"), CodeRevisionNotInteger); f.Data["suggest"] != 7 {
		t.Errorf("suggest %v", f.Data)
	}
	if f := want(check("data/memory/user/local.md"), CodeUpdatedInvalid); f.Data["suggest"] != "2026-10-20T09:12:00.500Z" {
		t.Errorf("suggest %v", f.Data)
	}
	if f := want(check("data/memory/user/journal/2026-w48.md"), journal.CodeMisnamed); f.Data["suggest"] != "weekly/2026-W48.md" ||
		f.Data["suggestPath"] != p("data/memory/user/journal/weekly/2026-W48.md") {
		t.Errorf("journal suggest %v", f.Data)
	}
}

// TestBuffer checks an unsaved buffer, not the disk, and compares the base.
func TestBuffer(t *testing.T) {
	m, dir := tree(t, map[string]string{"data/memory/user/a.md": "---\nrevision: 3\nupdated: 2026-10-20T09:12:00.000Z\n---\nDisk.\n"})
	path := filepath.Join(dir, "data/memory/user/a.md")
	disk := m.Note(path)
	buf := []byte("No frontmatter in the buffer.\n")
	e, _, ok := m.Parse(path, buf)
	if !ok {
		t.Fatal("not a note path")
	}
	for _, tc := range []struct {
		base *Base
		sev  Severity
		want bool
	}{
		{nil, 0, false},
		{&Base{Revision: 3}, 0, false},
		{&Base{Revision: 3, Hash: disk.Hash()}, 0, false},
		{&Base{Revision: 3, Hash: store.Hash([]byte("older"))}, Warning, true},
		{&Base{Revision: 2}, Error, true},
		{&Base{Revision: 4, Hash: disk.Hash()}, Error, true},
	} {
		fs := Check(Input{Memory: m, Note: e, Base: tc.base})
		if !slices.Contains(codes(fs), CodeFrontmatterMissing) {
			t.Errorf("buffer not checked: %v", codes(fs))
		}
		f := find(fs, CodeStaleRevision)
		if (f != nil) != tc.want {
			t.Errorf("base %+v: stale finding %v, want %v", tc.base, f != nil, tc.want)
			continue
		}
		if f != nil && (f.Severity != tc.sev || f.Data["diskRevision"] != 3 || len(f.Related) != 1 || f.Related[0].Path != path) {
			t.Errorf("base %+v: %+v", tc.base, f)
		}
	}
}

func TestOpenLoopDays(t *testing.T) {
	m, dir := tree(t, map[string]string{
		"data/memory/layers.json":                        `{"layers": [{"name": "journal", "prefix": "journal/", "kind": "fractal"}]}`,
		"data/memory/user/journal/refined/2026-11-20.md": fm + "## Next Steps\n- Write the exporter manual page\n",
	})
	e := m.Note(filepath.Join(dir, "data/memory/user/journal/refined/2026-11-20.md"))
	today := journal.Day{Year: 2026, Month: 11, Day: 30}
	for _, tc := range []struct {
		today   journal.Day
		days    int
		horizon int
		want    bool
	}{
		{today, 0, 0, true}, {today, 11, 0, false}, {today, 10, 0, true}, {journal.Day{}, 0, 0, false},
		{journal.Day{Year: 2026, Month: 11, Day: 22}, 0, 0, false},
		{journal.Day{Year: 2027, Month: 2, Day: 18}, 0, 0, true},  // 90 days: still checked
		{journal.Day{Year: 2027, Month: 2, Day: 19}, 0, 0, false}, // 91 days: history
		{journal.Day{Year: 2027, Month: 2, Day: 19}, 0, -1, true},
		{today, 0, 9, false},
	} {
		got := find(Check(Input{Memory: m, Note: e, Today: tc.today, OpenLoopDays: tc.days, OpenLoopHorizon: tc.horizon}), CodeOpenLoop) != nil
		if got != tc.want {
			t.Errorf("today %v days %d horizon %d: open loop %v, want %v", tc.today, tc.days, tc.horizon, got, tc.want)
		}
	}
}

func TestParseSources(t *testing.T) {
	for _, tc := range []struct {
		v  any
		ok bool
		n  int
	}{
		{[]any{map[string]any{"key": "a.md", "revision": 1, "hash": "ab"}}, true, 1},
		{[]any{}, true, 0},
		{[]any{map[string]any{"key": "a.md", "revision": 1}}, true, 1},
		{[]any{map[string]any{"revision": 1}}, false, 0},
		{[]any{map[string]any{"key": "a.md", "revision": "1"}}, false, 0},
		{[]any{"a.md"}, false, 0},
		{[]any{map[string]any{"key": "a.md", "revision": 1, "hash": 123}}, false, 0},
		{"a.md", false, 0},
		{nil, false, 0},
	} {
		got, ok := ParseSources(tc.v)
		if ok != tc.ok || len(got) != tc.n {
			t.Errorf("ParseSources(%v) = %v, %v", tc.v, got, ok)
		}
	}
}

// TestDemo runs the whole demo tree: every code is documented, every span is
// inside its note.
func TestDemo(t *testing.T) {
	demo, _ := filepath.Abs("../testdata/demo")
	m, err := engine.Open(engine.Options{DataDir: filepath.Join(demo, "data"), ProjectDir: filepath.Join(demo, "project"), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	doc := documentedCodes(t)
	for _, f := range CheckTree(m, Input{Scope: m.DefaultScope(), Today: journal.Day{Year: 2026, Month: 11, Day: 30}}) {
		if !doc[f.Code] {
			t.Errorf("undocumented code %s", f.Code)
		}
		if e := m.Note(f.Path); e != nil && (f.Span.End > len(e.TextOrNil()) || f.Span.Start > f.Span.End) {
			t.Errorf("%s %s: span %v outside the note", f.Path, f.Code, f.Span)
		}
	}
}

// documentedCodes reads the "### `code`" headings of docs/diagnostics.md.
func documentedCodes(t *testing.T) map[string]bool {
	b, err := os.ReadFile("../docs/diagnostics.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^### `([a-z/-]+)`").FindAllStringSubmatch(string(b), -1) {
		out[m[1]] = true
	}
	return out
}

// TestEveryCodeDocumented holds docs/diagnostics.md to the codes in the code.
func TestEveryCodeDocumented(t *testing.T) {
	doc := documentedCodes(t)
	all := []string{CodeFrontmatterMissing, CodeFrontmatterUnterminated, CodeFrontmatterInvalid, CodeDuplicateKey,
		CodeRevisionMissing, CodeRevisionNotInteger, CodeRevisionTooSmall, CodeUpdatedMissing, CodeUpdatedInvalid,
		CodeMachineMissing, CodeMachineForbidden, CodeMachineOther, CodeShadowed, CodeLegacyLocation,
		CodeUnregisteredAgentFolder, CodeUnregisteredTaskFolder, CodeOutOfScope, CodeBrokenLink, CodeStaleRevision, CodeSkillMissingName,
		CodeSkillMissingDescription, CodeOpenLoop, CodeRollupStale, CodeRollupSourcesInvalid, CodeFileUnreadable,
		CodeFileBinary, CodeFileTooLarge, CodeConfigInvalid, CodeSecret, CodeSyncConflict, CodeOverwrittenRevision,
		journal.CodeImpossibleDate, journal.CodeNoSuchWeek, journal.CodeNoSuchMonth, journal.CodeWrongFolder,
		journal.CodeMisnamed, journal.CodeUnknownName, CodeLinkCrossesScope}
	for _, c := range all {
		if !doc[c] {
			t.Errorf("%s is not documented in docs/diagnostics.md", c)
		}
		delete(doc, c)
	}
	for c := range doc {
		t.Errorf("docs/diagnostics.md documents %s, which no check emits", c)
	}
	// Every code has a txtar case.
	cases, _ := filepath.Glob("../testdata/diagnostics/*.txtar")
	var all2 strings.Builder
	for _, c := range cases {
		b, _ := os.ReadFile(c)
		all2.Write(b)
	}
	for _, c := range all {
		if !regexp.MustCompile(`(?m)^\S+:\d+:\d+-\d+:\d+ \w+ ` + regexp.QuoteMeta(c) + `( |$)`).MatchString(all2.String()) {
			t.Errorf("no txtar case expects %s", c)
		}
	}
}
