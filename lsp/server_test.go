package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/lsp/internal/jsonrpc"
	"github.com/magicfrog/mf-lsp/lsp/lsptest"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// syncBuffer is a log sink tests can read while the server writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startInProcess serves s over net.Pipe and returns an initialized client. setup may
// install test handlers before serving.
func startInProcess(t testing.TB, opts Options, setup func(s *Server)) (*Server, *lsptest.Client) {
	t.Helper()
	s := NewServer(opts)
	if setup != nil {
		setup(s)
	}
	srv, cli := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.Serve(context.Background(), srv) }()
	c := lsptest.New(t, cli)
	t.Cleanup(func() {
		cli.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("server did not stop after the connection closed")
		}
	})
	c.Initialize("file:///tmp/project", nil)
	return s, c
}

func TestPanicInHandlerIsRecovered(t *testing.T) {
	logs := &syncBuffer{}
	_, c := startInProcess(t, Options{Log: logs}, func(s *Server) {
		s.handler.TextDocumentDocumentSymbol = func(*glsp.Context, *protocol.DocumentSymbolParams) (any, error) {
			var m map[string]int
			m["boom"]++ // nil map write: a real bug, not a test-only panic() call
			return nil, nil
		}
	})
	err := c.Call("textDocument/documentSymbol", map[string]any{
		"textDocument": map[string]any{"uri": "file:///x.md"},
	}, nil)
	var rpcErr *jsonrpc.Error
	if !errorsAs(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInternalError || !strings.Contains(rpcErr.Message, "textDocument/documentSymbol") {
		t.Fatalf("panicking documentSymbol: %v; want InternalError naming the method", err)
	}
	if _, err := c.WaitNotification("window/logMessage", func(p json.RawMessage) bool {
		return strings.Contains(string(p), "assignment to entry in nil map")
	}); err != nil {
		t.Error(err)
	}
	if !strings.Contains(logs.String(), "server_test.go") {
		t.Errorf("stack trace not logged to stderr:\n%s", logs.String())
	}
	if err := c.Call("workspace/symbol", map[string]any{"query": ""}, nil); err != nil {
		t.Fatalf("server dead after panic: %v", err)
	}
}

// Options.MaxMessageBytes reaches the connection (the framing itself, absurd lengths
// included, is tested in lsp/internal/jsonrpc).
func TestOversizedMessageIsDrained(t *testing.T) {
	_, c := startInProcess(t, Options{MaxMessageBytes: 1 << 10, Log: &syncBuffer{}}, nil)
	big := `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"text":"` + strings.Repeat("x", 4<<10) + `"}}`
	if err := c.SendRaw(lsptest.Frame(big)); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitFor("null-id error", func(r lsptest.Recorded) bool { return len(r.NullIDErrors) > 0 }); err != nil {
		t.Fatal(err)
	}
	if e := c.NullIDErrors()[0]; e.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(e.Message, "exceeds the limit") {
		t.Errorf("reply = %+v", e)
	}
	if err := c.Call("workspace/symbol", map[string]any{"query": ""}, nil); err != nil {
		t.Fatalf("server does not answer after an oversized message: %v", err)
	}
}

func TestAsyncRequestCanBeCancelled(t *testing.T) {
	started := make(chan struct{})
	_, c := startInProcess(t, Options{Log: &syncBuffer{}}, func(s *Server) {
		s.extra["test/slow"] = func(*glsp.Context) (any, error) {
			return Async(func(ctx context.Context) (any, error) {
				close(started)
				<-ctx.Done()
				return nil, ctx.Err()
			}), nil
		}
	})
	if err := c.SendRaw(lsptest.Frame(`{"jsonrpc":"2.0","id":"slow1","method":"test/slow","params":{}}`)); err != nil {
		t.Fatal(err)
	}
	<-started
	// The loop is free while the request runs.
	if err := c.Call("workspace/symbol", map[string]any{"query": ""}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Notify("$/cancelRequest", map[string]any{"id": "slow1"}); err != nil {
		t.Fatal(err)
	}
	r, err := c.WaitRawReply("slow1")
	if err != nil {
		t.Fatal(err)
	}
	if r.Error == nil || r.Error.Code != CodeRequestCancelled {
		t.Errorf("cancelled request answered %+v; want RequestCancelled", r)
	}
}

func TestShowMessageRequestRunsBesideTheLoop(t *testing.T) {
	choice := make(chan string, 1)
	_, c := startInProcess(t, Options{Log: &syncBuffer{}}, func(s *Server) {
		s.extra["test/ask"] = func(*glsp.Context) (any, error) {
			// Called on the read loop: must not deadlock.
			s.ShowMessageRequest(protocol.MessageTypeWarning, "disk moved", []string{"Take disk version", "Keep mine as next revision"},
				func(picked string, err error) {
					if err != nil {
						picked = "error: " + err.Error()
					}
					choice <- picked
				})
			return "asked", nil
		}
	})
	c.Reply("window/showMessageRequest", func(p json.RawMessage) (any, error) {
		var params protocol.ShowMessageRequestParams
		_ = json.Unmarshal(p, &params)
		return params.Actions[1], nil
	})
	if err := c.Call("test/ask", nil, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-choice:
		if got != "Keep mine as next revision" {
			t.Errorf("choice = %q", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("showMessageRequest callback never ran")
	}
}

func TestProgress(t *testing.T) {
	_, c := startInProcess(t, Options{Log: &syncBuffer{}}, func(s *Server) {
		s.extra["test/progress"] = func(ctx *glsp.Context) (any, error) {
			p := s.BeginProgress(WorkDoneToken(ctx), "Rolling up", true)
			p.Report("week 42", 50)
			p.End("done")
			return nil, nil
		}
	})
	// Server-created token: create request, then begin/report/end in order.
	if err := c.Call("test/progress", map[string]any{}, nil); err != nil {
		t.Fatal(err)
	}
	kinds := func(notes []lsptest.Message, token string) []string {
		var out []string
		for _, m := range notes {
			if m.Method != "$/progress" {
				continue
			}
			var p struct {
				Token json.RawMessage
				Value struct{ Kind string }
			}
			_ = json.Unmarshal(m.Params, &p)
			if string(p.Token) == token {
				out = append(out, p.Value.Kind)
			}
		}
		return out
	}
	// The token is the one whose begin says "Rolling up" (the server reports its
	// own indexing too, in any order).
	var token string
	if err := c.WaitFor("progress end", func(r lsptest.Recorded) bool {
		for _, m := range r.Notifications {
			var p struct {
				Token json.RawMessage
				Value struct{ Kind, Title string }
			}
			if m.Method == "$/progress" && json.Unmarshal(m.Params, &p) == nil && p.Value.Title == "Rolling up" {
				token = string(p.Token)
			}
		}
		// The server reports its own indexing too: wait for this token's end.
		return strings.HasSuffix(strings.Join(kinds(r.Notifications, token), ","), "end")
	}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(kinds(c.Notifications(""), token), ","); got != "begin,report,end" {
		t.Errorf("progress for %s = %s; want begin,report,end", token, got)
	}
	// Client-provided token: no create request, the client's token is used.
	// (The server's own indexing creates one too: let it finish first.)
	if err := c.WaitFor("memory indexed", func(r lsptest.Recorded) bool {
		for _, m := range r.Notifications {
			if p := string(m.Params); m.Method == "$/progress" && strings.Contains(p, `"kind":"end"`) && !strings.Contains(p, token) {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatal(err)
	}
	before := len(c.Requests("window/workDoneProgress/create"))
	if err := c.Call("test/progress", map[string]any{"workDoneToken": 77}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitFor("progress 77", func(r lsptest.Recorded) bool { return len(kinds(r.Notifications, "77")) == 3 }); err != nil {
		t.Fatal(err)
	}
	if n := len(c.Requests("window/workDoneProgress/create")); n != before {
		t.Errorf("created a token although the client gave one")
	}
}

func TestPublishDiagnosticsNeverNull(t *testing.T) {
	_, c := startInProcess(t, Options{Log: &syncBuffer{}}, func(s *Server) {
		s.extra["test/publish"] = func(*glsp.Context) (any, error) {
			v := int32(3)
			s.PublishDiagnostics("file:///x.md", &v, nil)
			return nil, nil
		}
	})
	if err := c.Call("test/publish", nil, nil); err != nil {
		t.Fatal(err)
	}
	d, err := c.WaitDiagnostics("file:///x.md", nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(d.RawDiags) != "[]" || d.Version == nil || *d.Version != 3 {
		t.Errorf("published diagnostics %s version %v; want [] and 3", d.RawDiags, d.Version)
	}
}

func TestSettingsReachTheServer(t *testing.T) {
	s := NewServer(Options{Log: &syncBuffer{}})
	srv, cli := net.Pipe()
	go s.Serve(context.Background(), srv)
	c := lsptest.New(t, cli)
	defer cli.Close()
	c.Initialize("file:///tmp/my%20project", map[string]any{"task": "T-7", "agents": []string{"larry", "larry", "moe"}, "budget": 4000, "autoRevision": false})
	got := s.Settings()
	if got.Task != "T-7" || strings.Join(got.Agents, ",") != "larry,moe" || got.Budget != 4000 || got.AutoRevision || got.ProjectDir != "/tmp/my project" {
		t.Errorf("settings = %+v", got)
	}
}

func errorsAs(err error, target **jsonrpc.Error) bool {
	e, ok := err.(*jsonrpc.Error)
	if ok {
		*target = e
	}
	return ok
}
