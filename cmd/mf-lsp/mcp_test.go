package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpSession runs `mf-lsp mcp ARGS` in this process on a copy of the demo
// tree at dir and connects an SDK client to it over stdio. Its stderr is
// returned once the session has ended (after the test).
type mcpSession struct {
	*mcp.ClientSession
	stderr *bytes.Buffer
	done   chan int
	once   sync.Once
}

func startMCP(t *testing.T, dir string, args ...string) *mcpSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &mcpSession{stderr: &bytes.Buffer{}, done: make(chan int, 1)}
	full := append([]string{"mcp", "--data-dir", filepath.Join(dir, "data"), "--project", filepath.Join(dir, "project")}, args...)
	go func() {
		code := run(full, inR, outW, s.stderr)
		outW.Close()
		s.done <- code
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	var err error
	s.ClientSession, err = client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.end(t) })
	return s
}

// end closes the session and waits for the server to exit.
func (s *mcpSession) end(t *testing.T) {
	s.once.Do(func() {
		s.Close()
		select {
		case <-s.done:
		case <-time.After(30 * time.Second):
			t.Error("mf-lsp mcp did not exit when its stdin closed")
		}
	})
}

func (s *mcpSession) call(t *testing.T, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func textOf(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func demoCopy(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := copyTree(filepath.Join("..", "..", "testdata", "demo"), dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func renderBlock(t *testing.T, dir string, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	full := append([]string{"render", "--data-dir", filepath.Join(dir, "data"), "--project", filepath.Join(dir, "project")}, args...)
	if code := run(full, nil, &out, &errb); code != 0 {
		t.Fatalf("render: exit %d: %s", code, errb.String())
	}
	return out.String()
}

// Issue 23: memory_context's text content is the <memory> block itself, as
// `mf-lsp render` prints it for the same scope, byte for byte (it was the
// result's JSON, every newline and < escaped); the JSON is the structured
// content, and tools/list gives every tool an output schema. Without a
// budget the block is rendered with the default budget.
func TestMCPContextIsRenderBlock(t *testing.T) {
	dir := demoCopy(t)
	s := startMCP(t, dir)
	tools, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.OutputSchema == nil {
			t.Errorf("%s has no output schema", tl.Name)
		}
	}
	for _, budget := range []int{0, 50, 100000} {
		args := map[string]any{}
		want := renderBlock(t, dir, "--budget", "8000")
		if budget != 0 {
			args["budget"] = budget
			want = renderBlock(t, dir, "--budget", strconvI(budget))
		}
		res := s.call(t, "memory_context", args)
		if res.IsError {
			t.Fatalf("memory_context: %s", textOf(res))
		}
		if len(res.Content) != 1 || textOf(res) != want {
			t.Errorf("budget %d: the text content is not render's block:\n%s\nwant:\n%s", budget, textOf(res), want)
		}
		var c struct {
			Block   string `json:"block"`
			Budget  int    `json:"budget"`
			Omitted int    `json:"omitted"`
		}
		data, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(data, &c); err != nil || c.Block != want {
			t.Errorf("budget %d: structured content %s: %v", budget, data, err)
		}
		if budget == 0 && c.Budget != 8000 {
			t.Errorf("no budget: rendered with %d, want the default 8000", c.Budget)
		}
		if budget == 50 && (c.Omitted == 0 || !strings.Contains(want, "<omitted")) {
			t.Errorf("budget 50: nothing omitted: %s", data)
		}
	}

	// The other tools' text is what the model reads, not JSON.
	read := s.call(t, "memory_read", map[string]any{"dimension": "task/T-7", "key": "notes/progress.md"})
	if txt := textOf(read); !strings.HasPrefix(txt, "task/T-7 notes/progress.md (revision 3, hash ") || !strings.Contains(txt, "\n\nT-7: the export command is done") {
		t.Errorf("memory_read's text:\n%s", txt)
	}
	for name, args := range map[string]map[string]any{"memory_view": {}, "memory_search": {"query": "export"}} {
		res := s.call(t, name, args)
		if txt := textOf(res); res.IsError || strings.HasPrefix(txt, "{") || !strings.Contains(txt, "task/T-7") || res.StructuredContent == nil {
			t.Errorf("%s's text is not a listing:\n%s", name, txt)
		}
	}
}

func strconvI(n int) string { b, _ := json.Marshal(n); return string(b) }

// Issue 23: an agent that is not registered is told so in the tool result
// (it was only a line on stderr, which an agent host does not show): the
// text of memory_context starts with it, and a write or read of its own
// notes is refused with the code unregistered.
func TestMCPUnregisteredAgent(t *testing.T) {
	dir := demoCopy(t)
	s := startMCP(t, dir, "--agent", "curly")
	res := s.call(t, "memory_context", map[string]any{})
	first, rest, _ := strings.Cut(textOf(res), "\n")
	if res.IsError || !strings.Contains(first, `agent "curly" is not registered`) || !strings.Contains(first, "mf-lsp init --agent curly") || !strings.HasPrefix(rest, "<memory") {
		t.Errorf("memory_context for an unregistered agent:\n%s", textOf(res))
	}
	for name, args := range map[string]map[string]any{
		"memory_write":  {"dimension": "agent/curly", "key": "notes/a.md", "body": "x\n", "expected_revision": 0},
		"memory_read":   {"dimension": "agent/curly", "key": "notes/a.md"},
		"memory_append": {"dimension": "agent/curly", "text": "did things"},
	} {
		res := s.call(t, name, args)
		data, _ := json.Marshal(res.StructuredContent)
		if !res.IsError || !strings.Contains(string(data), `"code":"unregistered"`) || !strings.Contains(textOf(res), "mf-lsp init --agent curly") {
			t.Errorf("%s for an unregistered agent: %s %s", name, textOf(res), data)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "memory", "agent", "curly")); err == nil {
		t.Error("a refused write made the unregistered agent's folder")
	}
}

// Issue 27: `mf-lsp mcp` loads only its participant's scope, as render
// does: another registered agent's folder is not read (a FIFO and a file
// with a bad name planted there neither block the start nor show up as
// warnings), while the server still writes, revision-checked, in its own.
func TestMCPLoadsItsScopeOnly(t *testing.T) {
	dir := demoCopy(t)
	moe := filepath.Join(dir, "data", "memory", "agent", "moe")
	if err := os.WriteFile(filepath.Join(moe, "bad\nname.md"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(filepath.Join(moe, "pipe.md")); err != nil {
		t.Log("no named pipes here:", err)
	}
	s := startMCP(t, dir)
	view := s.call(t, "memory_view", map[string]any{})
	if txt := textOf(view); view.IsError || strings.Contains(txt, "agent/moe") {
		t.Errorf("view: %s", txt)
	}
	read := s.call(t, "memory_read", map[string]any{"dimension": "agent/larry", "key": "notes/style.md"})
	var r struct {
		Revision int    `json:"revision"`
		Hash     string `json:"hash"`
	}
	data, _ := json.Marshal(read.StructuredContent)
	if err := json.Unmarshal(data, &r); err != nil || read.IsError {
		t.Fatalf("read: %s", textOf(read))
	}
	w := s.call(t, "memory_write", map[string]any{"dimension": "agent/larry", "key": "notes/style.md", "body": "Short.\n", "expected_revision": r.Revision, "expected_hash": r.Hash})
	if w.IsError || !strings.HasPrefix(textOf(w), "wrote agent/larry notes/style.md (revision ") {
		t.Errorf("write in its own scope: %s", textOf(w))
	}
	stale := s.call(t, "memory_write", map[string]any{"dimension": "agent/larry", "key": "notes/style.md", "body": "Again.\n", "expected_revision": r.Revision})
	if !stale.IsError || !strings.Contains(textOf(stale), "stale") {
		t.Errorf("a stale write landed: %s", textOf(stale))
	}
	other := s.call(t, "memory_write", map[string]any{"dimension": "agent/moe", "key": "notes/x.md", "body": "x\n", "expected_revision": 0})
	if !other.IsError {
		t.Errorf("a write to another agent's notes landed: %s", textOf(other))
	}
	if ap := s.call(t, "memory_append", map[string]any{"text": "logged"}); ap.IsError {
		t.Errorf("append: %s", textOf(ap))
	}
	s.end(t)
	if e := s.stderr.String(); strings.Contains(e, "moe") {
		t.Errorf("the server read another agent's folder:\n%s", e)
	}
}
