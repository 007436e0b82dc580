// Package lsptest is an end-to-end harness for mf-lsp: a scripted LSP client that
// speaks JSON-RPC to the real binary over its stdio (StartBinary) or to an in-process
// server over any connection such as one end of net.Pipe (New). It records every
// notification and request the server sends, answers the server's requests with
// configurable replies, and can write raw bytes to test malformed input.
//
// It deliberately does not import package lsp: it sees the server only from the
// wire, as an editor does. It speaks through the server's own JSON-RPC package
// (lsp/internal/jsonrpc), the module's only JSON-RPC implementation.
package lsptest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/lsp/internal/jsonrpc"
)

// DefaultTimeout bounds every Call and Wait unless Client.Timeout says otherwise.
const DefaultTimeout = 10 * time.Second

// Build compiles ./cmd/mf-lsp of the current module into dir and returns the binary's
// path. Call it once per test binary (from TestMain, or lazily behind a sync.Once).
func Build(dir string) (string, error) {
	bin := filepath.Join(dir, "mf-lsp")
	// MF_LSP_BUILD_FLAGS adds build flags: CI sets -race, so that a data race in
	// the server fails the end-to-end tests that drive it.
	args := append([]string{"build", "-o", bin}, strings.Fields(os.Getenv("MF_LSP_BUILD_FLAGS"))...)
	cmd := exec.Command("go", append(args, "github.com/magicfrog/mf-lsp/cmd/mf-lsp")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/mf-lsp: %v\n%s", err, out)
	}
	return bin, nil
}

// Message is a notification or request the server sent.
type Message struct {
	Method string
	Params json.RawMessage
}

// Error is a JSON-RPC error reply, as Call returns it (errors.As with *Error):
// the code, the message and the machine-readable data.
type Error = jsonrpc.Error

// Reply answers a server→client request: its result, or an error (a *jsonrpc.Error
// is sent as is, any other as InternalError with its message).
type Reply func(params json.RawMessage) (any, error)

// Client is one LSP session from the client's side.
type Client struct {
	// Timeout bounds each Call and Wait; DefaultTimeout if zero.
	Timeout time.Duration

	t    testing.TB
	conn *jsonrpc.Conn

	proc   *exec.Cmd // nil for in-process servers
	stderr *lockedBuffer
	exited chan struct{}
	exit   error

	mu         sync.Mutex
	notes      []Message
	requests   []Message
	nullErrors []jsonrpc.Error
	rawReplies []RawReply
	replies    map[string]Reply
	changed    chan struct{} // closed and replaced whenever something arrives
}

// StartBinary starts the server binary with args and connects to its stdio. The
// process is killed at test cleanup if it is still running.
func StartBinary(t testing.TB, bin string, args ...string) *Client {
	t.Helper()
	cmd := exec.Command(bin, args...)
	// The binary keeps token counts in the user's cache folder: a test's go to
	// a folder of its own, so tests neither share nor leave one behind.
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	c := newClient(t, pipeRWC{stdout, stdin})
	c.proc, c.stderr = cmd, stderr
	go func() {
		c.exit = cmd.Wait()
		close(c.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-c.exited:
		default:
			_ = cmd.Process.Kill()
			<-c.exited
		}
	})
	return c
}

// New connects to a server on the other end of rwc (for in-process servers).
func New(t testing.TB, rwc io.ReadWriteCloser) *Client {
	return newClient(t, rwc)
}

func newClient(t testing.TB, rwc io.ReadWriteCloser) *Client {
	c := &Client{
		t:       t,
		exited:  make(chan struct{}),
		replies: defaultReplies(),
		changed: make(chan struct{}),
	}
	c.conn = jsonrpc.NewConn(context.Background(), rwc, jsonrpc.Options{
		Log:       log.New(testLogWriter{t}, "lsptest: ", 0),
		Unmatched: c.unmatched,
	})
	go func() { _ = c.conn.Run(c.handle) }()
	t.Cleanup(func() { _ = c.conn.Close() })
	return c
}

