package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// client is the smallest LSP client that can time a real server from another
// process: Content-Length framing over the child's stdio, requests matched to
// replies by id, the server's own requests answered (null, or a null per
// workspace/configuration item), and the last published diagnostics version
// per document kept for didChange round trips. It has no dependency on the
// server's code, as an editor has none.
type client struct {
	cmd *exec.Cmd
	in  io.WriteCloser

	wmu sync.Mutex // one frame at a time on stdin

	mu       sync.Mutex
	nextID   int
	pending  map[int]chan reply
	diags    map[string]int // uri → last published version
	pubs     map[string]int // uri → publications so far (a republish keeps the version)
	diagSeen chan struct{}  // closed and replaced on each publishDiagnostics
	readErr  error
	closed   chan struct{}

	started time.Time     // when the server was started
	trace   *bufio.Writer // nil, or where call writes each request (-trace)
}

type reply struct {
	result json.RawMessage
	err    error
	read   time.Time // when its last byte was read, before decoding it
}

// message is any JSON-RPC message: a reply has ID and Result or Error, a
// request Method and ID, a notification Method alone.
type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// startPiped starts a server's cmd in dir with env, its stdin and stdout
// piped to this process and its log (stderr) discarded.
func startPiped(cmd *exec.Cmd, dir string, env []string) (io.WriteCloser, io.Reader, error) {
	cmd.Dir, cmd.Env = dir, env
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	cmd.Stderr = io.Discard
	return in, out, cmd.Start()
}

// startServer starts the language server binary with env and dir.
func startServer(bin, dir string, env []string) (*client, error) {
	cmd := exec.Command(bin)
	in, out, err := startPiped(cmd, dir, env)
	if err != nil {
		return nil, err
	}
	c := &client{started: time.Now(), cmd: cmd, in: in, pending: map[int]chan reply{}, diags: map[string]int{}, pubs: map[string]int{},
		diagSeen: make(chan struct{}), closed: make(chan struct{})}
	go c.read(bufio.NewReaderSize(out, 1<<20))
	return c, nil
}

func (c *client) read(r *bufio.Reader) {
	err := func() error {
		tp := textproto.NewReader(r)
		for {
			h, err := tp.ReadMIMEHeader()
			if err != nil {
				return err
			}
			n, err := strconv.Atoi(h.Get("Content-Length"))
			if err != nil {
				return fmt.Errorf("bad Content-Length %q", h.Get("Content-Length"))
			}
			body := make([]byte, n)
			if _, err := io.ReadFull(r, body); err != nil {
				return err
			}
			read := time.Now()
			var m message
			if err := json.Unmarshal(body, &m); err != nil {
				return fmt.Errorf("bad message %q: %v", body, err)
			}
			c.dispatch(m, read)
		}
	}()
	c.mu.Lock()
	c.readErr = err
	for id, ch := range c.pending {
		ch <- reply{err: fmt.Errorf("server closed: %v", err)}
		delete(c.pending, id)
	}
	c.mu.Unlock()
	close(c.closed)
}

func (c *client) dispatch(m message, read time.Time) {
	switch {
	case m.Method != "" && len(m.ID) > 0: // the server asks
		var result any
		if m.Method == "workspace/configuration" {
			var p struct{ Items []json.RawMessage }
			_ = json.Unmarshal(m.Params, &p)
			result = make([]any, len(p.Items))
		}
		go c.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
	case m.Method == "textDocument/publishDiagnostics":
		var p struct {
			URI     string `json:"uri"`
			Version *int   `json:"version"`
		}
		_ = json.Unmarshal(m.Params, &p)
		c.mu.Lock()
		if p.Version != nil {
			c.diags[p.URI] = *p.Version
		}
		c.pubs[p.URI]++
		close(c.diagSeen)
		c.diagSeen = make(chan struct{})
		c.mu.Unlock()
	case m.Method == "":
		id, err := strconv.Atoi(string(m.ID))
		if err != nil {
			return
		}
		r := reply{result: m.Result, read: read}
		if m.Error != nil {
			r.err = fmt.Errorf("error %d: %s", m.Error.Code, m.Error.Message)
		}
		c.mu.Lock()
		ch := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if ch != nil {
			ch <- r
		}
	}
}

func (c *client) send(v any) error {
	_, err := c.sendAt(v)
	return err
}

