package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/errcode"
	"github.com/magicfrog/mf-lsp/engine/participant"
	"github.com/magicfrog/mf-lsp/mcpserver"
	"github.com/magicfrog/mf-lsp/session"
)

// largeNotes plants notes over engine.ResidentMax in the demo tree: a user
// note, a task note and a daily note of the task's journal, each of many
// numbered lines with words to search for.
func largeNotes(root string) map[string]string {
	notes := map[string]string{
		filepath.Join(root, "data", "memory", "user", "big.md"):                                     "user's long note",
		filepath.Join(root, "project", ".magicfrog", "memory", "T-7", "notes", "design.md"):         "the task's design",
		filepath.Join(root, "project", ".magicfrog", "memory", "journal", "2026-11-28.md"):          "a long day",
		filepath.Join(root, "project", ".magicfrog", "memory", "T-7", "notes", "small-but-near.md"): "a short one",
	}
	for path, title := range notes {
		var b strings.Builder
		fmt.Fprintf(&b, "---\nrevision: 2\nupdated: 2026-11-28T10:00:00Z\n---\n# %s\n\n", title)
		lines := 160
		if strings.HasSuffix(path, "small-but-near.md") {
			lines = 3
		}
		for i := 1; i <= lines; i++ {
			fmt.Fprintf(&b, "Line %d of %s: the deploy waits for the review of quartz %d.\n", i, title, i%17)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			panic(err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			panic(err)
		}
	}
	return notes
}

// copyDemo copies the demo tree to a new folder with the large notes.
func copyDemo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "testdata", "demo"))); err != nil {
		t.Fatal(err)
	}
	largeNotes(root)
	return root
}

