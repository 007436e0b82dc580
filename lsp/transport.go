package lsp

// The transport: LSP base-protocol framing, and an adapter from a glsp.Handler to a
// sourcegraph/jsonrpc2 handler. We skip glsp's own server package (it pulls a dozen
// logging modules and hard-wires stdio); this file is what it would have done for us,
// plus the robustness it lacks.
//
// What runs where (deliberately):
//
//   - jsonrpc2's read loop decodes one message at a time and calls adapter.Handle
//     inline. Every handler runs there, one after another, so didOpen/didChange/didSave
//     are applied in the order the client sent them and every request sees all edits
//     sent before it. Handlers must therefore be quick and must never wait for the
//     client: the reply they would wait for is read by the very loop they block.
//   - A handler with slow work returns Async(fn) as its result: fn runs in its own
//     goroutine and its result is sent when it finishes, while the loop goes on. Take
//     what fn needs from the document store before returning (snapshots), because
//     later edits are applied concurrently.
//   - $/cancelRequest is handled here, on the loop, before glsp sees it. A synchronous
//     request has always been answered before its cancel is even read (sequential
//     dispatch), so a cancel only reaches Async requests: it cancels fn's context, and a
//     fn that gives up with ctx.Err() is answered -32800 RequestCancelled.
//   - Requests to the client (workDoneProgress/create, showMessageRequest, applyEdit,
//     showDocument) go through Server.Call from an Async fn or Server.Go, never from
//     a handler on the loop.
//
// Bad input never ends the session: a frame that is not JSON, not a JSON-RPC message,
// or too large is answered with a JSON-RPC error (id null when no id could be read)
// and the loop reads on; a panicking handler is answered -32603 and logged. Only the
// end of the input stream ends the connection.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// Error codes beyond JSON-RPC's own (LSP 3.16 §Response Message; RequestFailed is 3.17
// but harmless to older clients, which show any code's message).
const (
	CodeServerNotInitialized = -32002
	CodeUnknownError         = -32001
	CodeRequestFailed        = -32803
	CodeRequestCancelled     = -32800
	CodeContentModified      = -32801
)

