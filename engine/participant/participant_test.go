package participant_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/errcode"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
	"github.com/magicfrog/mf-lsp/engine/journal"
	"github.com/magicfrog/mf-lsp/engine/participant"
)

// demo copies testdata/demo (data/ and project/, bound to task T-7 and agent
// larry; moe is on the roster too) and returns its root.
func demo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "testdata", "demo"))); err != nil {
		t.Fatal(err)
	}
	return dir
}

func open(t testing.TB, root string) *engine.Memory {
	t.Helper()
	return openWith(t, root, engine.Options{})
}

// openWith opens the tree at root with opts (its folders set here).
func openWith(t testing.TB, root string, opts engine.Options) *engine.Memory {
	t.Helper()
	opts.DataDir, opts.ProjectDir = filepath.Join(root, "data"), filepath.Join(root, "project")
	m, err := engine.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// larry is the demo's participant: agent larry on task T-7.
func larry(t testing.TB, root string) *participant.Participant {
	t.Helper()
	return larryWith(t, root, engine.Options{})
}

// larryWith is larry on the tree opened with opts.
func larryWith(t testing.TB, root string, opts engine.Options) *participant.Participant {
	t.Helper()
	m := openWith(t, root, opts)
	s, err := participant.Resolve(m, participant.Given{}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	p, err := participant.New(m, participant.Options{Scope: s, Today: "2026-11-30"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestResolve(t *testing.T) {
	root := demo(t)
	m := open(t, root)
	noEnv := func(string) string { return "" }
	s, err := participant.Resolve(m, participant.Given{}, noEnv)
	if err != nil || s.Task != "T-7" || len(s.Agents) != 1 || s.Agents[0] != "larry" {
		t.Fatalf("binding: %+v, %v", s, err)
	}
	s, _ = participant.Resolve(m, participant.Given{}, func(k string) string {
		if k == participant.AgentEnv {
			return "moe"
		}
		return ""
	})
	if len(s.Agents) != 1 || s.Agents[0] != "moe" {
		t.Fatalf("$%s: %+v", participant.AgentEnv, s)
	}
	s, _ = participant.Resolve(m, participant.Given{Agent: "moe", AgentSet: true, Task: "", TaskSet: true}, noEnv)
	if len(s.Agents) != 1 || s.Agents[0] != "moe" || s.Task != "" {
		t.Fatalf("flags: %+v", s)
	}

	// A binding of several agents is no participant until one is chosen.
	cfg := filepath.Join(root, "project", ".magicfrog", "config.json")
	if err := os.WriteFile(cfg, []byte(`{"task": "T-7", "agents": ["larry", "moe"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	m.Reload()
	_, err = participant.Resolve(m, participant.Given{}, noEnv)
	if d, ok := errcode.DataOf(err); !ok || d.Code != errcode.SeveralAgents || strings.Join(d.Choices, ",") != "larry,moe" || !strings.Contains(err.Error(), "--agent") {
		t.Fatalf("two agents in the binding: %v (%+v)", err, d)
	}
	// The editor's "agents" setting (or render's --agent list) is refused alike,
	// naming where the agents came from; a chosen one among them is the participant.
	if _, err := participant.Resolve(m, participant.Given{Agents: []string{"larry", "moe"}, AgentsSet: true, AgentsFrom: "--agent"}, noEnv); errcode.Of(err) != errcode.SeveralAgents || !strings.HasPrefix(err.Error(), "--agent names 2 agents") {
		t.Fatalf("two agents given: %v", err)
	}
	if s, err := participant.Resolve(m, participant.Given{Agents: []string{"larry", "moe"}, AgentsSet: true, Agent: "moe", AgentSet: true}, noEnv); err != nil || len(s.Agents) != 1 || s.Agents[0] != "moe" {
		t.Fatalf("moe chosen among two: %+v, %v", s, err)
	}
	if _, err := participant.New(m, participant.Options{Scope: engine.Scope{Agents: []string{"larry", "moe"}}}); err == nil {
		t.Fatal("New accepted two agents")
	}
}

func TestRead(t *testing.T) {
	p := larry(t, demo(t))
	r, err := p.Read("agent/larry", "notes/style.md")
	if err != nil {
		t.Fatal(err)
	}
	if !r.Effective || r.Revision != 5 || r.Hash == "" || !strings.Contains(r.Body, "lead with the decision") || len(r.Shadows) != 1 || r.Shadows[0].Dimension != "agent" {
		t.Fatalf("larry's style: %+v", r)
	}
	r, err = p.Read("agent", "notes/style.md")
	if err != nil {
		t.Fatal(err)
	}
	if r.Effective || r.ShadowedBy == nil || r.ShadowedBy.Dimension != "agent/larry" || r.ShadowedBy.URI != "memory://agent/larry/notes/style.md" {
		t.Fatalf("the shared style note is shadowed by larry's: %+v", r)
	}
	// Resource paths: the engine's classification says which folder is an ID.
	if e, err := p.NoteAt("agent/larry/notes/style.md"); err != nil || e.Owner != "larry" {
		t.Fatalf("NoteAt larry's: %v", err)
	}
	if _, err := p.NoteAt("agent/moe/notes/focus.md"); err == nil || !participant.IsRefusal(err) {
		t.Fatalf("NoteAt moe's: %v", err)
	}
	if _, err := p.NoteAt("user/../agent/moe/notes/focus.md"); err == nil || !participant.IsRefusal(err) {
		t.Fatalf("NoteAt with ..: %v", err)
	}
	// A missing note says where the key is in scope instead.
	_, err = p.Read("user", "notes/style.md")
	var nf *participant.NotFound
	if !errors.As(err, &nf) || !strings.Contains(err.Error(), "agent/larry") {
		t.Fatalf("missing note: %v", err)
	}
}

// refused runs f and wants a Refusal whose message holds want.
func refused(t *testing.T, what string, err error, want string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: accepted", what)
		return
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("%s: %v (want it to say %q)", what, err, want)
	}
}

func TestReadRefusals(t *testing.T) {
	p := larry(t, demo(t))
	for _, c := range []struct{ dim, key, want string }{
		{"agent/moe", "notes/focus.md", "outside this participant's scope"},
		{"task/T-9", "notes/progress.md", "outside this participant's scope"},
		{"project/T-9", "notes/progress.md", "outside this participant's scope"},
		{"shelf", "a.md", "unknown dimension"},
		{"user/larry", "a.md", "user notes have no ID"},
		{"agent/larry/x", "a.md", "want DIMENSION or DIMENSION/ID"},
		{"agent/", "a.md", "want DIMENSION or DIMENSION/ID"},
		{"user", "../data/machine-id.md", `".." is not allowed`},
		{"user", "/etc/passwd.md", "relative path"},
		{"user", "a\x00b.md", "relative path"},
		{"user", "notes/style.txt", "a .md file"},
		{"user", "", "empty key"},
	} {
		_, err := p.Read(c.dim, c.key)
		refused(t, fmt.Sprintf("read %q %q", c.dim, c.key), err, c.want)
		if err != nil && !participant.IsRefusal(err) {
			t.Errorf("read %q %q: %T is not a Refusal", c.dim, c.key, err)
		}
	}
}

// snapshot is every file below root with its bytes.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	for p, b := range before {
		if a, ok := after[p]; !ok || a != b {
			t.Errorf("%s changed %s", what, p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok && !strings.HasPrefix(filepath.Base(p), ".") {
			t.Errorf("%s made %s", what, p)
		}
	}
}

func TestWriteRefusals(t *testing.T) {
	root := demo(t)
	p := larry(t, root)
	big := strings.Repeat("x", 50<<20)
	for _, c := range []struct {
		in   participant.WriteInput
		want string
	}{
		{participant.WriteInput{Place: "agent/moe", Key: "notes/focus.md", Body: "mine now", ExpectedRevision: 2}, "outside this participant's scope"},
		{participant.WriteInput{Place: "task/T-9", Key: "notes/x.md", Body: "x"}, "outside this participant's scope"},
		{participant.WriteInput{Place: "nowhere", Key: "x.md", Body: "x"}, "unknown dimension"},
		{participant.WriteInput{Place: "user", Key: "../../escape.md", Body: "x"}, `".." is not allowed`},
		{participant.WriteInput{Place: "user", Key: "/tmp/abs.md", Body: "x"}, "relative path"},
		{participant.WriteInput{Place: "user", Key: "nul\x00.md", Body: "x"}, "relative path"},
		{participant.WriteInput{Place: "user", Key: ".hidden.md", Body: "x"}, "starting with ."},
		{participant.WriteInput{Place: "user", Key: "big.md", Body: big}, "not a note (too-large): the body is 52428800 bytes, more than a note may be (4194304 bytes"},
		{participant.WriteInput{Place: "user", Key: "nul.md", Body: "a\x00b"}, "not a note (nul-byte): the body has a NUL byte at offset 1"},
		{participant.WriteInput{Place: "user", Key: "fm.md", Body: "---\nrevision: 9\n---\nbody\n"}, "not a note (frontmatter-in-body)"},
		{participant.WriteInput{Place: "user", Key: "neg.md", Body: "x", ExpectedRevision: -1}, "expected_revision -1"},
		// A shared agent note whose key starts with an agent's ID would be that agent's.
		{participant.WriteInput{Place: "agent", Key: "moe/notes/focus.md", Body: "x", ExpectedRevision: 2}, "would be read back as agent/moe"},
		{participant.WriteInput{Place: "task", Key: "T-7/notes/progress.md", Body: "x", ExpectedRevision: 3}, "would be read back as task/T-7"},
	} {
		before := snapshot(t, root)
		_, err := p.Write(c.in)
		refused(t, fmt.Sprintf("write %q %q", c.in.Place, c.in.Key), err, c.want)
		sameTree(t, fmt.Sprintf("write %q %q", c.in.Place, c.in.Key), before, snapshot(t, root))
	}
}

func TestWriteUnregisteredAgent(t *testing.T) {
	root := demo(t)
	m := open(t, root)
	p, err := participant.New(m, participant.Options{Scope: engine.Scope{Task: "T-7", Agents: []string{"zed"}}})
	if err != nil {
		t.Fatal(err)
	}
	if w := p.Warnings(); len(w) != 1 || !strings.Contains(w[0], `agent "zed" is not registered`) {
		t.Errorf("warnings: %q", w)
	}
	before := snapshot(t, root)
	_, err = p.Write(participant.WriteInput{Place: "agent/zed", Key: "notes/a.md", Body: "x"})
	refused(t, "write as an unregistered agent", err, `agent "zed" is not registered`)
	// A shared agent note under a folder that is neither an ID nor shared.
	_, err = p.Write(participant.WriteInput{Place: "agent", Key: "stray/notes/a.md", Body: "x"})
	refused(t, "write under an unregistered folder", err, `first folder "stray"`)
	sameTree(t, "write as an unregistered agent", before, snapshot(t, root))
}

func TestWriteMissingRoots(t *testing.T) {
	root := demo(t)
	if err := os.RemoveAll(filepath.Join(root, "project", ".magicfrog")); err != nil {
		t.Fatal(err)
	}
	p := larry(t, root)
	_, err := p.Write(participant.WriteInput{Place: "task", Key: "notes/new.md", Body: "x"})
	refused(t, "task write without .magicfrog", err, "task notes live in a project")
	if _, err := os.Stat(filepath.Join(root, "project", ".magicfrog")); err == nil {
		t.Error("a task write made .magicfrog/")
	}

	m, err := engine.Open(engine.Options{DataDir: filepath.Join(root, "nodata"), ProjectDir: filepath.Join(root, "project")})
	if err != nil {
		t.Fatal(err)
	}
	p, _ = participant.New(m, participant.Options{Scope: engine.Scope{Agents: []string{"larry"}}})
	_, err = p.Write(participant.WriteInput{Place: "user", Key: "notes/new.md", Body: "x"})
	refused(t, "write into a missing data directory", err, "does not exist")
	if _, err := os.Stat(filepath.Join(root, "nodata")); err == nil {
		t.Error("a write made the data directory")
	}
}

func TestWriteAndStale(t *testing.T) {
	root := demo(t)
	p := larry(t, root)
	w, err := p.Write(participant.WriteInput{Place: "agent/larry", Key: "notes/new.md", Body: "first\n"})
	if err != nil {
		t.Fatal(err)
	}
	if w.Revision != 1 || w.Dimension != "agent/larry" || w.URI != "memory://agent/larry/notes/new.md" {
		t.Fatalf("create: %+v", w)
	}
	path := filepath.Join(root, "data", "memory", "agent", "larry", "notes", "new.md")
	w2, err := p.Write(participant.WriteInput{Place: "agent/larry", Key: "notes/new.md", Body: "second\n", ExpectedRevision: 1, ExpectedHash: w.Hash})
	if err != nil || w2.Revision != 2 {
		t.Fatalf("update: %+v %v", w2, err)
	}
	disk, _ := os.ReadFile(path)

	// A writer that read revision 1 is refused and handed the current note.
	_, err = p.Write(participant.WriteInput{Place: "agent/larry", Key: "notes/new.md", Body: "stale\n", ExpectedRevision: 1})
	var sw *participant.StaleWrite
	if !errors.As(err, &sw) || sw.Current == nil || sw.Current.Revision != 2 || sw.Current.Body != "second\n" || sw.Current.Hash != w2.Hash {
		t.Fatalf("stale write: %v (%+v)", err, sw)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, disk) {
		t.Fatalf("a stale write changed the file:\n%s", now)
	}
	// The same revision with another hash: edited outside the engine.
	_, err = p.Write(participant.WriteInput{Place: "agent/larry", Key: "notes/new.md", Body: "x\n", ExpectedRevision: 2, ExpectedHash: w.Hash})
	if !errors.As(err, &sw) {
		t.Fatalf("stale hash: %v", err)
	}
	// Creating what exists.
	_, err = p.Write(participant.WriteInput{Place: "agent/larry", Key: "notes/new.md", Body: "x\n"})
	if !errors.As(err, &sw) || sw.CurrentRevision() != 2 {
		t.Fatalf("create over an existing note: %v", err)
	}
	// Device notes are bound to this machine.
	if _, err := p.Write(participant.WriteInput{Place: "device", Key: "shell.md", Body: "zsh\n"}); err != nil {
		t.Fatal(err)
	}
	r, err := p.Read("device", "shell.md")
	if err != nil || !r.Effective {
		t.Fatalf("device note: %+v %v", r, err)
	}
}

func TestAppend(t *testing.T) {
	root := demo(t)
	p := larry(t, root)
	day, _ := journal.ParseDay("2026-11-30")
	a, err := p.Append("", "- started the MCP server", day)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Created || a.Dimension != "task" || a.Key != "journal/2026-11-30.md" || a.Revision != 1 {
		t.Fatalf("first append: %+v", a)
	}
	if _, err := p.Append("task", "- then the tests\n\n\n", day); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(a.Path)
	doc := frontmatter.Parse(got)
	if !doc.Has() || len(doc.Errors) > 0 {
		t.Fatalf("the daily does not parse:\n%s", got)
	}
	if body := string(got[doc.Body:]); body != "# 2026-11-30 (Monday)\n\n- started the MCP server\n\n- then the tests\n" {
		t.Fatalf("daily body:\n%q", body)
	}
	if rev, _ := doc.Int("revision"); rev != 2 {
		t.Fatalf("revision %d, want 2", rev)
	}
	// Larry's own journal.
	a, err = p.Append("agent/larry", "note to self", day)
	if err != nil || a.Key != "journal/2026-11-30.md" || a.Dimension != "agent/larry" {
		t.Fatalf("own journal: %+v %v", a, err)
	}
	for _, c := range []struct{ dim, text, want string }{
		{"task", "  \n", "empty"},
		{"task", "a\x00b", "not a note (nul-byte): the text has a NUL byte at offset 1"},
		{"agent/moe", "hi", "outside this participant's scope"},
		{"task", strings.Repeat("y", 5<<20), "not a note (too-large): the text is 5242880 bytes"},
	} {
		_, err := p.Append(c.dim, c.text, day)
		refused(t, fmt.Sprintf("append %q", c.dim), err, c.want)
	}
}

// TestAppendConcurrent runs writers with memory trees of their own, as separate
// processes would be: every line lands once and the note parses.
// Concurrent appends all land, each once, in each writer's order: writers
// that each keep one memory (servers), and writers that open a one-shot
// memory for every append (engine.Options.OneShot: the hooks' processes),
// whose first try does not refresh a tree loaded moments before.
func TestAppendConcurrent(t *testing.T) {
	t.Run("long-lived", func(t *testing.T) { testAppendConcurrent(t, false) })
	t.Run("one-shot", func(t *testing.T) { testAppendConcurrent(t, true) })
}

func testAppendConcurrent(t *testing.T, oneShot bool) {
	root := demo(t)
	const writers, each = 8, 12
	day, _ := journal.ParseDay("2026-11-30")
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := 0; w < writers; w++ {
		p := larry(t, root)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if oneShot {
					p = larryWith(t, root, engine.Options{OneShot: true})
				}
				if _, err := p.Append("task", fmt.Sprintf("- writer %d line %d", w, i), day); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	got, _ := os.ReadFile(filepath.Join(root, "project", ".magicfrog", "memory", "journal", "2026-11-30.md"))
	doc := frontmatter.Parse(got)
	if !doc.Has() || len(doc.Errors) > 0 {
		t.Fatalf("the daily does not parse:\n%s", got)
	}
	for w := 0; w < writers; w++ {
		last := -1
		for i := 0; i < each; i++ {
			line := fmt.Sprintf("- writer %d line %d\n", w, i)
			if n := strings.Count(string(got), line); n != 1 {
				t.Errorf("%q appears %d times", line, n)
			}
			at := strings.Index(string(got), line)
			if at < last {
				t.Errorf("writer %d's lines are out of order", w)
			}
			last = at
		}
	}
	if rev, _ := doc.Int("revision"); rev != writers*each {
		t.Errorf("revision %d, want %d (one per append)", rev, writers*each)
	}
}

func TestSearch(t *testing.T) {
	p := larry(t, demo(t))
	r, err := p.Search("decision", 5)
	if err != nil {
		t.Fatal(err)
	}
	if r.Total == 0 || r.Hits[0].Key != "notes/style.md" || r.Hits[0].Dimension != "agent/larry" || !strings.Contains(strings.ToLower(r.Hits[0].Snippet), "decision") {
		t.Fatalf("decision: %+v", r)
	}
	// Moe's notes are not in larry's scope.
	r, _ = p.Search("invoice billing", 10)
	for _, h := range r.Hits {
		if strings.HasPrefix(h.Dimension, "agent/moe") {
			t.Fatalf("search found moe's note: %+v", h)
		}
	}
	// The shadowed shared style note is found, and marked.
	r, _ = p.Search(`"keep answers short"`, 10)
	if r.Total != 1 || r.Hits[0].Effective || r.Hits[0].Dimension != "agent" {
		t.Fatalf("phrase: %+v", r)
	}
	// A note written since is found at once.
	if _, err := p.Write(participant.WriteInput{Place: "user", Key: "notes/zebra.md", Body: "Zebras are quokka-adjacent.\n"}); err != nil {
		t.Fatal(err)
	}
	if r, _ = p.Search("quokka", 10); r.Total != 1 || r.Hits[0].Key != "notes/zebra.md" {
		t.Fatalf("fresh note: %+v", r)
	}
	refused(t, "empty query", func() error { _, err := p.Search("  ", 0); return err }(), "no words")
	refused(t, "negative limit", func() error { _, err := p.Search("a", -1); return err }(), "limit -1")
}

func TestView(t *testing.T) {
	p := larry(t, demo(t))
	v := p.View()
	if v.Agent != "larry" || v.Task != "T-7" || len(v.Device) == 0 {
		t.Fatalf("view: %+v", v)
	}
	for _, k := range v.Keys {
		if k.Winner.Dimension == "agent/moe" {
			t.Fatalf("moe's note in larry's view: %+v", k)
		}
		if k.Key == "notes/progress.md" && (k.Winner.Dimension != "task/T-7" || len(k.Shadowed) != 1 || k.Shadowed[0].Dimension != "task") {
			t.Fatalf("progress: %+v", k)
		}
	}
	c, err := p.Context(0, "")
	if err != nil || !strings.HasPrefix(c.Block, `<memory generation="`+c.Generation+`"`) {
		t.Fatalf("context: %+v %v", c, err)
	}
	if c2, _ := p.Context(0, "00000000"); c2.Replaces != "00000000" || c2.Generation != c.Generation {
		t.Fatalf("previous: %+v", c2)
	}
	if _, err := p.Context(-1, ""); err == nil {
		t.Fatal("a negative budget was accepted")
	}
}

// TestNotANoteIsTheEngines: the participant has no check of its own left;
// a write's body and an append's text are refused by the engine's one check,
// as an engine.NotANoteError coded not-a-note that names the rule (issue 20).
func TestNotANoteIsTheEngines(t *testing.T) {
	p := larry(t, demo(t))
	day, _ := journal.ParseDay("2026-11-30")
	for _, c := range []struct {
		what string
		err  func() error
		rule engine.NoteRule
	}{
		{"write NUL", func() error {
			_, err := p.Write(participant.WriteInput{Place: "user", Key: "nul.md", Body: "a\x00b"})
			return err
		}, engine.RuleNULByte},
		{"write own frontmatter", func() error {
			_, err := p.Write(participant.WriteInput{Place: "user", Key: "fm.md", Body: "---\nrevision: 99\n---\n"})
			return err
		}, engine.RuleFrontmatterInBody},
		{"write Latin-1", func() error {
			_, err := p.Write(participant.WriteInput{Place: "user", Key: "l1.md", Body: "caf\xe9"})
			return err
		}, engine.RuleNotUTF8},
		{"append NUL", func() error {
			_, err := p.Append("task", "a\x00b", day)
			return err
		}, engine.RuleNULByte},
	} {
		err := c.err()
		e, ok := engine.AsNotANote(err)
		if !ok || e.Rule != c.rule || errcode.Of(err) != errcode.NotANote || !participant.IsRefusal(err) {
			t.Errorf("%s: %v; want the engine's NotANoteError %s", c.what, err, c.rule)
		}
	}
}

// TestSearchScratchIsEmptyAfterEverySearch: a search gives its scratch back
// holding no note over its whole capacity (giveBack clears only what the
// search used), whether the search before it had more candidates than it,
// fewer, or none: a common word over many notes, then a rarer word, a
// phrase, a miss, and the common word again.
func TestSearchScratchIsEmptyAfterEverySearch(t *testing.T) {
	root := demo(t)
	user := filepath.Join(root, "data", "memory", "user", "many")
	for i := range 300 {
		// Notes alike (every score rounds to the same: ties) and unlike
		// (bounds over the floor that their scores do not reach: the rest).
		body := "common words in every note\n"
		if i%7 == 0 {
			body += "a rarer word here\n"
		}
		if i%2 == 0 {
			body += strings.Repeat("common filler ", i%5) + strings.Repeat("more words of a longer line ", i%11) + "rarer\n"
		}
		if err := os.MkdirAll(user, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(user, fmt.Sprintf("n%03d.md", i)), []byte("---\nrevision: 1\n---\n"+body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := larry(t, root)
	for _, q := range []string{"common", "rarer", `"rarer word"`, "nothing-matches-this", "common rarer", "common"} {
		if _, err := p.Search(q, 3); err != nil {
			t.Fatal(err)
		}
		if held := participant.ScratchHolds(p); held != "" {
			t.Fatalf("after %q the search scratch still holds %s", q, held)
		}
	}
}
