package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// Default limits; see Options.
const (
	DefaultMaxMessageBytes = 64 << 20
	DefaultMaxQueueBytes   = 64 << 20
)

// closeGrace is how long closing waits for queued messages to reach the peer.
const closeGrace = 2 * time.Second

// cancelMethod is the base protocol's notification that cancels a request.
const cancelMethod = "$/cancelRequest"

// Options configure a Conn. The zero value is usable.
type Options struct {
	// MaxMessageBytes bounds one incoming message; a larger one is answered with an
	// error and skipped. Default DefaultMaxMessageBytes.
	MaxMessageBytes int64
	// MaxQueueBytes bounds the messages waiting to be written to the peer; a send
	// that would exceed it fails with ErrPeerNotReading and closes the connection.
	// Default DefaultMaxQueueBytes.
	MaxQueueBytes int64
	// Log receives what goes wrong (bad frames, panics, failed sends). Default stderr.
	Log *log.Logger
	// Report is told, besides Log, about failures the peer gets no reply for: a
	// notification handler's error, a handler's panic with its stack. A language
	// server shows them in the client's log (window/logMessage).
	Report func(msg string)
	// Unmatched, when set, is handed each response that answers no Call of ours
	// (id null, a string id, an id not waiting) instead of it being logged and
	// dropped. A client uses it to see the errors a server answers unreadable input
	// with, and replies to requests it wrote with WriteRaw.
	Unmatched func(id *ID, result json.RawMessage, err *Error)
}

// Handler answers one request or notification from the peer; it runs on the read
// loop (see the package documentation). For a notification the result is dropped and
// an error is logged and reported. ctx ends when the connection closes.
type Handler func(ctx context.Context, req *Request) (result any, err error)

// Releaser is a result that borrowed what it holds (a pooled array): the
// connection calls Release once, when the reply's bytes are made, after which
// nothing reads the result.
type Releaser interface{ Release() }

// Async is a result computed beside the read loop: a Handler that returns one has the
// func run in its own goroutine, with a context that ends on $/cancelRequest or when
// the connection closes, and its result sent as the reply.
type Async func(ctx context.Context) (any, error)

// Conn is one JSON-RPC connection. Notify and Call are safe from any goroutine.
type Conn struct {
	rwc       io.ReadWriteCloser
	in        *reader
	out       *outbox
	log       *log.Logger
	report    func(msg string)
	unmatched func(id *ID, result json.RawMessage, err *Error)

	ctx       context.Context // handed to handlers; cancelled on close
	cancel    context.CancelFunc
	stopAfter func() bool   // unhooks the close on the caller's ctx
	done      chan struct{} // closed when closing starts
	finished  chan struct{} // closed when closing is over

	mu       sync.Mutex
	closed   bool
	cause    error // why the connection closed; nil for Close
	nextID   int64
	calls    map[int64]chan *message   // our requests waiting for a reply
	inflight map[ID]context.CancelFunc // Async requests from the peer still running
}

// NewConn makes a connection over rwc; it reads nothing until Run. It is closed when
// ctx is done.
func NewConn(ctx context.Context, rwc io.ReadWriteCloser, opts Options) *Conn {
	if opts.MaxMessageBytes <= 0 {
		opts.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if opts.MaxQueueBytes <= 0 {
		opts.MaxQueueBytes = DefaultMaxQueueBytes
	}
	if opts.Log == nil {
		opts.Log = log.New(os.Stderr, "", log.LstdFlags)
	}
	if opts.Report == nil {
		opts.Report = func(string) {}
	}
	c := &Conn{
		rwc:       rwc,
		in:        newReader(rwc, opts.MaxMessageBytes, opts.Log),
		out:       newOutbox(rwc, opts.MaxQueueBytes, opts.Log),
		log:       opts.Log,
		report:    opts.Report,
		unmatched: opts.Unmatched,
		done:      make(chan struct{}),
		finished:  make(chan struct{}),
		calls:     map[int64]chan *message{},
		inflight:  map[ID]context.CancelFunc{},
	}
	c.ctx, c.cancel = context.WithCancel(ctx)
	c.stopAfter = context.AfterFunc(ctx, func() { c.Close() })
	return c
}

// Run reads and dispatches messages until the input ends or the connection is
// closed, then closes it, letting queued messages out for a moment. It returns why
// the connection ended: nil for the end of input or Close. It returns at Close even
// when a read cannot be interrupted (stdin): the read loop is left to the process exit.
func (c *Conn) Run(h Handler) error {
	go c.readLoop(h)
	<-c.finished
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cause
}

func (c *Conn) readLoop(h Handler) {
	for {
		m, bad, err := c.in.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			c.shutdown(err)
			return
		}
		select {
		case <-c.done:
			return // closed while reading: what came after is not ours to handle
		default:
		}
		if bad != nil {
			c.rejected(bad)
			continue
		}
		c.dispatch(h, m)
	}
}

