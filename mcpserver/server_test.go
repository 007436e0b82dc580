package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/errcode"
	"github.com/magicfrog/mf-lsp/engine/participant"
	"github.com/magicfrog/mf-lsp/mcpserver"
)

type fixture struct {
	root    string
	srv     *mcpserver.Server
	session *mcp.ClientSession
	updates chan string
}

// start serves the demo tree (agent larry, task T-7) to an SDK client over
// transport, or in memory when connect is nil.
func start(t *testing.T, connect func(*mcpserver.Server) mcp.Transport) *fixture {
	t.Helper()
	return startTree(t, connect, nil)
}

// startTree is start with plant called on the copied tree before it loads.
func startTree(t *testing.T, connect func(*mcpserver.Server) mcp.Transport, plant func(root string)) *fixture {
	t.Helper()
	root, srv := newPlantedServer(t, plant)
	f := &fixture{root: root, srv: srv, updates: make(chan string, 100)}
	stop, err := f.srv.Watch()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var ct mcp.Transport
	if connect == nil {
		st, c := mcp.NewInMemoryTransports()
		go func() { _ = f.srv.Run(ctx, st) }()
		ct = c
	} else {
		ct = connect(f.srv)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { f.updates <- r.Params.URI },
	})
	f.session, err = client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.session.Close() })
	return f
}

// newServer is the server of the demo tree's default participant (agent
// larry, task T-7), in a copy of the tree at root.
func newServer(t *testing.T) (root string, srv *mcpserver.Server) {
	t.Helper()
	return newPlantedServer(t, nil)
}

// newPlantedServer is newServer with plant called on the copied tree before it loads.
func newPlantedServer(t *testing.T, plant func(root string)) (root string, srv *mcpserver.Server) {
	t.Helper()
	root = t.TempDir()
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "testdata", "demo"))); err != nil {
		t.Fatal(err)
	}
	if plant != nil {
		plant(root)
	}
	m, err := engine.Open(engine.Options{DataDir: filepath.Join(root, "data"), ProjectDir: filepath.Join(root, "project")})
	if err != nil {
		t.Fatal(err)
	}
	p, err := participant.New(m, participant.Options{Scope: m.DefaultScope()})
	if err != nil {
		t.Fatal(err)
	}
	return root, mcpserver.New(p, mcpserver.Options{Logf: t.Logf})
}

// call calls a tool and returns its result; a protocol error fails the test.
func (f *fixture) call(t *testing.T, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := f.session.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	return res
}

func text(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func structured(t *testing.T, r *mcp.CallToolResult, v any) {
	t.Helper()
	if r.IsError {
		t.Fatalf("tool error: %s", text(r))
	}
	data, _ := json.Marshal(r.StructuredContent)
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatal(err)
	}
}

