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
		case "earlier":
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("scope: earlier %q: %v", v, err)
			}
			s.opts.Earlier = n
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

// refOf is where a note lives, as a path a reader recognizes: its Ref, or for
// a legacy note the legacy root it was read from in place.
func refOf(e *engine.Note) string {
	if !e.Legacy {
		return e.Ref()
	}
	legacy := "machine"
	if e.Dimension == engine.Task {
		legacy = "project"
	}
	if e.Owner != "" {
		return legacy + "/" + e.Owner + "/" + e.Key
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
	for _, e := range m.Notes() {
		scope := e.Owner
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
		if !strings.Contains(blk.Text, engine.EscapeBody(string(e.BodyOrNil()))) {
			t.Errorf("%s: escaped body not in the block", e.Ref())
		}
	}
	for _, o := range blk.Omitted {
		line := fmt.Sprintf(`<omitted path="%s" tokens="%d" reason="%s"/>`, o.Note.Ref(), o.Tokens, o.Reason)
		if o.Reason == engine.ReasonUnregistered {
			// No size either: an unregistered note is no one's to know about.
			line = fmt.Sprintf(`<omitted path="%s" reason="%s"/>`, o.Note.Ref(), o.Reason)
		}
		if !strings.Contains(blk.Text, line) {
			t.Errorf("omitted %s has no visible line %s", o.Note.Ref(), line)
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

// makeTree writes files (slash paths relative to dir, under data/ and project/)
// and opens the memory. The binding is task T-7, agents larry; the roster is
// larry and moe; this machine is m1.
func makeTree(t testing.TB, files map[string]string) (string, *engine.Memory) {
	t.Helper()
	dir := t.TempDir()
	base := map[string]string{
		"data/machine-id":                   "m1\n",
		"data/magicfrog.json":               `{"agents": ["larry", "moe"]}`,
		"project/.magicfrog/config.json":    `{"task": "T-7", "agents": ["larry"]}`,
		"data/memory/layers.json":           `{"layers": [{"name": "journal", "prefix": "journal/", "kind": "fractal"}]}`,
		"data/memory/account/a-good.md":     note(1, "account: good"),
		"data/memory/user/u-good.md":        note(2, "user: good"),
		"data/memory/agent/larry/g-good.md": note(3, "larry: good"),
		"project/.magicfrog/memory/good.md": note(4, "task: good"),
	}
	for k, v := range files {
		base[k] = v
	}
	for name, text := range base {
		writeFile(t, filepath.Join(dir, filepath.FromSlash(name)), text)
	}
	m, err := engine.Open(engine.Options{DataDir: filepath.Join(dir, "data"), ProjectDir: filepath.Join(dir, "project")})
	if err != nil {
		t.Fatal(err)
	}
	return dir, m
}

func note(rev int, body string) string {
	return fmt.Sprintf("---\nrevision: %d\nupdated: 2026-10-20T09:12:00.000Z\n---\n%s\n", rev, body)
}

func writeFile(t testing.TB, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

var scopeT7 = engine.Scope{Task: "T-7", Agents: []string{"larry"}, Machine: "m1"}

// TestRobustLoad: files that are not good notes give a problem naming the file
// (and where in it, when there is a where), and the rest of the tree still
// loads and renders.
func TestRobustLoad(t *testing.T) {
	big := "---\nrevision: 1\n---\n" + strings.Repeat("0123456789abcdef\n", 5<<20/17+1)
	dir, m := makeTree(t, map[string]string{
		"data/memory/user/broken-yaml.md":    "---\nrevision: [1\nupdated: x\n---\nbody of a broken note\n",
		"data/memory/user/unterminated.md":   "---\nrevision: 1\nno closing line\n",
		"data/memory/user/no-frontmatter.md": "Just a body.\n",
		"data/memory/user/bom.md":            "\ufeff---\nrevision: 2\nupdated: 2026-10-20T09:12:00.000Z\n---\nbom body\n",
		"data/memory/user/crlf.md":           "---\r\nrevision: 3\r\nupdated: 2026-10-20T09:12:00.000Z\r\n---\r\ncrlf body\r\n",
		"data/memory/user/binary.md":         "---\nrevision: 1\n---\nab\x00cd",
		"data/memory/user/big.md":            big,
		"data/memory/user/latin1.md":         "---\nrevision: 1\n---\ncaf\xe9\n",
		"data/memory/user/notes.txt":         "not a note: wrong extension",
		"data/memory/user/.hidden.md":        "hidden: never read",
	})
	user := filepath.Join(dir, "data", "memory", "user")
	// A symbolic link loop, a link to a folder, a broken link, a link to a note.
	must(t, os.Symlink("loop-b.md", filepath.Join(user, "loop-a.md")))
	must(t, os.Symlink("loop-a.md", filepath.Join(user, "loop-b.md")))
	must(t, os.MkdirAll(filepath.Join(dir, "elsewhere"), 0o755))
	writeFile(t, filepath.Join(dir, "elsewhere", "x.md"), note(1, "outside the tree"))
	must(t, os.Symlink(filepath.Join(dir, "elsewhere"), filepath.Join(user, "linked-folder")))
	must(t, os.Symlink("missing.md", filepath.Join(user, "dangling.md")))
	must(t, os.Symlink(filepath.Join(dir, "elsewhere", "x.md"), filepath.Join(user, "linked-out.md")))
	writeFile(t, filepath.Join(dir, "data", "memory", "account", "x.md"), note(1, "inside the tree"))
	must(t, os.Symlink("../account/x.md", filepath.Join(user, "linked-account.md")))
	must(t, os.Symlink("crlf.md", filepath.Join(user, "linked-note.md")))
	// A FIFO named like a note: opening it for reading would wait forever.
	must(t, makeFIFO(filepath.Join(user, "fifo.md")))
	// An unreadable note (root reads it anyway: then it is just a note).
	locked := filepath.Join(user, "locked.md")
	writeFile(t, locked, note(1, "locked"))
	must(t, os.Chmod(locked, 0))
	_, rootReads := os.ReadFile(locked)
	m.Reload()

	problems := map[string]string{}
	for _, p := range m.Problems() {
		problems[filepath.Base(p.Path)] = p.Message
	}
	for name, want := range map[string]string{
		"binary.md":     "not a note (nul-byte): the file has a NUL byte at offset 22",
		"big.md":        "larger than a note may be",
		"latin1.md":     "not UTF-8 text (invalid byte at offset 23)",
		"loop-a.md":     "looping",
		"loop-b.md":     "looping",
		"linked-folder": "symbolic link to a folder",
		"dangling.md":   "broken",
		"linked-out.md": "out of the memory root",
		// A link is followed only inside its own dimension and owner folder.
		"linked-account.md": "leading into account/x.md",
		"fifo.md":           "FIFO",
	} {
		if msg, ok := problems[name]; !ok {
			t.Errorf("%s: no problem; want one saying %q", name, want)
		} else if !strings.Contains(msg, want) {
			t.Errorf("%s: problem %q; want it to say %q", name, msg, want)
		}
		if m.Note(filepath.Join(user, name)) != nil {
			t.Errorf("%s: loaded as a note", name)
		}
	}
	if rootReads == nil {
		t.Log("running as root: chmod 000 does not keep the file from being read; skipping that case")
	} else if msg := problems["locked.md"]; !strings.Contains(msg, "permission denied") {
		t.Errorf("locked.md: problem %q; want permission denied", msg)
	}
	for _, p := range m.Problems() {
		if !filepath.IsAbs(p.Path) || !strings.HasPrefix(p.Path, dir) {
			t.Errorf("problem %q does not name the file by its absolute path", p.Path)
		}
	}

	// Notes whose frontmatter is wrong are still notes, flagged with where.
	for name, kind := range map[string]string{"broken-yaml.md": "syntax", "unterminated.md": "unterminated"} {
		e := m.Note(filepath.Join(user, name))
		if e == nil {
			t.Errorf("%s: not loaded; a malformed frontmatter is flagged, not dropped", name)
			continue
		}
		if len(e.Doc().Errors) == 0 {
			t.Errorf("%s: no frontmatter error", name)
			continue
		}
		err := e.Doc().Errors[0]
		if string(err.Kind) != kind || err.Span.Start < 0 || err.Span.End > len(e.TextOrNil()) || err.Span.Start >= err.Span.End {
			t.Errorf("%s: error %+v; want a %s error with a span inside the file", name, err, kind)
		}
		if e.Revision() != 0 {
			t.Errorf("%s: revision %d; want 0", name, e.Revision())
		}
	}
	if e := m.Note(filepath.Join(user, "no-frontmatter.md")); e == nil || e.Revision() != 0 || e.Doc().Present || string(e.BodyOrNil()) != "Just a body.\n" {
		t.Errorf("no-frontmatter.md: want a revision-0 note whose body is the whole file; got %+v", e)
	}
	if e := m.Note(filepath.Join(user, "bom.md")); e == nil || e.Revision() != 2 || !e.Doc().BOM || string(e.BodyOrNil()) != "bom body\n" {
		t.Errorf("bom.md: want revision 2 and the body without the BOM; got %+v", e)
	}
	if e := m.Note(filepath.Join(user, "crlf.md")); e == nil || e.Revision() != 3 || !e.Doc().CRLF || string(e.BodyOrNil()) != "crlf body\r\n" {
		t.Errorf("crlf.md: want revision 3 and the CRLF body; got %+v", e)
	}
	if e := m.Note(filepath.Join(user, "linked-note.md")); e == nil {
		t.Errorf("linked-note.md: a symbolic link to a note of its own dimension and owner is read as the note")
	}
	for _, name := range []string{"notes.txt", ".hidden.md"} {
		if m.Note(filepath.Join(user, name)) != nil {
			t.Errorf("%s: read as a note", name)
		}
		if _, ok := problems[name]; ok {
			t.Errorf("%s: a problem; files that are not notes are simply not read", name)
		}
	}

	// The rest of the tree loads and renders.
	blk, err := m.Render(engine.RenderOptions{Scope: scopeT7, Today: specToday})
	if err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{"account: good", "user: good", "larry: good", "task: good", "bom body", "crlf body", "Just a body.", "body of a broken note"} {
		if !strings.Contains(blk.Text, body) {
			t.Errorf("block lacks %q:\n%s", body, blk.Text)
		}
	}
	if strings.Contains(blk.Text, "\ufeff") {
		t.Error("the BOM reached the block")
	}
	checkBlockInvariants(t, m, blk)
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