// Close closes the connection: later sends fail, calls waiting for a reply return
// ErrClosed, handler contexts end, and messages already queued get a moment to reach
// the peer. Closing twice returns ErrClosed.
func (c *Conn) Close() error {
	if !c.shutdown(nil) {
		return ErrClosed
	}
	return nil
}

// Done is closed when the connection starts closing.
func (c *Conn) Done() <-chan struct{} { return c.done }

func (c *Conn) shutdown(cause error) bool {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return false
	}
	c.closed = true
	c.cause = cause
	for id, reply := range c.calls {
		close(reply)
		delete(c.calls, id)
	}
	c.mu.Unlock()
	if cause != nil && !errors.Is(cause, io.ErrUnexpectedEOF) && !errors.Is(cause, ErrPeerNotReading) {
		c.log.Printf("connection ended: %v", cause) // ErrPeerNotReading was logged when it happened
	}
	c.stopAfter()
	close(c.done)
	c.cancel()
	c.out.close(closeGrace)
	c.rwc.Close()
	close(c.finished)
	return true
}

// Notify sends a notification. It never waits for the peer; it fails when the
// connection is closed or the peer has stopped reading.
func (c *Conn) Notify(method string, params any) error {
	return c.send(outRequest{JSONRPC: "2.0", Method: method, Params: params})
}

// Call sends a request and waits for the reply, which is decoded into result (unless
// result is nil). An error reply is returned as *Error. Never call it from a Handler:
// the reply is read by the loop the handler blocks.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	id := c.nextID
	c.nextID++
	reply := make(chan *message, 1)
	c.calls[id] = reply
	c.mu.Unlock()
	forget := func() {
		c.mu.Lock()
		delete(c.calls, id)
		c.mu.Unlock()
	}
	if err := c.send(outRequest{JSONRPC: "2.0", ID: &ID{Num: id}, Method: method, Params: params}); err != nil {
		forget()
		return err
	}
	select {
	case <-ctx.Done():
		forget()
		return ctx.Err()
	case m, ok := <-reply:
		switch {
		case !ok:
			return ErrClosed
		case m.err != nil:
			return m.err
		case result == nil:
			return nil
		case m.result == nil:
			return json.Unmarshal([]byte("null"), result)
		}
		return json.Unmarshal(m.result, result)
	}
}

// WriteRaw queues b to be written to the peer as it is, between whole messages,
// unframed: for a test client that sends malformed input. Replies to requests sent
// this way go to Options.Unmatched.
func (c *Conn) WriteRaw(b []byte) error { return c.queued(c.out.putRaw(b)) }

// send encodes one message and queues it.
func (c *Conn) send(msg any) error {
	e, err := encode(msg)
	if err != nil {
		return err
	}
	return c.put(e)
}

// put queues one encoded message, whose buffer the outbox releases. A full
// queue closes the connection.
func (c *Conn) put(e *encoded) error { return c.queued(c.out.put(e)) }

// queued passes on the error of queueing a write; a full queue closes the connection.
func (c *Conn) queued(err error) error {
	if err != nil {
		if errors.Is(err, ErrPeerNotReading) {
			c.shutdown(err)
		}
		return err
	}
	return nil
}

func (c *Conn) dispatch(h Handler, m *message) {
	switch {
	case m.isResponse:
		c.deliver(m)
	case m.Method == cancelMethod:
		c.cancelRequest(m.Params)
	default:
		req := &m.Request
		result, err := c.invoke(req.Method, func() (any, error) { return h(c.ctx, req) })
		if fn, ok := result.(Async); ok && err == nil {
			c.goAsync(req, fn)
			return
		}
		c.answer(req, result, err)
	}
}

// invoke calls fn, turning a panic into the InternalError the request is answered
// with, so one bad handler cannot take the connection down.
func (c *Conn) invoke(method string, fn func() (any, error)) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			stack := debug.Stack()
			c.log.Printf("panic in %s handler: %v\n%s", method, p, stack)
			c.report(fmt.Sprintf("internal error in %s: %v\n%s", method, p, stack))
			result, err = nil, Errorf(CodeInternalError, "internal error in %s: %v (stack trace in the server log)", method, p)
		}
	}()
	return fn()
}