// sendAt sends v and says when its frame, encoded, began to be written.
func (c *client) sendAt(v any) (time.Time, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return time.Time{}, err
	}
	frame := "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + string(body)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	at := time.Now()
	_, err = io.WriteString(c.in, frame)
	return at, err
}

// call sends a request and waits for its reply.
func (c *client) call(method string, params any, timeout time.Duration) (json.RawMessage, error) {
	result, _, err := c.timedCall(method, params, timeout)
	return result, err
}

// timedCall is call, also saying how long the server took: from the request's
// first byte written to the reply's last byte read. The client's own work
// (encoding the request, decoding the reply, handing it to the caller) is
// left out: at 100,000 notes a completion list is about 29 KB of JSON, whose
// decoding and hand-over (a goroutine woken on a loaded machine) are the
// measuring client's, not the server's.
func (c *client) timedCall(method string, params any, timeout time.Duration) (json.RawMessage, time.Duration, error) {
	ch := make(chan reply, 1)
	c.mu.Lock()
	if c.readErr != nil {
		c.mu.Unlock()
		return nil, 0, c.readErr
	}
	c.nextID++
	id := c.nextID
	c.pending[id] = ch
	c.mu.Unlock()
	t0, err := c.sendAt(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return nil, 0, err
	}
	select {
	case r := <-ch:
		d := r.read.Sub(t0)
		if c.trace != nil { // after the reply: not timed
			fmt.Fprintf(c.trace, "%.4f %s %.3f %.3f %d\n", t0.Sub(c.started).Seconds(), method, msf(d), msf(time.Since(t0)), len(r.result))
		}
		return r.result, d, r.err
	case <-time.After(timeout):
		return nil, 0, fmt.Errorf("%s: no reply within %v", method, timeout)
	}
}

func (c *client) notify(method string, params any) error {
	return c.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// waitDiagnostics waits until diagnostics for uri at version (or later) are
// published.
func (c *client) waitDiagnostics(uri string, version int, timeout time.Duration) error {
	return c.waitFor(uri, timeout, fmt.Sprintf("diagnostics for version %d", version), func() bool { return c.diags[uri] >= version })
}

// published is how many times diagnostics for uri were published so far.
func (c *client) published(uri string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pubs[uri]
}

// waitPublished waits until diagnostics for uri were published more than n
// times: the server republishes open buffers when its tree changed on disk.
func (c *client) waitPublished(uri string, n int, timeout time.Duration) error {
	return c.waitFor(uri, timeout, "new diagnostics", func() bool { return c.pubs[uri] > n })
}

// waitFor waits until done (called under c.mu) holds after a publication.
func (c *client) waitFor(uri string, timeout time.Duration, what string, done func() bool) error {
	deadline := time.After(timeout)
	for {
		c.mu.Lock()
		ok, seen := done(), c.diagSeen
		c.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-seen:
		case <-c.closed:
			return errors.New("server closed while waiting for diagnostics")
		case <-deadline:
			return fmt.Errorf("no %s of %s within %v", what, uri, timeout)
		}
	}
}

// initialize runs the handshake for a project and data directory.
func (c *client) initialize(project, data string) error {
	uri := fileURI(project)
	_, err := c.call("initialize", map[string]any{
		"processId":             os.Getpid(),
		"rootUri":               uri,
		"workspaceFolders":      []any{map[string]any{"uri": uri, "name": "project"}},
		"initializationOptions": map[string]any{"dataDir": data},
		"capabilities": map[string]any{
			"textDocument": map[string]any{"publishDiagnostics": map[string]any{"versionSupport": true}},
		},
	}, 5*time.Minute)
	if err != nil {
		return err
	}
	return c.notify("initialized", map[string]any{})
}

// stop shuts the server down and waits for it to exit.
func (c *client) stop() {
	_, _ = c.call("shutdown", nil, 30*time.Second)
	_ = c.notify("exit", nil)
	_ = c.in.Close()
	waitExit(c.cmd)
}

// waitExit waits for a server whose input was closed to exit, and kills it
// after 30 s.
func waitExit(cmd *exec.Cmd) {
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

// peakRSS is a /proc/PID/status figure in MiB: VmHWM (the peak resident
// set) or VmRSS (the current one) on Linux; 0 elsewhere.
func peakRSS(pid int, field string) float64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				kb, _ := strconv.ParseFloat(f[0], 64)
				return kb / 1024
			}
		}
	}
	return 0
}

func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: path}).String()
}

// msf is d in milliseconds, for -trace.
func msf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
