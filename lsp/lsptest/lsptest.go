// Package lsptest is an end-to-end harness for mf-lsp: a scripted LSP client that
// speaks JSON-RPC to the real binary over its stdio (StartBinary) or to an in-process
// server over any connection such as one end of net.Pipe (New). It records every
// notification and request the server sends, answers the server's requests with
// configurable replies, and can write raw bytes to test malformed input.
//
// It deliberately does not import package lsp: it sees the server only from the
// wire, as an editor does.
package lsptest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
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

// Reply answers a server→client request: its result, or an error (a *jsonrpc2.Error
// is sent as is).
type Reply func(params json.RawMessage) (any, error)

// Client is one LSP session from the client's side.
type Client struct {
	// Timeout bounds each Call and Wait; DefaultTimeout if zero.
	Timeout time.Duration

	t      testing.TB
	conn   *jsonrpc2.Conn
	stream *clientStream

	proc   *exec.Cmd // nil for in-process servers
	stderr *lockedBuffer
	exited chan struct{}
	exit   error

	mu         sync.Mutex
	notes      []Message
	requests   []Message
	nullErrors []jsonrpc2.Error
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
		stream:  &clientStream{rwc: rwc, r: bufio.NewReaderSize(rwc, 1<<20)},
		exited:  make(chan struct{}),
		replies: defaultReplies(),
		changed: make(chan struct{}),
	}
	c.stream.onNullID = func(e jsonrpc2.Error) {
		c.record(func() { c.nullErrors = append(c.nullErrors, e) })
	}
	c.stream.onRawReply = func(r RawReply) {
		c.record(func() { c.rawReplies = append(c.rawReplies, r) })
	}
	c.conn = jsonrpc2.NewConn(context.Background(), c.stream, c,
		jsonrpc2.SetLogger(testLogger{t}))
	t.Cleanup(func() { c.conn.Close() })
	return c
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

// Handle implements jsonrpc2.Handler: it records what the server sent, in order, on
// the read loop, and answers requests from a goroutine, so the client keeps reading
// while it writes (a client that stops reading to write can deadlock with a server
// doing the same).
func (c *Client) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	m := Message{Method: req.Method}
	if req.Params != nil {
		m.Params = *req.Params
	}
	if req.Notif {
		c.record(func() { c.notes = append(c.notes, m) })
		return
	}
	c.record(func() { c.requests = append(c.requests, m) })
	c.mu.Lock()
	fn := c.replies[req.Method]
	c.mu.Unlock()
	go func() {
		if fn == nil {
			_ = conn.ReplyWithError(ctx, req.ID, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "lsptest: no reply configured for " + req.Method})
			return
		}
		result, err := fn(m.Params)
		if err != nil {
			e, ok := err.(*jsonrpc2.Error)
			if !ok {
				e = &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: err.Error()}
			}
			_ = conn.ReplyWithError(ctx, req.ID, e)
			return
		}
		_ = conn.Reply(ctx, req.ID, result)
	}()
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
// error reply is returned as *jsonrpc2.Error; no reply within Timeout is an error
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
	return c.conn.Notify(context.Background(), method, params)
}

// SendRaw writes bytes as they are, between whole messages: for malformed input.
// Give requests sent this way a string id: replies to string ids are kept for
// WaitRawReply (jsonrpc2's own calls use numeric ids).
func (c *Client) SendRaw(b []byte) error {
	c.stream.wmu.Lock()
	defer c.stream.wmu.Unlock()
	_, err := c.stream.rwc.Write(b)
	return err
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
	done := c.conn.DisconnectNotify()
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
func (c *Client) NullIDErrors() []jsonrpc2.Error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]jsonrpc2.Error(nil), c.nullErrors...)
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
	Error  *jsonrpc2.Error
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
	NullIDErrors  []jsonrpc2.Error
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

// clientStream is a strict LSP framing stream for the client side. Error responses
// with id null (the server's answer to unreadable input) are recorded instead of
// being handed to jsonrpc2, which would read the null id as 0 and misroute them; so
// are responses to string ids (SendRaw requests), which jsonrpc2 would drop.
type clientStream struct {
	rwc        io.ReadWriteCloser
	r          *bufio.Reader
	wmu        sync.Mutex
	onNullID   func(jsonrpc2.Error)
	onRawReply func(RawReply)
}

func (s *clientStream) WriteObject(obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err = s.rwc.Write(append([]byte("Content-Length: "+strconv.Itoa(len(data))+"\r\n\r\n"), data...))
	return err
}

func (s *clientStream) ReadObject(v any) error {
	for {
		length := -1
		for {
			line, err := s.r.ReadString('\n')
			if err != nil {
				return err
			}
			line = strings.TrimRight(line, "\r\n")
			if line == "" {
				break
			}
			if name, value, ok := strings.Cut(line, ":"); ok && strings.EqualFold(name, "Content-Length") {
				if length, err = strconv.Atoi(strings.TrimSpace(value)); err != nil {
					return fmt.Errorf("lsptest: bad Content-Length from server: %q", line)
				}
			}
		}
		if length < 0 {
			return fmt.Errorf("lsptest: server sent a frame without Content-Length")
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(s.r, body); err != nil {
			return err
		}
		var probe struct {
			ID     json.RawMessage `json:"id"`
			Method *string         `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  *jsonrpc2.Error `json:"error"`
		}
		if json.Unmarshal(body, &probe) == nil && probe.Method == nil {
			if probe.Error != nil && (probe.ID == nil || string(probe.ID) == "null") {
				s.onNullID(*probe.Error)
				continue
			}
			var id string
			if json.Unmarshal(probe.ID, &id) == nil {
				s.onRawReply(RawReply{ID: id, Result: probe.Result, Error: probe.Error})
				continue
			}
		}
		return json.Unmarshal(body, v)
	}
}

func (s *clientStream) Close() error { return s.rwc.Close() }

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

// testLogger routes jsonrpc2's client-side log to the test log.
type testLogger struct{ t testing.TB }

func (l testLogger) Printf(format string, v ...any) {
	if msg := fmt.Sprintf(format, v...); strings.Contains(msg, "closed pipe") || strings.Contains(msg, "file already closed") {
		return // the connection closing at cleanup
	}
	defer func() { _ = recover() }() // t.Logf panics after the test ended
	l.t.Logf("lsptest: "+format, v...)
}