func (c *Conn) goAsync(req *Request, fn Async) {
	ctx, cancel := context.WithCancel(c.ctx)
	if req.ID != nil {
		c.mu.Lock()
		c.inflight[*req.ID] = cancel
		c.mu.Unlock()
	}
	go func() {
		defer cancel()
		result, err := c.invoke(req.Method, func() (any, error) { return fn(ctx) })
		if req.ID != nil {
			c.mu.Lock()
			delete(c.inflight, *req.ID)
			c.mu.Unlock()
		}
		c.answer(req, result, err)
	}()
}

// cancelRequest handles $/cancelRequest: it cancels the context of the Async request
// with that id, if it is still running.
func (c *Conn) cancelRequest(params json.RawMessage) {
	if params == nil {
		return
	}
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		c.log.Printf("%s: %v", cancelMethod, err)
		return
	}
	id, ok := parseID(p.ID)
	if !ok {
		c.log.Printf("%s: id must be a string or a non-negative integer, got %s", cancelMethod, truncate(string(p.ID), 30))
		return
	}
	c.mu.Lock()
	cancel := c.inflight[id]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// deliver hands a reply to the Call waiting for it.
func (c *Conn) deliver(m *message) {
	var reply chan *message
	if m.ID != nil && !m.ID.IsString {
		c.mu.Lock()
		reply = c.calls[m.ID.Num]
		delete(c.calls, m.ID.Num)
		c.mu.Unlock()
	}
	if reply == nil && c.unmatched != nil {
		c.unmatched(m.ID, m.result, m.err)
		return
	}
	if reply == nil {
		c.log.Printf("ignoring response %s with no corresponding request", idString(m.ID))
		return
	}
	reply <- m
}

// answer ends a request with its reply; a notification has none, so only its error
// is reported.
func (c *Conn) answer(req *Request, result any, err error) {
	if r, ok := result.(Releaser); ok {
		defer r.Release() // the reply's bytes are made (or none are sent)
	}
	if req.ID == nil {
		if err != nil {
			c.notificationFailed(req.Method, err)
		}
		return
	}
	var msg any = resultResponse{JSONRPC: "2.0", ID: req.ID, Result: result}
	if err != nil {
		msg = errorResponse{JSONRPC: "2.0", ID: req.ID, Error: toError(err)}
	}
	body, merr := encode(msg)
	if merr != nil {
		// A result that cannot be encoded must still get an answer, or the peer
		// waits forever.
		c.log.Printf("cannot encode the reply to request %s: %v", req.ID, merr)
		body, _ = encode(errorResponse{JSONRPC: "2.0", ID: req.ID, Error: Errorf(CodeInternalError, "internal error: cannot encode result: %v", merr)})
	}
	if err := c.put(body); err != nil && !errors.Is(err, ErrClosed) {
		c.log.Printf("sending response %s: %v", req.ID, err)
	}
}

// notificationFailed logs and reports an error from a notification handler: there is
// no reply to carry it. Unknown methods starting with "$/" are dropped quietly (the
// base protocol says such notifications may be ignored).
func (c *Conn) notificationFailed(method string, err error) {
	msg := err.Error()
	if e, ok := err.(*Error); ok {
		if e.Code == CodeMethodNotFound && strings.HasPrefix(method, "$/") {
			return
		}
		msg = e.Message
	}
	msg = method + ": " + msg
	c.log.Print(msg)
	c.report(msg)
}

// rejected answers a message that could not be read as JSON-RPC, with id null when
// none could be read; a bad response is only logged (a response is never answered).
func (c *Conn) rejected(bad *badMessage) {
	c.log.Printf("bad message from the peer: %s", bad.err.Message)
	if bad.resp {
		return
	}
	if err := c.send(errorResponse{JSONRPC: "2.0", ID: bad.id, Error: bad.err}); err != nil {
		c.log.Printf("cannot send error reply: %v", err)
	}
}

// toError maps a handler error to the error object sent to the peer.
func toError(err error) *Error {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, context.Canceled):
		return Errorf(CodeRequestCancelled, "request cancelled")
	default:
		return Errorf(CodeRequestFailed, "%v", err)
	}
}

func idString(id *ID) string {
	if id == nil {
		return "null"
	}
	return id.String()
}