func TestTools(t *testing.T) {
	f := start(t, nil)
	tools, err := f.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.Description == "" {
			t.Errorf("%s has no description", tl.Name)
		}
	}
	if got := strings.Join(names, " "); got != strings.Join(mcpserver.ToolNames, " ") {
		t.Fatalf("tools: %s", got)
	}

	var c participant.Context
	structured(t, f.call(t, "memory_context", map[string]any{}), &c)
	if !strings.Contains(c.Block, `<task id="T-7">`) || c.Generation == "" {
		t.Fatalf("context: %+v", c)
	}
	var r participant.ReadResult
	structured(t, f.call(t, "memory_read", map[string]any{"dimension": "task/T-7", "key": "notes/progress.md"}), &r)
	if r.Revision != 3 || !r.Effective {
		t.Fatalf("read: %+v", r)
	}
	path := filepath.Join(f.root, "project", ".magicfrog", "memory", "T-7", "notes", "progress.md")
	before, _ := os.ReadFile(path)
	res := f.call(t, "memory_write", map[string]any{"dimension": "task/T-7", "key": "notes/progress.md", "body": "mine", "expected_revision": 2})
	if !res.IsError || !strings.Contains(text(res), `"current_revision":3`) || !strings.Contains(text(res), `"current_body":"T-7: the export command is done`) {
		t.Fatalf("stale write: %+v %s", res, text(res))
	}
	// The error's code and the current version, as data: the same
	// errcode.Data the language server sends.
	var sd errcode.Data
	if raw, err := json.Marshal(res.StructuredContent); err != nil || json.Unmarshal(raw, &sd) != nil {
		t.Fatalf("stale write: structured content %v", res.StructuredContent)
	}
	if sd.Code != errcode.Stale || sd.Revision == nil || *sd.Revision != 3 || sd.Hash != r.Hash {
		t.Fatalf("stale write: structured content %+v, want code stale at revision 3, hash %s", sd, r.Hash)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatal("a stale write changed the note")
	}
	var w participant.WriteResult
	structured(t, f.call(t, "memory_write", map[string]any{"dimension": "task/T-7", "key": "notes/progress.md", "body": "mine\n", "expected_revision": 3, "expected_hash": r.Hash}), &w)
	if w.Revision != 4 {
		t.Fatalf("write: %+v", w)
	}
	var a participant.AppendResult
	structured(t, f.call(t, "memory_append", map[string]any{"text": "- wrote progress"}), &a)
	if a.Dimension != "task" || !strings.HasPrefix(a.Key, "journal/") {
		t.Fatalf("append: %+v", a)
	}
	var s participant.SearchResult
	structured(t, f.call(t, "memory_search", map[string]any{"query": "wrote progress"}), &s)
	if s.Total == 0 || s.Hits[0].Key != a.Key {
		t.Fatalf("search: %+v", s)
	}
	// The hit's lines read back its passage.
	var part participant.ReadResult
	structured(t, f.call(t, "memory_read", map[string]any{"dimension": s.Hits[0].Dimension, "key": s.Hits[0].Key, "start_line": s.Hits[0].StartLine, "end_line": s.Hits[0].EndLine}), &part)
	if strings.TrimRight(part.Body, "\n") != s.Hits[0].Snippet || part.StartLine != s.Hits[0].StartLine || !strings.Contains(part.Body, "wrote progress") {
		t.Fatalf("read lines %d-%d: %+v, hit %+v", s.Hits[0].StartLine, s.Hits[0].EndLine, part, s.Hits[0])
	}
	var v participant.View
	structured(t, f.call(t, "memory_view", map[string]any{}), &v)
	if v.Agent != "larry" || len(v.Keys) == 0 {
		t.Fatalf("view: %+v", v)
	}
}