// unmatched records the responses that answer none of the client's calls: error
// responses with id null (the server's answer to unreadable input) and replies to
// string ids (requests sent with SendRaw; the client's own calls use numbers).
func (c *Client) unmatched(id *jsonrpc.ID, result json.RawMessage, err *jsonrpc.Error) {
	switch {
	case id == nil && err != nil:
		c.record(func() { c.nullErrors = append(c.nullErrors, *err) })
	case id != nil && id.IsString:
		c.record(func() { c.rawReplies = append(c.rawReplies, RawReply{ID: id.Str, Result: result, Error: err}) })
	default:
		c.t.Logf("lsptest: ignoring response %v with no corresponding request", id)
	}
}

func defaultReplies() map[string]Reply {
	null := func(json.RawMessage) (any, error) { return nil, nil }
	return map[string]Reply{
		"window/workDoneProgress/create": null,
		"window/showMessageRequest":      null, // the user dismissed it
		"client/registerCapability":      null,
		"client/unregisterCapability":    null,
		"workspace/applyEdit": func(json.RawMessage) (any, error) {
			return map[string]any{"applied": true}, nil
		},
		"window/showDocument": func(json.RawMessage) (any, error) {
			return map[string]any{"success": true}, nil
		},
		"workspace/configuration": func(p json.RawMessage) (any, error) {
			var params struct{ Items []json.RawMessage }
			_ = json.Unmarshal(p, &params)
			return make([]any, len(params.Items)), nil
		},
	}
}

// Reply sets how the client answers the server's requests for method, e.g. which
// action a window/showMessageRequest picks.
func (c *Client) Reply(method string, fn Reply) {
	c.mu.Lock()
	c.replies[method] = fn
	c.mu.Unlock()
}

// handle records what the server sent, in order, on the read loop, and answers
// requests from a goroutine (jsonrpc.Async), so the client keeps reading while it
// writes (a client that stops reading to write can deadlock with a server doing the
// same).
func (c *Client) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	m := Message{Method: req.Method, Params: req.Params}
	if req.ID == nil {
		c.record(func() { c.notes = append(c.notes, m) })
		return nil, nil
	}
	c.record(func() { c.requests = append(c.requests, m) })
	c.mu.Lock()
	fn := c.replies[req.Method]
	c.mu.Unlock()
	if fn == nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "lsptest: no reply configured for %s", req.Method)
	}
	return jsonrpc.Async(func(context.Context) (any, error) {
		result, err := fn(m.Params)
		if err != nil {
			var e *jsonrpc.Error
			if !errors.As(err, &e) {
				e = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
			}
			return nil, e
		}
		return result, nil
	}), nil
}

func (c *Client) record(f func()) {
	c.mu.Lock()
	f()
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
}

func (c *Client) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

// Call sends a request and decodes its result into result (unless nil). A JSON-RPC
// error reply is returned as *jsonrpc.Error; no reply within Timeout is an error
// that includes the server's stderr.
func (c *Client) Call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout())
	defer cancel()
	err := c.conn.Call(ctx, method, params, result)
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("no reply to %s within %v%s", method, c.timeout(), c.stderrTail())
	}
	return err
}

// CallRaw is Call returning the raw result.
func (c *Client) CallRaw(method string, params any) (json.RawMessage, error) {
	var raw json.RawMessage
	err := c.Call(method, params, &raw)
	return raw, err
}

// Notify sends a notification.
func (c *Client) Notify(method string, params any) error {
	return c.conn.Notify(method, params)
}

// SendRaw writes bytes as they are, between whole messages: for malformed input.
// Give requests sent this way a string id: replies to string ids are kept for
// WaitRawReply (the client's own calls use numeric ids).
func (c *Client) SendRaw(b []byte) error {
	return c.conn.WriteRaw(b)
}