// servedAsMCP is the server `mf-lsp mcp` makes: its tree loaded and watched
// by session.OpenWatched, scope only, a large note hashed only when asked.
func servedAsMCP(t *testing.T, root string) (*engine.Memory, *mcp.ClientSession) {
	t.Helper()
	var served atomic.Pointer[mcpserver.Server]
	m, w, err := session.OpenWatched(engine.Options{DataDir: filepath.Join(root, "data"), ProjectDir: filepath.Join(root, "project"), ScopeOnly: true, SumsOnDemand: true},
		func(paths []string, ch bool) {
			if s := served.Load(); s != nil {
				s.Changed(paths, ch)
			}
		}, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	p, err := participant.New(m, participant.Options{Scope: m.DefaultScope()})
	if err != nil {
		t.Fatal(err)
	}
	srv := mcpserver.New(p, mcpserver.Options{Logf: t.Logf})
	served.Store(srv)
	return m, connect(t, srv)
}

// servedResident is the same server over a tree that keeps every text.
func servedResident(t *testing.T, root string) *mcp.ClientSession {
	t.Helper()
	m, err := engine.Open(engine.Options{DataDir: filepath.Join(root, "data"), ProjectDir: filepath.Join(root, "project"), ScopeOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	p, err := participant.New(m, participant.Options{Scope: m.DefaultScope()})
	if err != nil {
		t.Fatal(err)
	}
	return connect(t, mcpserver.New(p, mcpserver.Options{Logf: t.Logf}))
}

func connect(t *testing.T, srv *mcpserver.Server) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	st, ct := mcp.NewInMemoryTransports()
	go func() { _ = srv.Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// answer is a tool call's whole answer: its text and its structured
// content, as the client receives them.
func answer(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: protocol error %v", name, args, err)
	}
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return string(data), res.IsError
}

// TestMCPBodiesOnDemandSameAnswers: `mf-lsp mcp` keeps of a large note
// only its frontmatter (its text read again when asked), and answers every
// tool byte for byte as a server that keeps every text: the block, whole
// reads and line ranges (the last line included, past the end refused), and
// searches (words, a phrase, a miss).
func TestMCPBodiesOnDemandSameAnswers(t *testing.T) {
	root := copyDemo(t)
	// The load trusts a file's stamp 2 s after its last change, and then
	// takes no hash of it: each tool that needs one takes it.
	time.Sleep(2100 * time.Millisecond)
	m, lean := servedAsMCP(t, root)
	whole := servedResident(t, root)
	big := filepath.Join(root, "data", "memory", "user", "big.md")
	if e := m.Note(big); e == nil || e.Resident() {
		t.Fatalf("mf-lsp mcp keeps %s whole: want its text read on demand", big)
	} else if _, hashed := e.SumAtHand(); hashed {
		t.Fatalf("mf-lsp mcp hashed %s at load: want it hashed when asked", big)
	}
	if e := m.Note(filepath.Join(root, "project", ".magicfrog", "memory", "T-7", "notes", "small-but-near.md")); e == nil || !e.Resident() {
		t.Fatalf("a note under %d bytes is read again", engine.ResidentMax)
	}
	calls := []struct {
		name string
		args map[string]any
	}{
		{"memory_context", map[string]any{}},
		{"memory_context", map[string]any{"budget": 200000}},
		{"memory_view", map[string]any{}},
		{"memory_read", map[string]any{"dimension": "user", "key": "big.md"}},
		{"memory_read", map[string]any{"dimension": "user", "key": "big.md", "start_line": 40, "end_line": 52}},
		{"memory_read", map[string]any{"dimension": "user", "key": "big.md", "start_line": 150}},
		{"memory_read", map[string]any{"dimension": "user", "key": "big.md", "start_line": 400}},
		{"memory_read", map[string]any{"dimension": "task/T-7", "key": "notes/design.md", "start_line": 1, "end_line": 3}},
		{"memory_read", map[string]any{"dimension": "task", "key": "journal/2026-11-28.md"}},
		{"memory_read", map[string]any{"dimension": "task/T-7", "key": "notes/small-but-near.md"}},
		{"memory_search", map[string]any{"query": "quartz review"}},
		{"memory_search", map[string]any{"query": `"review of quartz 11"`, "limit": 100}},
		{"memory_search", map[string]any{"query": "deploy", "limit": 3}},
		{"memory_search", map[string]any{"query": "zzyzzyva"}},
	}
	for _, c := range calls {
		got, gotErr := answer(t, lean, c.name, c.args)
		want, wantErr := answer(t, whole, c.name, c.args)
		if got != want || gotErr != wantErr {
			t.Errorf("%s %v answers\n%.2000s\nwhere a server keeping every text answers\n%.2000s", c.name, c.args, got, want)
		}
	}
}

// TestMCPChangedBehindItsBackIsNeverServedStale: a large note, whose text
// `mf-lsp mcp` reads on demand, is rewritten through a hard link from a
// folder nobody watches, same size and revision, so no watcher event tells
// of it and only its hash can. No tool answers from the text it had: a read
// says it changed (errcode.Stale) or answers the new text, the block and
// search never quote the old one, and the tree refreshes the note, after
// which every tool answers from the new text.
func TestMCPChangedBehindItsBackIsNeverServedStale(t *testing.T) {
	root := copyDemo(t)
	m, cs := servedAsMCP(t, root)
	big := filepath.Join(root, "data", "memory", "user", "big.md")
	if e := m.Note(big); e == nil || e.Resident() {
		t.Fatalf("mf-lsp mcp keeps %s whole: want its text read on demand", big)
	}
	alias := filepath.Join(t.TempDir(), "alias.md")
	if err := os.Link(big, alias); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	const oldWord, newWord = "Line 7 of user's long note", "Lime 7 of user's long note"
	read := map[string]any{"dimension": "user", "key": "big.md"}
	if got, isErr := answer(t, cs, "memory_read", read); isErr || !strings.Contains(got, oldWord) {
		t.Fatalf("read before the change: %.300s", got)
	}
	src, err := os.ReadFile(big)
	if err != nil {
		t.Fatal(err)
	}
	at := strings.Index(string(src), oldWord)
	f, err := os.OpenFile(alias, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(newWord), int64(at)); err != nil {
		t.Fatal(err)
	}
	f.Close()

	got, isErr := answer(t, cs, "memory_read", read)
	switch {
	case strings.Contains(got, oldWord):
		t.Fatalf("read after the change served the old text: %.300s", got)
	case isErr && !strings.Contains(got, `"code":"`+string(errcode.Stale)+`"`):
		t.Fatalf("read after the change: %.500s; want its new text or the code %s", got, errcode.Stale)
	}
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"memory_context", map[string]any{"budget": 200000}},
		{"memory_search", map[string]any{"query": `"line 7 of user's"`}},
		{"memory_read", map[string]any{"dimension": "user", "key": "big.md", "start_line": 5, "end_line": 9}},
	} {
		if got, _ := answer(t, cs, c.name, c.args); strings.Contains(got, oldWord) {
			t.Fatalf("%s after the change served the old text: %.500s", c.name, got)
		}
	}
	// The read told the watcher: the tree refreshes with no event from the disk.
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, isErr := answer(t, cs, "memory_read", read)
		if strings.Contains(got, oldWord) {
			t.Fatalf("read served the old text: %.300s", got)
		}
		if !isErr && strings.Contains(got, newWord) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tree never refreshed the changed note: read %.300s", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got, _ := answer(t, cs, "memory_context", map[string]any{"budget": 200000}); !strings.Contains(got, newWord) {
		t.Fatalf("the block after the refresh has not the new text: %.500s", got)
	}
	if got, _ := answer(t, cs, "memory_search", map[string]any{"query": `"lime 7 of user's"`}); !strings.Contains(got, newWord) {
		t.Fatalf("search after the refresh finds not the new text: %.500s", got)
	}
}