// TestBadInput: every refusal is a tool error that says what was wrong, and
// the server keeps serving.
func TestBadInput(t *testing.T) {
	f := start(t, nil)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"memory_read", map[string]any{"dimension": "agent/moe", "key": "notes/focus.md"}, "outside this participant's scope"},
		{"memory_read", map[string]any{"dimension": 3, "key": "x.md"}, "dimension"},
		{"memory_read", map[string]any{"key": "x.md"}, "dimension"},
		{"memory_read", map[string]any{"dimension": "user", "key": "x.md", "extra": true}, "extra"},
		{"memory_write", map[string]any{"dimension": "user", "key": "../x.md", "body": "x", "expected_revision": 0}, `".." is not allowed`},
		{"memory_write", map[string]any{"dimension": "user", "key": "/abs.md", "body": "x", "expected_revision": 0}, "relative path"},
		{"memory_write", map[string]any{"dimension": "user", "key": "a\x00.md", "body": "x", "expected_revision": 0}, "relative path"},
		{"memory_write", map[string]any{"dimension": "user", "key": "a.md", "body": "x", "expected_revision": "1"}, "expected_revision"},
		{"memory_write", map[string]any{"dimension": "user", "key": "a.md", "body": "x"}, "expected_revision"},
		{"memory_write", map[string]any{"dimension": "agent/moe", "key": "a.md", "body": "x", "expected_revision": 0}, "outside this participant's scope"},
		{"memory_append", map[string]any{"text": ""}, "empty"},
		{"memory_append", map[string]any{"text": "x", "dimension": "task/T-9"}, "outside this participant's scope"},
		{"memory_search", map[string]any{"query": ""}, "no words"},
		{"memory_search", map[string]any{"query": "x", "limit": 1.5}, "limit"},
		{"memory_context", map[string]any{"budget": -4}, "budget"},
		{"memory_context", map[string]any{"budget": "lots"}, "budget"},
		{"memory_append", map[string]any{"text": 5}, "text"},
		{"memory_view", map[string]any{"dimension": "agent/moe"}, "dimension"},
	} {
		res := f.call(t, c.tool, c.args)
		if !res.IsError || !strings.Contains(text(res), c.want) {
			t.Errorf("%s %v: %v %q (want a tool error saying %q)", c.tool, c.args, res.IsError, text(res), c.want)
		}
	}
	// The participant's refusals carry their code as structured content.
	for _, c := range []struct {
		tool string
		args map[string]any
		code errcode.Code
	}{
		{"memory_read", map[string]any{"dimension": "agent/moe", "key": "notes/focus.md"}, errcode.Forbidden},
		{"memory_write", map[string]any{"dimension": "agent/moe", "key": "a.md", "body": "x", "expected_revision": 0}, errcode.Forbidden},
		{"memory_write", map[string]any{"dimension": "agent/curly", "key": "a.md", "body": "x", "expected_revision": 0}, errcode.Forbidden},
		{"memory_read", map[string]any{"dimension": "user", "key": "nope.md"}, errcode.NotFound},
		{"memory_search", map[string]any{"query": ""}, errcode.InvalidArgument},
		{"memory_write", map[string]any{"dimension": "user", "key": "../x.md", "body": "x", "expected_revision": 0}, errcode.InvalidArgument},
	} {
		res := f.call(t, c.tool, c.args)
		var d errcode.Data
		raw, _ := json.Marshal(res.StructuredContent)
		if !res.IsError || json.Unmarshal(raw, &d) != nil || d.Code != c.code {
			t.Errorf("%s %v: structured content %s, want code %s (%s)", c.tool, c.args, raw, c.code, text(res))
		}
	}
	// An unknown tool is a protocol error (the MCP specification's rule) that
	// names it; the server goes on.
	_, err := f.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "memory_delete", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), `unknown tool "memory_delete"; the tools are memory_append,`) {
		t.Errorf("unknown tool: %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.root, "data", "memory", "user", "a.md")); err == nil {
		t.Error("a refused write made a note")
	}
	f.call(t, "memory_view", map[string]any{})
}

// TestHugeBody sends a body over the note size limit through the stdio
// framing: refused as a tool error, nothing written, the session goes on.
// test/mcp sends 50 MB to the real binary, past the SDK's default 16 MiB
// message limit that MaxMessage raises (here it would cost a minute under
// the race detector).
func TestHugeBody(t *testing.T) {
	f := start(t, func(s *mcpserver.Server) mcp.Transport {
		sr, cw := io.Pipe()
		cr, sw := io.Pipe()
		go func() { _ = s.Run(context.Background(), mcpserver.Stdio(sr, sw)) }()
		return &mcp.IOTransport{Reader: cr, Writer: cw, MaxLineLength: -1}
	})
	res := f.call(t, "memory_write", map[string]any{"dimension": "user", "key": "huge.md", "body": strings.Repeat("x", 5<<20), "expected_revision": 0})
	if !res.IsError || !strings.Contains(text(res), "not a note (too-large): the body is 5242880 bytes, more than a note may be (4194304 bytes") {
		t.Fatalf("5 MB body: %q", text(res))
	}
	if _, err := os.Stat(filepath.Join(f.root, "data", "memory", "user", "huge.md")); err == nil {
		t.Fatal("the huge body was written")
	}
	f.call(t, "memory_view", map[string]any{})
}