// Frame wraps body in a Content-Length header.
func Frame(body string) []byte {
	return []byte("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
}

// InitializeParams are the params Initialize sends: a client with the capabilities
// mf-lsp uses (work-done progress, message actions, showDocument, applyEdit), opted
// in to the server's own notifications as the project's editors are.
func InitializeParams(rootURI string, initializationOptions any) map[string]any {
	p := map[string]any{
		"processId":  os.Getpid(),
		"clientInfo": map[string]any{"name": "lsptest"},
		"rootUri":    nil,
		"capabilities": map[string]any{
			"workspace": map[string]any{"applyEdit": true, "workspaceFolders": true},
			"window": map[string]any{
				"workDoneProgress": true,
				"showMessage":      map[string]any{"messageActionItem": map[string]any{"additionalPropertiesSupport": true}},
				"showDocument":     map[string]any{"support": true},
			},
			"textDocument": map[string]any{
				"synchronization":    map[string]any{"willSaveWaitUntil": true, "didSave": true},
				"publishDiagnostics": map[string]any{"versionSupport": true},
			},
			"experimental": map[string]any{"magicfrog": map[string]any{
				"notifications": []string{"magicfrog/memoryChanged", "magicfrog/compare"}}},
		},
	}
	if rootURI != "" {
		p["rootUri"] = rootURI
		p["workspaceFolders"] = []any{map[string]any{"uri": rootURI, "name": "project"}}
	}
	if initializationOptions != nil {
		p["initializationOptions"] = initializationOptions
	}
	return p
}

// Initialize runs the handshake (initialize, then initialized) with InitializeParams
// and returns the raw InitializeResult. It fails the test on error.
func (c *Client) Initialize(rootURI string, initializationOptions any) json.RawMessage {
	c.t.Helper()
	res, err := c.CallRaw("initialize", InitializeParams(rootURI, initializationOptions))
	if err != nil {
		c.t.Fatalf("initialize: %v", err)
	}
	if err := c.Notify("initialized", map[string]any{}); err != nil {
		c.t.Fatalf("initialized: %v", err)
	}
	return res
}

// Shutdown sends shutdown and exit and waits for the server to go away: the process
// to exit (its exit code is returned as an error if not 0) or, in process, the
// connection to close.
func (c *Client) Shutdown() error {
	if err := c.Call("shutdown", nil, nil); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := c.Notify("exit", nil); err != nil {
		return fmt.Errorf("exit: %w", err)
	}
	return c.WaitExit()
}

// WaitExit waits for the server to go away (see Shutdown) without sending anything.
func (c *Client) WaitExit() error {
	done := c.conn.Done()
	if c.proc != nil {
		done = c.exited
	}
	select {
	case <-done:
	case <-time.After(c.timeout()):
		return fmt.Errorf("server still running %v after exit%s", c.timeout(), c.stderrTail())
	}
	if c.proc != nil && c.exit != nil {
		return fmt.Errorf("server exited: %v%s", c.exit, c.stderrTail())
	}
	return nil
}

// Exited reports whether the server process has exited (always false in process).
func (c *Client) Exited() bool {
	select {
	case <-c.exited:
		return true
	default:
		return false
	}
}

// Stderr is what the server process wrote to stderr so far ("" in process).
func (c *Client) Stderr() string {
	if c.stderr == nil {
		return ""
	}
	return c.stderr.String()
}

func (c *Client) stderrTail() string {
	s := c.Stderr()
	if s == "" {
		return ""
	}
	if len(s) > 4000 {
		s = "…" + s[len(s)-4000:]
	}
	return "\nserver stderr:\n" + s
}

// Notifications returns the notifications with method received so far ("" for all).
func (c *Client) Notifications(method string) []Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return filter(c.notes, method)
}

// Requests returns the requests with method the server sent so far ("" for all).
func (c *Client) Requests(method string) []Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return filter(c.requests, method)
}

// NullIDErrors returns the error responses with id null received so far: what the
// server answers to input it could not read an id from.
func (c *Client) NullIDErrors() []jsonrpc.Error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]jsonrpc.Error(nil), c.nullErrors...)
}

