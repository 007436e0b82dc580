package engine_test

// The spec tests: every testdata/engine/*.txtar is a small memory tree (files
// under data/ and project/), a scope line, and what SPEC.md says the engine
// must make of it. See testdata/engine/README.txtar for the format.
//
//	go test ./engine -run TestSpec            run them
//	go test ./engine -run TestSpec -update    rewrite the want.* sections
//
// After -update, read the diff against the SPEC: an expectation is right
// because the SPEC says so, not because the code printed it.

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/magicfrog/mf-lsp/engine"
)

var update = flag.Bool("update", false, "rewrite the want.* sections of testdata/engine/*.txtar")

// specToday is the journal's today when a case does not name one: tests never
// depend on the clock.
const specToday = "2026-10-20"

func TestSpec(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "engine", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no spec cases in testdata/engine")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		if name == "README" {
			continue
		}
		t.Run(name, func(t *testing.T) { runSpecCase(t, file) })
	}
}

// specScope is the parsed `-- scope --` section.
type specScope struct {
	opts engine.RenderOptions
	self bool // previous=self: render once, then again with that generation
}

func parseScope(t *testing.T, text string) specScope {
	t.Helper()
	var s specScope
	s.opts.Today = specToday
	for _, field := range strings.Fields(text) {
		k, v, ok := strings.Cut(field, "=")
		if !ok {
			t.Fatalf("scope: %q is not key=value", field)
		}
		switch k {
		case "task":
			s.opts.Scope.Task = v
		case "agents":
			if v != "" {
				s.opts.Scope.Agents = strings.Split(v, ",")
			}
		case "machine":
			s.opts.Scope.Machine = v
		case "budget":
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("scope: budget %q: %v", v, err)
			}
			s.opts.Budget = n
		case "previous":
			if v == "self" {
				s.self = true
			} else {
				s.opts.Previous = v
			}
		case "today":
			s.opts.Today = v
		default:
			t.Fatalf("scope: unknown key %q", k)
		}
	}
	return s
}