// Errorf returns a JSON-RPC error with the given code. A handler that returns one has it
// sent to the client as is; any other error is sent as RequestFailed with its message.
func Errorf(code int64, format string, args ...any) *jsonrpc2.Error {
	return &jsonrpc2.Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Async is a request result computed beside the read loop; see the comment at the top
// of this file. The adapter runs the func in a goroutine with a context that is
// cancelled by $/cancelRequest or when the connection closes.
type Async func(ctx context.Context) (any, error)

// Default limits; see Options.
const (
	DefaultMaxMessageBytes = 64 << 20
	maxHeaderLine          = 8 << 10
)

// stream is a jsonrpc2.ObjectStream speaking LSP's Content-Length framing. Unlike
// jsonrpc2's own codec (whose read errors close the connection), it answers bad frames
// itself and reads on; only I/O errors reach jsonrpc2.
type stream struct {
	rwc        io.ReadWriteCloser
	r          *bufio.Reader
	maxMessage int64
	log        *log.Logger
	// resync: the last header announced a body over maxMessage; skip to the
	// next header before reading on. pending: the start of a header line
	// skipToHeader already consumed.
	resync  bool
	pending string

	// Writes are queued and written by writeLoop, so the read loop never blocks on a
	// client that is busy writing to us instead of reading (both sides would wait for
	// each other: with net.Pipe at once, with OS pipes once a message outgrows their
	// buffer).
	wmu     sync.Mutex
	wcond   *sync.Cond
	queue   [][]byte
	werr    error // the first write error; later writes fail with it
	closing bool
	wdone   chan struct{}
	w       *bufio.Writer
}

func newStream(rwc io.ReadWriteCloser, maxMessage int64, logger *log.Logger) *stream {
	if maxMessage <= 0 {
		maxMessage = DefaultMaxMessageBytes
	}
	s := &stream{rwc: rwc, r: bufio.NewReaderSize(rwc, 64<<10), w: bufio.NewWriter(rwc), maxMessage: maxMessage, log: logger, wdone: make(chan struct{})}
	s.wcond = sync.NewCond(&s.wmu)
	go s.writeLoop()
	return s
}

// badMessage is a problem with one incoming message that does not end the stream.
type badMessage struct {
	id   json.RawMessage // nil: reply with id null; only set for requests
	resp bool            // a response from the client: log only, never reply
	err  *jsonrpc2.Error
}

func (s *stream) ReadObject(v any) error {
	for {
		body, bad, err := s.readFrame()
		if err != nil {
			return err
		}
		if bad == nil {
			bad = checkMessage(body)
		}
		if bad == nil {
			if err := json.Unmarshal(body, v); err != nil {
				bad = &badMessage{id: idOf(body), err: Errorf(jsonrpc2.CodeInvalidRequest, "invalid JSON-RPC message: %v", err)}
			}
		}
		if bad == nil {
			return nil
		}
		s.log.Printf("bad message from client: %s", bad.err.Message)
		if !bad.resp {
			s.replyError(bad.id, bad.err)
		}
	}
}

func (s *stream) WriteObject(obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	return s.writeFrame(data)
}

// Close lets queued messages (the reply to shutdown, a last logMessage) reach the
// client before closing, but gives up after a while on a client that does not read.
func (s *stream) Close() error {
	s.wmu.Lock()
	s.closing = true
	s.wcond.Signal()
	s.wmu.Unlock()
	select {
	case <-s.wdone:
	case <-time.After(2 * time.Second):
	}
	return s.rwc.Close()
}

func (s *stream) writeFrame(data []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.werr != nil {
		return s.werr
	}
	if s.closing {
		return jsonrpc2.ErrClosed
	}
	s.queue = append(s.queue, data)
	s.wcond.Signal()
	return nil
}

func (s *stream) writeLoop() {
	defer close(s.wdone)
	for {
		s.wmu.Lock()
		for len(s.queue) == 0 && !s.closing {
			s.wcond.Wait()
		}
		batch := s.queue
		s.queue = nil
		done := s.closing && len(batch) == 0
		s.wmu.Unlock()
		if done {
			return
		}
		err := func() error {
			for _, data := range batch {
				if _, err := fmt.Fprintf(s.w, "Content-Length: %d\r\n\r\n", len(data)); err != nil {
					return err
				}
				if _, err := s.w.Write(data); err != nil {
					return err
				}
			}
			return s.w.Flush()
		}()
		if err != nil {
			s.wmu.Lock()
			s.werr = err
			s.queue = nil
			s.wmu.Unlock()
			s.log.Printf("writing to client: %v", err)
			return
		}
	}
}

func (s *stream) replyError(id json.RawMessage, e *jsonrpc2.Error) {
	if id == nil {
		id = json.RawMessage("null") // JSON-RPC: the id could not be determined
	}
	data, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc2.Error `json:"error"`
	}{"2.0", id, e})
	if err := s.writeFrame(data); err != nil {
		s.log.Printf("cannot send error reply: %v", err)
	}
}

// readFrame reads one header block and its body. A malformed header block is reported
// as bad (after resynchronizing at the next "Content-Length:" when junk precedes it);
// err is only set when the input itself fails (EOF, closed pipe).
func (s *stream) readFrame() (body []byte, bad *badMessage, err error) {
	if s.resync {
		if err := s.skipToHeader(); err != nil {
			return nil, nil, err
		}
		s.resync = false
	}
	length := int64(-1)
	var problems []string
	sawHeader := false
	for {
		line, err := s.readLine()
		if err != nil {
			return nil, nil, err
		}
		if line == "" {
			if !sawHeader {
				continue // stray blank lines between messages are harmless
			}
			break
		}
		sawHeader = true
		name, value, ok := strings.Cut(line, ":")
		if !ok || !isHeaderName(name) {
			// Junk, e.g. a body whose Content-Length was short. If a header starts
			// inside it, resynchronize there and drop what came before.
			if i := strings.Index(strings.ToLower(line), "content-length:"); i > 0 {
				s.log.Printf("skipped %d bytes of junk before a header", i)
				name, value, _ = strings.Cut(line[i:], ":")
				length, problems = -1, nil
			} else {
				problems = append(problems, fmt.Sprintf("not a header line: %q", truncate(line, 60)))
				continue
			}
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, perr := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if perr != nil || n < 0 {
				problems = append(problems, fmt.Sprintf("invalid Content-Length %q", truncate(value, 30)))
				continue
			}
			length = n
		}
		// Other headers (Content-Type) are accepted and ignored: UTF-8 JSON is all LSP uses.
	}
	if length < 0 && len(problems) == 0 {
		problems = append(problems, "no Content-Length header")
	}
	if len(problems) > 0 {
		return nil, &badMessage{err: Errorf(jsonrpc2.CodeParseError, "malformed message header: %s", strings.Join(problems, "; "))}, nil
	}
	if length > s.maxMessage {
		// Not drained: a Content-Length of 2^63-1 would swallow every later
		// message. The body is skipped up to the next header instead.
		s.resync = true
		return nil, &badMessage{err: Errorf(jsonrpc2.CodeInvalidRequest, "message of %d bytes exceeds the limit of %d bytes; ignored, and skipped up to the next Content-Length header", length, s.maxMessage)}, nil
	}
	body = make([]byte, length)
	if _, err := io.ReadFull(s.r, body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, nil, err
	}
	return body, nil, nil
}