// TestNotANote is issue 20 through the MCP tools: the bodies that `mf-lsp
// write` used to write (a NUL byte, a frontmatter block of its own) and a
// text that is not UTF-8 are refused by the engine's one check, and the tool
// error is the engine's message, naming the rule, as the CLI prints it.
func TestNotANote(t *testing.T) {
	f := start(t, nil)
	user := filepath.Join(f.root, "data", "memory", "user")
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"memory_write", map[string]any{"dimension": "user", "key": "nul.md", "body": "a\x00b\n", "expected_revision": 0},
			filepath.Join(user, "nul.md") + ": not a note (nul-byte): the body has a NUL byte at offset 1 (binary); a note is UTF-8 text"},
		{"memory_write", map[string]any{"dimension": "user", "key": "twice.md", "body": "---\nrevision: 99\n---\nmine\n", "expected_revision": 0},
			filepath.Join(user, "twice.md") + ": not a note (frontmatter-in-body): the body opens with a frontmatter block (--- … ---) of its own; pass the note's body only: revision and updated are set by the write"},
		{"memory_append", map[string]any{"text": "a\x00b"},
			"not a note (nul-byte): the text has a NUL byte at offset 1 (binary); a note is UTF-8 text"},
	} {
		res := f.call(t, c.tool, c.args)
		if !res.IsError || text(res) != c.want {
			t.Errorf("%s %v: error %v %q\nwant %q", c.tool, c.args, res.IsError, text(res), c.want)
		}
	}
	for _, name := range []string{"nul.md", "twice.md"} {
		if _, err := os.Stat(filepath.Join(user, name)); err == nil {
			t.Errorf("%s was written", name)
		}
	}
}

func TestResources(t *testing.T) {
	f := start(t, nil)
	ctx := context.Background()
	list, err := f.session.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	uris := map[string]bool{}
	for _, r := range list.Resources {
		uris[r.URI] = true
	}
	for _, want := range []string{"memory://context", "memory://agent/larry/notes/style.md", "memory://agent/notes/style.md", "memory://task/T-7/notes/progress.md", "memory://device/tools.md"} {
		if !uris[want] {
			t.Errorf("no resource %s", want)
		}
	}
	if uris["memory://agent/moe/notes/focus.md"] {
		t.Error("moe's note is a resource of larry's server")
	}
	rr, err := f.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "memory://agent/larry/notes/style.md"})
	if err != nil || !strings.Contains(rr.Contents[0].Text, "revision: 5") {
		t.Fatalf("read resource: %v %+v", err, rr)
	}
	if _, err := f.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "memory://agent/moe/notes/focus.md"}); err == nil {
		t.Error("read moe's note as a resource")
	}
	// (A subscription outside the scope is refused too, but this SDK client
	// subscribes through subscriptions/listen, whose refusal it does not
	// surface; test/mcp checks it with the TypeScript client.)
	for _, uri := range []string{"memory://agent/larry/notes/style.md", "memory://context"} {
		if err := f.session.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
	}
	// Another writer (an editor, another process) changes the note on disk.
	// This SDK's Subscribe returns before the server has taken the
	// subscription (subscriptions/listen is sent and not awaited), so a
	// change made at once may be told to nobody: the writer writes again,
	// a revision higher, until both subscriptions have heard of a change.
	path := filepath.Join(f.root, "data", "memory", "agent", "larry", "notes", "style.md")
	got := map[string]bool{}
	timeout := time.After(10 * time.Second)
	for revision := 6; !got["memory://agent/larry/notes/style.md"] || !got["memory://context"]; revision++ {
		note := fmt.Sprintf("---\nrevision: %d\nupdated: 2026-11-30T10:00:00.000Z\n---\nLarry: changed outside.\n", revision)
		if err := os.WriteFile(path, []byte(note), 0o644); err != nil {
			t.Fatal(err)
		}
		again := time.After(time.Second)
	wait:
		for !got["memory://agent/larry/notes/style.md"] || !got["memory://context"] {
			select {
			case uri := <-f.updates:
				got[uri] = true
			case <-again:
				break wait
			case <-timeout:
				t.Fatalf("notifications: %v", got)
			}
		}
	}
	var c participant.Context
	structured(t, f.call(t, "memory_context", map[string]any{}), &c)
	if !strings.Contains(c.Block, "changed outside") {
		t.Fatal("the block does not show the change")
	}
	// A new note becomes a resource.
	if err := os.WriteFile(filepath.Join(f.root, "data", "memory", "user", "fresh.md"), []byte("---\nrevision: 1\n---\nfresh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		list, err := f.session.ListResources(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, r := range list.Resources {
			found = found || r.URI == "memory://user/fresh.md"
		}
		if found {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a new note did not become a resource")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