// writeTree writes the archive's data/ and project/ files below dir.
func writeTree(t *testing.T, ar *txtar.Archive, dir string) (data, project string) {
	t.Helper()
	data = filepath.Join(dir, "data")
	for _, f := range ar.Files {
		top, _, _ := strings.Cut(f.Name, "/")
		if top != "data" && top != "project" {
			continue
		}
		if top == "project" {
			project = filepath.Join(dir, "project")
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return data, project
}

func runSpecCase(t *testing.T, file string) {
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ar := txtar.Parse(src)
	sections := map[string]int{}
	for i, f := range ar.Files {
		sections[f.Name] = i
	}
	scopeIdx, ok := sections["scope"]
	if !ok {
		t.Fatal("no -- scope -- section")
	}
	sc := parseScope(t, string(ar.Files[scopeIdx].Data))

	dir := t.TempDir()
	data, project := writeTree(t, ar, dir)
	m, err := engine.Open(engine.Options{DataDir: data, ProjectDir: project})
	if err != nil {
		t.Fatal(err)
	}
	opts := sc.opts
	if sc.self {
		first, err := m.Render(opts)
		if err != nil {
			t.Fatal(err)
		}
		opts.Previous = first.Generation
	}
	blk, err := m.Render(opts)
	if err != nil {
		t.Fatal(err)
	}
	if sc.self && strings.Contains(blk.Text, "replaces=") {
		t.Errorf("previous=self: an unchanged view must not say replaces=\n%s", blk.Text)
	}
	if opts.Previous != "" && !sc.self {
		want := `replaces="` + opts.Previous + `"`
		if blk.Generation != opts.Previous && !strings.Contains(blk.Text, want) {
			t.Errorf("previous=%s differs from generation %s: want %s", opts.Previous, blk.Generation, want)
		}
	}

	got := map[string]string{
		"want.block":    blk.Text,
		"want.view":     viewListing(m.View(opts.Scope)),
		"want.entries":  entryListing(m),
		"want.problems": problemListing(m, dir),
	}
	// Sections compared: those the case has; with none, view and block.
	var compare []string
	for name := range got {
		if _, ok := sections[name]; ok {
			compare = append(compare, name)
		}
	}
	if len(compare) == 0 {
		compare = []string{"want.view", "want.block"}
	}
	sort.Strings(compare)

	// Every case also holds the block's invariants.
	checkBlockInvariants(t, m, blk)

	if *update {
		for _, name := range compare {
			if i, ok := sections[name]; ok {
				ar.Files[i].Data = []byte(got[name])
			} else {
				ar.Files = append(ar.Files, txtar.File{Name: name, Data: []byte(got[name])})
			}
		}
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, name := range compare {
		i, ok := sections[name]
		if !ok {
			t.Errorf("no -- %s -- section (run with -update)", name)
			continue
		}
		if want := string(ar.Files[i].Data); want != got[name] {
			t.Errorf("%s differs:\n--- want\n%s--- got\n%s--- diff\n%s", name, want, got[name], lineDiff(want, got[name]))
		}
	}
}

// refOf is where an entry lives, as a path a reader recognizes: its Ref, or for
// a legacy entry the legacy root it was read from in place.
func refOf(e *engine.Entry) string {
	if !e.Legacy {
		return e.Ref()
	}
	legacy := "machine"
	if e.Dimension == engine.Task {
		legacy = "project"
	}
	if e.Scope != "" {
		return legacy + "/" + e.Scope + "/" + e.Key
	}
	return legacy + "/" + e.Key
}

// viewListing is the effective view, one line a row: `key winner shadowed…`
// for the chain, then `key device-ref` for each device row.
func viewListing(v *engine.View) string {
	var b strings.Builder
	for _, kv := range v.Keys {
		b.WriteString(kv.Key + " " + refOf(kv.Winner))
		for _, s := range kv.Shadowed {
			b.WriteString(" " + refOf(s))
		}
		b.WriteByte('\n')
	}
	for _, e := range v.Device {
		b.WriteString(e.Key + " " + refOf(e) + "\n")
	}
	return b.String()
}

// entryListing is every loaded note: `ref dimension scope key layer revision`.
func entryListing(m *engine.Memory) string {
	var b strings.Builder
	for _, e := range m.Entries() {
		scope := e.Scope
		if scope == "" {
			scope = "-"
		}
		fmt.Fprintf(&b, "%s %s %s %s %s r%d\n", refOf(e), e.Dimension, scope, e.Key, e.Layer.Name, e.Revision())
	}
	return b.String()
}

// problemListing is every Problem, with the test's directory as $ROOT.
func problemListing(m *engine.Memory, dir string) string {
	var b strings.Builder
	for _, p := range m.Problems() {
		line := filepath.ToSlash(strings.ReplaceAll(p.Path+": "+p.Message, dir, "$ROOT"))
		b.WriteString(line + "\n")
	}
	return b.String()
}

// checkBlockInvariants holds for every block: one <memory> element that no body
// closes, a generation of 8 hex digits, every included body recoverable, and
// every note of the view either included, listed as a skill, omitted, or a
// journal file outside the boot set.
func checkBlockInvariants(t *testing.T, m *engine.Memory, blk *engine.Block) {
	t.Helper()
	if n := strings.Count(blk.Text, "</memory>"); n != 1 || !strings.HasSuffix(blk.Text, "</memory>\n") {
		t.Errorf("the block must end with its one </memory>; found %d", n)
	}
	if len(blk.Generation) != 8 || strings.Trim(blk.Generation, "0123456789abcdef") != "" {
		t.Errorf("generation %q: want 8 hex digits", blk.Generation)
	}
	if strings.Count(blk.Text, "</note>") != len(blk.Included) {
		t.Errorf("%d </note> closers for %d included notes: a body closed a note", strings.Count(blk.Text, "</note>"), len(blk.Included))
	}
	for _, e := range blk.Included {
		if !strings.Contains(blk.Text, engine.EscapeBody(string(e.Body()))) {
			t.Errorf("%s: escaped body not in the block", e.Ref())
		}
	}
	for _, o := range blk.Omitted {
		line := fmt.Sprintf(`<omitted path="%s" tokens="%d" reason="%s"/>`, o.Entry.Ref(), o.Tokens, o.Reason)
		if !strings.Contains(blk.Text, line) {
			t.Errorf("omitted %s has no visible line %s", o.Entry.Ref(), line)
		}
	}
}

// lineDiff marks the lines of got that want lacks (+) and the reverse (-).
func lineDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b bytes.Buffer
	i, j := 0, 0
	for i < len(wl) || j < len(gl) {
		switch {
		case i < len(wl) && j < len(gl) && wl[i] == gl[j]:
			i, j = i+1, j+1
		case j < len(gl) && !containsLine(wl[i:], gl[j]):
			fmt.Fprintf(&b, "+ %s\n", gl[j])
			j++
		case i < len(wl):
			fmt.Fprintf(&b, "- %s\n", wl[i])
			i++
		default:
			fmt.Fprintf(&b, "+ %s\n", gl[j])
			j++
		}
	}
	return b.String()
}

func containsLine(ls []string, l string) bool {
	for _, x := range ls {
		if x == l {
			return true
		}
	}
	return false
}