// headerMark is what skipToHeader looks for, lower case.
const headerMark = "content-length:"

// skipToHeader discards input up to the next "Content-Length:" (any case),
// wherever it is in a line, and leaves that header line to be read next. It
// holds nothing of what it skips, so an oversized body costs no memory.
func (s *stream) skipToHeader() error {
	matched, skipped := 0, int64(0)
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return err
		}
		skipped++
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		switch {
		case c == headerMark[matched]:
			matched++
		case c == headerMark[0]: // the mark's first byte occurs nowhere else in it
			matched = 1
		default:
			matched = 0
		}
		if matched == len(headerMark) {
			s.log.Printf("skipped %d bytes of an oversized message", skipped-int64(len(headerMark)))
			s.pending = "Content-Length:"
			return nil
		}
	}
}

// readLine reads one header line without its terminator, keeping at most
// maxHeaderLine bytes of it so garbage without newlines cannot exhaust memory.
func (s *stream) readLine() (string, error) {
	var buf []byte
	if s.pending != "" {
		buf, s.pending = []byte(s.pending), ""
	}
	for {
		chunk, err := s.r.ReadSlice('\n')
		if room := maxHeaderLine - len(buf); room > 0 {
			buf = append(buf, chunk[:min(len(chunk), room)]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return "", err
		}
		return strings.TrimRight(string(buf), "\r\n"), nil
	}
}

func isHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		if !(c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// checkMessage validates the shape of one JSON-RPC message, so that what jsonrpc2
// would reject by closing the connection (or misread, like a fractional id) is
// answered with a precise error instead.
func checkMessage(body []byte) *badMessage {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if !json.Valid(trimmed) {
		var x any
		err := json.Unmarshal(trimmed, &x)
		return &badMessage{err: Errorf(jsonrpc2.CodeParseError, "message is not valid JSON: %v", err)}
	}
	switch {
	case len(trimmed) > 0 && trimmed[0] == '[':
		return &badMessage{err: Errorf(jsonrpc2.CodeInvalidRequest, "batch messages are not supported by LSP; send one message per frame")}
	case len(trimmed) == 0 || trimmed[0] != '{':
		return &badMessage{err: Errorf(jsonrpc2.CodeInvalidRequest, "a JSON-RPC message must be a JSON object")}
	}
	var m struct {
		JSONRPC *string         `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(trimmed, &m); err != nil {
		return &badMessage{err: Errorf(jsonrpc2.CodeInvalidRequest, "invalid JSON-RPC message: %v", err)}
	}
	isResponse := m.Method == nil && (m.Result != nil || m.Error != nil)
	var id json.RawMessage
	if len(m.ID) > 0 && string(m.ID) != "null" {
		var s string
		if json.Unmarshal(m.ID, &s) == nil {
			id = m.ID
		} else if n, err := strconv.ParseInt(string(m.ID), 10, 64); err == nil && n >= 0 {
			id = m.ID
		} else {
			return &badMessage{resp: isResponse, err: Errorf(jsonrpc2.CodeInvalidRequest, "id must be a string or a non-negative integer, got %s", truncate(string(m.ID), 30))}
		}
	}
	if m.JSONRPC != nil && *m.JSONRPC != "2.0" {
		return &badMessage{id: id, resp: isResponse, err: Errorf(jsonrpc2.CodeInvalidRequest, "jsonrpc must be \"2.0\", got %q", *m.JSONRPC)}
	}
	if m.Method != nil {
		var method string
		if err := json.Unmarshal(m.Method, &method); err != nil {
			return &badMessage{id: id, err: Errorf(jsonrpc2.CodeInvalidRequest, "method must be a string, got %s", truncate(string(m.Method), 30))}
		}
		if m.Result != nil || m.Error != nil {
			return &badMessage{id: id, err: Errorf(jsonrpc2.CodeInvalidRequest, "a message cannot have both a method and a result or error")}
		}
		return nil
	}
	if !isResponse {
		return &badMessage{id: id, err: Errorf(jsonrpc2.CodeInvalidRequest, "message has neither a method nor a result or error")}
	}
	return nil
}

// idOf digs the id out of a message for an error reply; nil if there is none.
func idOf(body []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &m) != nil || len(m.ID) == 0 || string(m.ID) == "null" {
		return nil
	}
	return m.ID
}

// adapter turns a glsp.Handler into a jsonrpc2.Handler (what glsp's server/handle.go
// does), with panic recovery, LSP error codes, Async results and $/cancelRequest.
type adapter struct {
	h   glsp.Handler
	log *log.Logger

	mu       sync.Mutex
	inflight map[jsonrpc2.ID]context.CancelFunc // Async requests still running
}

func newAdapter(h glsp.Handler, logger *log.Logger) *adapter {
	return &adapter{h: h, log: logger, inflight: map[jsonrpc2.ID]context.CancelFunc{}}
}

func (a *adapter) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if req.Method == string(protocol.MethodCancelRequest) {
		a.cancel(req)
		return
	}
	gctx := &glsp.Context{
		Method: req.Method,
		Notify: func(method string, params any) {
			if err := conn.Notify(ctx, method, params); err != nil {
				a.log.Printf("notify %s: %v", method, err)
			}
		},
		// ctx.Call from a handler would deadlock: the loop it blocks is the one that
		// reads the reply. Refuse loudly instead of hanging; use Server.Call from an
		// Async func or Server.Go.
		Call: func(method string, params any, result any) {
			a.log.Printf("BUG: glsp Context.Call(%q) refused: it deadlocks on the read loop; use Server.Call from Async or Server.Go", method)
		},
	}
	if req.Params != nil {
		gctx.Params = *req.Params
	}

	result, err := a.dispatch(conn, ctx, gctx)

	if req.Method == string(protocol.MethodExit) {
		// Spec: the server exits on exit. Closing the connection ends Serve.
		conn.Close()
		return
	}
	if fn, ok := result.(Async); ok && err == nil {
		a.runAsync(ctx, conn, req, fn)
		return
	}
	a.answer(ctx, conn, req, result, err)
}

// dispatch calls the glsp handler and maps its result to an LSP error, recovering
// from panics so one bad handler cannot take the server down.
func (a *adapter) dispatch(conn *jsonrpc2.Conn, ctx context.Context, gctx *glsp.Context) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			result, err = nil, a.panicked(ctx, conn, gctx.Method, p)
		}
	}()
	r, validMethod, validParams, herr := a.h.Handle(gctx)
	switch {
	case !validMethod:
		return nil, Errorf(jsonrpc2.CodeMethodNotFound, "method not supported: %s", gctx.Method)
	case !validParams:
		msg := "invalid params"
		if herr != nil {
			msg = fmt.Sprintf("invalid params for %s: %v", gctx.Method, herr)
		}
		return nil, Errorf(jsonrpc2.CodeInvalidParams, "%s", msg)
	case herr != nil:
		return nil, toRPCError(herr)
	}
	return r, nil
}

func (a *adapter) runAsync(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request, fn Async) {
	actx, cancel := context.WithCancel(ctx)
	if !req.Notif {
		a.mu.Lock()
		a.inflight[req.ID] = cancel
		a.mu.Unlock()
	}
	go func() {
		defer func() {
			cancel()
			if !req.Notif {
				a.mu.Lock()
				delete(a.inflight, req.ID)
				a.mu.Unlock()
			}
		}()
		result, err := func() (result any, err error) {
			defer func() {
				if p := recover(); p != nil {
					result, err = nil, a.panicked(ctx, conn, req.Method, p)
				}
			}()
			result, err = fn(actx)
			if err != nil {
				err = toRPCError(err)
			}
			return result, err
		}()
		a.answer(ctx, conn, req, result, err)
	}()
}

// cancel handles $/cancelRequest. glsp would decode the id as nil (its
// IntegerOrString.UnmarshalJSON has a value receiver), so we read it ourselves.
func (a *adapter) cancel(req *jsonrpc2.Request) {
	if req.Params == nil {
		return
	}
	var p struct {
		ID jsonrpc2.ID `json:"id"`
	}
	if err := json.Unmarshal(*req.Params, &p); err != nil {
		a.log.Printf("$/cancelRequest: %v", err)
		return
	}
	a.mu.Lock()
	cancel := a.inflight[p.ID]
	a.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func (a *adapter) reply(ctx context.Context, conn *jsonrpc2.Conn, id jsonrpc2.ID, result any, err error) {
	resp := &jsonrpc2.Response{ID: id}
	if err == nil {
		// Encode here rather than in conn.Reply: a result that cannot be encoded must
		// still get an answer, or the client waits forever.
		if data, merr := json.Marshal(result); merr != nil {
			a.log.Printf("cannot encode result for request %s: %v", id, merr)
			err = Errorf(jsonrpc2.CodeInternalError, "internal error: cannot encode result: %v", merr)
		} else {
			raw := json.RawMessage(data)
			resp.Result = &raw
		}
	}
	if err != nil {
		resp.Error = toRPCError(err)
	}
	if err := conn.SendResponse(ctx, resp); err != nil && err != jsonrpc2.ErrClosed {
		a.log.Printf("sending response %s: %v", id, err)
	}
}

// answer ends a request with its reply; a notification has none, so only its
// error is reported (notificationFailed).
func (a *adapter) answer(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request, result any, err error) {
	if req.Notif {
		if err != nil {
			a.notificationFailed(ctx, conn, req.Method, err)
		}
		return
	}
	a.reply(ctx, conn, req.ID, result, err)
}

// notificationFailed reports an error from a notification handler. There is no reply
// to carry it, so it goes to the log (stderr and window/logMessage). Notifications for
// methods we do not handle are dropped quietly when they start with "$/" (spec).
func (a *adapter) notificationFailed(ctx context.Context, conn *jsonrpc2.Conn, method string, err error) {
	if e, ok := err.(*jsonrpc2.Error); ok && e.Code == jsonrpc2.CodeMethodNotFound && strings.HasPrefix(method, "$/") {
		return
	}
	msg := fmt.Sprintf("%s: %s", method, errorMessage(err))
	a.log.Print(msg)
	_ = conn.Notify(ctx, string(protocol.ServerWindowLogMessage), &protocol.LogMessageParams{Type: protocol.MessageTypeError, Message: "mf-lsp: " + msg})
}

// panicked logs a recovered panic with its stack to stderr and window/logMessage and
// returns the InternalError the request is answered with.
func (a *adapter) panicked(ctx context.Context, conn *jsonrpc2.Conn, method string, p any) error {
	stack := debug.Stack()
	a.log.Printf("panic in %s handler: %v\n%s", method, p, stack)
	_ = conn.Notify(ctx, string(protocol.ServerWindowLogMessage), &protocol.LogMessageParams{
		Type:    protocol.MessageTypeError,
		Message: fmt.Sprintf("mf-lsp: internal error in %s: %v\n%s", method, p, stack),
	})
	return Errorf(jsonrpc2.CodeInternalError, "internal error in %s: %v (stack trace in the server log)", method, p)
}

// toRPCError maps a handler error to the JSON-RPC error sent to the client.
func toRPCError(err error) *jsonrpc2.Error {
	var e *jsonrpc2.Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, context.Canceled):
		return Errorf(CodeRequestCancelled, "request cancelled")
	default:
		return Errorf(CodeRequestFailed, "%v", err)
	}
}

func errorMessage(err error) string {
	if e, ok := err.(*jsonrpc2.Error); ok {
		return e.Message
	}
	return err.Error()
}