func filter(ms []Message, method string) []Message {
	var out []Message
	for _, m := range ms {
		if method == "" || m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

// RawReply is the server's reply to a request sent with SendRaw (a string id).
type RawReply struct {
	ID     string
	Result json.RawMessage
	Error  *jsonrpc.Error
}

// WaitRawReply waits for the reply to the SendRaw request with string id id.
func (c *Client) WaitRawReply(id string) (RawReply, error) {
	var found RawReply
	err := c.WaitFor("reply to "+strconv.Quote(id), func(r Recorded) bool {
		for _, rr := range r.RawReplies {
			if rr.ID == id {
				found = rr
				return true
			}
		}
		return false
	})
	return found, err
}

// WaitFor waits until cond (called with the client's lock held; use the recorded
// slices through the argument) is true, or Timeout.
func (c *Client) WaitFor(what string, cond func(r Recorded) bool) error {
	deadline := time.After(c.timeout())
	for {
		c.mu.Lock()
		ok := cond(Recorded{Notifications: c.notes, Requests: c.requests, NullIDErrors: c.nullErrors, RawReplies: c.rawReplies})
		changed := c.changed
		c.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-changed:
		case <-deadline:
			return fmt.Errorf("timed out after %v waiting for %s%s", c.timeout(), what, c.stderrTail())
		}
	}
}

// Recorded is what the client received so far, for WaitFor conditions.
type Recorded struct {
	Notifications []Message
	Requests      []Message
	NullIDErrors  []jsonrpc.Error
	RawReplies    []RawReply
}

// WaitNotification waits for the first notification with method for which match
// (nil: any) is true, counting those already received, and returns it.
func (c *Client) WaitNotification(method string, match func(params json.RawMessage) bool) (Message, error) {
	var found Message
	err := c.WaitFor("notification "+method, func(r Recorded) bool {
		for _, m := range r.Notifications {
			if m.Method == method && (match == nil || match(m.Params)) {
				found = m
				return true
			}
		}
		return false
	})
	return found, err
}

// PublishedDiagnostics is a textDocument/publishDiagnostics notification, decoded
// loosely so tests can check the exact JSON (e.g. that diagnostics is [] not null).
type PublishedDiagnostics struct {
	URI         string            `json:"uri"`
	Version     *int32            `json:"version"`
	Diagnostics []json.RawMessage `json:"diagnostics"`
	RawDiags    json.RawMessage   `json:"-"`
}

// WaitDiagnostics waits for diagnostics published for uri for which match (nil:
// any) is true, and returns the latest such notification.
func (c *Client) WaitDiagnostics(uri string, match func(PublishedDiagnostics) bool) (PublishedDiagnostics, error) {
	var found PublishedDiagnostics
	err := c.WaitFor("diagnostics for "+uri, func(r Recorded) bool {
		ok := false
		for _, m := range r.Notifications {
			if m.Method != "textDocument/publishDiagnostics" {
				continue
			}
			var d PublishedDiagnostics
			var raw struct {
				Diagnostics json.RawMessage `json:"diagnostics"`
			}
			if json.Unmarshal(m.Params, &d) != nil || d.URI != uri {
				continue
			}
			_ = json.Unmarshal(m.Params, &raw)
			d.RawDiags = raw.Diagnostics
			if match == nil || match(d) {
				found, ok = d, true
			}
		}
		return ok
	})
	return found, err
}

// pipeRWC joins a process's stdout (read) and stdin (write).
type pipeRWC struct {
	io.ReadCloser
	io.WriteCloser
}

func (p pipeRWC) Close() error {
	err := p.WriteCloser.Close()
	if err2 := p.ReadCloser.Close(); err == nil {
		err = err2
	}
	return err
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// testLogWriter routes the client connection's log to the test log.
type testLogWriter struct{ t testing.TB }

func (w testLogWriter) Write(p []byte) (int, error) {
	if msg := string(p); strings.Contains(msg, "closed pipe") || strings.Contains(msg, "file already closed") {
		return len(p), nil // the connection closing at cleanup
	}
	defer func() { _ = recover() }() // t.Logf panics after the test ended
	w.t.Logf("%s", strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}
