package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// within fails the test when done is not closed before the deadline: a hang is a
// failure, never a stuck test run.
func within(t *testing.T, what string, done <-chan struct{}) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: no result within 10 s", what)
	}
}

// reply is a response as the peer reads it.
type reply struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *Error          `json:"error"`
}

// peer is the other end of a connection under test: it writes raw frames and reads
// what the connection sends, message by message.
type peer struct {
	t    *testing.T
	conn net.Conn
	in   *reader
	msgs chan reply
}

// serve runs a Conn with handler h over net.Pipe and returns the peer end. The
// connection is closed, and Run awaited, when the test ends.
func serve(t *testing.T, opts Options, h Handler) (*Conn, *peer) {
	t.Helper()
	if opts.Log == nil {
		opts.Log = log.New(io.Discard, "", 0)
	}
	srv, cli := net.Pipe()
	c := NewConn(context.Background(), srv, opts)
	ran := make(chan struct{})
	go func() { c.Run(h); close(ran) }()
	p := &peer{t: t, conn: cli, in: newReader(cli, 1<<30, opts.Log), msgs: make(chan reply, 100)}
	go p.readAll()
	t.Cleanup(func() {
		cli.Close()
		within(t, "Run after the peer hung up", ran)
	})
	return c, p
}

func (p *peer) readAll() {
	defer close(p.msgs)
	for {
		body, bad, err := p.in.readFrame()
		if err != nil {
			return
		}
		var r reply
		if bad != nil || json.Unmarshal(body, &r) != nil {
			p.t.Errorf("the connection sent a bad frame: %v %q", bad, body)
			return
		}
		p.msgs <- r
	}
}

// send writes one framed message; write writes raw bytes.
func (p *peer) send(body string) { p.t.Helper(); p.write(frame(body)) }

func (p *peer) write(raw string) {
	p.t.Helper()
	if _, err := io.WriteString(p.conn, raw); err != nil {
		p.t.Fatal(err)
	}
}

// next returns the next message the connection sent.
func (p *peer) next() reply {
	p.t.Helper()
	select {
	case r, ok := <-p.msgs:
		if !ok {
			p.t.Fatal("the connection closed")
		}
		return r
	case <-time.After(10 * time.Second):
		p.t.Fatal("no message within 10 s")
	}
	return reply{}
}

// echo answers "echo" with its params and fails everything else as unknown.
func echo(_ context.Context, req *Request) (any, error) {
	if req.Method == "echo" {
		return req.Params, nil
	}
	return nil, Errorf(CodeMethodNotFound, "no %s", req.Method)
}

// alive checks the connection still answers a request.
func (p *peer) alive() {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":"alive","method":"echo","params":[1]}`)
	if r := p.next(); string(r.ID) != `"alive"` || string(r.Result) != "[1]" {
		p.t.Fatalf("after that, echo answered %+v", r)
	}
}

func TestRepliesCarryTheRequestID(t *testing.T) {
	_, p := serve(t, Options{}, echo)
	for _, id := range []string{`0`, `42`, `"abc"`, `"7"`} {
		p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"echo","params":{"x":1}}`)
		r := p.next()
		if string(r.ID) != id || string(r.Result) != `{"x":1}` || r.Error != nil {
			t.Errorf("id %s answered %+v", id, r)
		}
	}
	p.send(`{"jsonrpc":"2.0","id":1,"method":"nope"}`)
	if r := p.next(); r.Error == nil || r.Error.Code != CodeMethodNotFound || r.Result != nil {
		t.Errorf("error reply %+v; want MethodNotFound and no result", r)
	}
}

func TestMalformedMessagesAreAnswered(t *testing.T) {
	_, p := serve(t, Options{}, echo)
	defer func() { p.t = t }()
	for _, tc := range []struct {
		name, raw string
		code      int64
		id        string // the id the reply carries
	}{
		{"not JSON", frame(`{"jsonrpc":"2.0","id":1,"method":`), CodeParseError, "null"},
		{"empty body", frame(``), CodeParseError, "null"},
		{"not an object", frame(`42`), CodeInvalidRequest, "null"},
		{"batch", frame(`[{"jsonrpc":"2.0","id":1,"method":"echo"}]`), CodeInvalidRequest, "null"},
		{"method not a string", frame(`{"jsonrpc":"2.0","id":"m1","method":7}`), CodeInvalidRequest, `"m1"`},
		{"fractional id", frame(`{"jsonrpc":"2.0","id":1.5,"method":"echo"}`), CodeInvalidRequest, "null"},
		{"negative id", frame(`{"jsonrpc":"2.0","id":-1,"method":"echo"}`), CodeInvalidRequest, "null"},
		{"wrong jsonrpc", frame(`{"jsonrpc":"1.0","id":"m2","method":"echo"}`), CodeInvalidRequest, `"m2"`},
		{"method and result", frame(`{"jsonrpc":"2.0","id":"m3","method":"echo","result":1}`), CodeInvalidRequest, `"m3"`},
		{"neither request nor response", frame(`{"jsonrpc":"2.0","id":"m4"}`), CodeInvalidRequest, `"m4"`},
		{"no Content-Length", "Content-Type: application/json\r\n\r\n", CodeParseError, "null"},
		{"bad Content-Length", "Content-Length: ten\r\n\r\n", CodeParseError, "null"},
		{"junk before header", "garbage!" + frame(`{"jsonrpc":"2.0","id":"m5","method":7}`), CodeInvalidRequest, `"m5"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p.t = t
			p.write(tc.raw)
			r := p.next()
			if string(r.ID) != tc.id || r.Error == nil || r.Error.Code != tc.code || r.Error.Message == "" {
				t.Errorf("reply %+v (error %+v); want id %s, code %d with a message", r, r.Error, tc.id, tc.code)
			}
			p.alive()
		})
	}
}

// A frame over the limit is answered at once and skipped up to the next header,
// however large its announced length: the body is neither buffered nor waited for.
func TestOversizedFramesAreSkipped(t *testing.T) {
	_, p := serve(t, Options{MaxMessageBytes: 1 << 10}, echo)
	for _, raw := range []string{
		frame(`{"jsonrpc":"2.0","method":"echo","params":"` + strings.Repeat("x", 4<<10) + `"}`),
		"Content-Length: 9223372036854775807\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"",
	} {
		p.write(raw)
		r := p.next()
		if string(r.ID) != "null" || r.Error == nil || r.Error.Code != CodeInvalidRequest || !strings.Contains(r.Error.Message, "exceeds the limit") {
			t.Errorf("oversized frame answered %+v (error %+v)", r, r.Error)
		}
		p.alive()
	}
}

// Responses from the peer are never answered, even bad ones.
func TestBadResponsesAreNotAnswered(t *testing.T) {
	_, p := serve(t, Options{}, echo)
	p.send(`{"jsonrpc":"2.0","id":1.5,"result":1}`)
	p.send(`{"jsonrpc":"2.0","id":99,"result":1}`) // no such call
	p.send(`{"jsonrpc":"2.0","id":3,"error":5}`)
	p.alive() // the first message the peer gets is alive's reply
}

func TestPanicIsAnsweredInternalError(t *testing.T) {
	var mu sync.Mutex
	var reports []string
	report := func(msg string) { mu.Lock(); reports = append(reports, msg); mu.Unlock() }
	_, p := serve(t, Options{Report: report}, func(ctx context.Context, req *Request) (any, error) {
		if req.Method == "boom" {
			var m map[string]int
			m["boom"]++ // nil map write: a real bug, not a test-only panic() call
		}
		return echo(ctx, req)
	})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"boom"}`)
	r := p.next()
	if r.Error == nil || r.Error.Code != CodeInternalError || !strings.Contains(r.Error.Message, "boom") {
		t.Errorf("panicking handler answered %+v (error %+v); want InternalError naming the method", r, r.Error)
	}
	p.alive()
	mu.Lock()
	defer mu.Unlock()
	if len(reports) != 1 || !strings.Contains(reports[0], "assignment to entry in nil map") || !strings.Contains(reports[0], "conn_test.go") {
		t.Errorf("reported %q; want the panic with its stack", reports)
	}
}

// A notification has no reply: its handler's error is reported instead, except for
// unknown "$/" notifications, which the base protocol lets a server ignore.
func TestNotificationErrorsAreReported(t *testing.T) {
	reports := make(chan string, 10)
	_, p := serve(t, Options{Report: func(msg string) { reports <- msg }}, echo)
	p.send(`{"jsonrpc":"2.0","method":"$/optional"}`)
	p.send(`{"jsonrpc":"2.0","method":"missing"}`)
	p.alive()
	select {
	case msg := <-reports:
		if msg != "missing: no missing" {
			t.Errorf("reported %q; want the failed notification", msg)
		}
	default:
		t.Error("the failed notification was not reported")
	}
	if len(reports) != 0 {
		t.Errorf("reported more: %q", <-reports)
	}
}

func TestUnencodableResultIsAnswered(t *testing.T) {
	_, p := serve(t, Options{}, func(context.Context, *Request) (any, error) { return make(chan int), nil })
	p.send(`{"jsonrpc":"2.0","id":1,"method":"x"}`)
	if r := p.next(); r.Error == nil || r.Error.Code != CodeInternalError || string(r.ID) != "1" {
		t.Errorf("unencodable result answered %+v (error %+v); want InternalError", r, r.Error)
	}
}

// An Async request runs beside the loop, which reads on; $/cancelRequest cancels its
// context and a func that gives up with ctx.Err() is answered RequestCancelled.
func TestAsyncRequestCanBeCancelled(t *testing.T) {
	started := make(chan struct{})
	_, p := serve(t, Options{}, func(ctx context.Context, req *Request) (any, error) {
		if req.Method != "slow" {
			return echo(ctx, req)
		}
		return Async(func(ctx context.Context) (any, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		}), nil
	})
	p.send(`{"jsonrpc":"2.0","id":"slow1","method":"slow"}`)
	within(t, "the Async func to start", started)
	p.alive() // the loop is free while the request runs
	p.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"slow1"}}`)
	if r := p.next(); string(r.ID) != `"slow1"` || r.Error == nil || r.Error.Code != CodeRequestCancelled {
		t.Errorf("cancelled request answered %+v (error %+v); want RequestCancelled", r, r.Error)
	}
}

// Call sends a request to the peer and waits for its reply; it is made from a
// goroutine beside the loop, since the loop reads the reply.
func TestCallGetsThePeersReply(t *testing.T) {
	c, p := serve(t, Options{}, echo)
	type result struct {
		got string
		err error
	}
	results := make(chan result, 2)
	call := func() {
		var got string
		err := c.Call(context.Background(), "ask", map[string]int{"n": 1}, &got)
		results <- result{got, err}
	}
	go call()
	req := p.next()
	if req.Method != "ask" || string(req.Params) != `{"n":1}` || len(req.ID) == 0 {
		t.Fatalf("call sent %+v", req)
	}
	p.send(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":"yes"}`)
	if r := <-results; r.err != nil || r.got != "yes" {
		t.Errorf("call returned %q, %v; want yes", r.got, r.err)
	}
	go call()
	req = p.next()
	p.send(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"error":{"code":-32000,"message":"no"}}`)
	r := <-results
	var e *Error
	if !errors.As(r.err, &e) || e.Code != -32000 || e.Message != "no" {
		t.Errorf("call answered with an error returned %v; want that *Error", r.err)
	}
}

// Close lets what is queued reach the peer, then ends Run; calls still waiting
// return ErrClosed.
func TestCloseFlushesAndEndsCalls(t *testing.T) {
	c, p := serve(t, Options{}, func(ctx context.Context, req *Request) (any, error) { return nil, nil })
	callErr := make(chan error, 1)
	go func() { callErr <- c.Call(context.Background(), "never answered", nil, nil) }()
	if r := p.next(); r.Method != "never answered" {
		t.Fatalf("got %+v", r)
	}
	if err := c.Notify("last words", nil); err != nil {
		t.Fatal(err)
	}
	go c.Close()
	if r := p.next(); r.Method != "last words" || r.Params != nil {
		t.Errorf("after Close the peer got %+v; want the queued notification, without params", r)
	}
	if err := <-callErr; !errors.Is(err, ErrClosed) {
		t.Errorf("waiting call returned %v; want ErrClosed", err)
	}
	within(t, "Done after Close", c.Done())
	if err := c.Notify("too late", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Notify after Close: %v; want ErrClosed", err)
	}
}

// A peer that never reads while the server pushes: the outgoing queue stays within its
// bound, the send that would go over fails with ErrPeerNotReading, and the connection
// closes, all without waiting on the peer.
func TestPeerThatStopsReading(t *testing.T) {
	const limit = 64 << 10
	srv, cli := net.Pipe() // writes block until the peer reads, and it never does
	defer cli.Close()
	c := NewConn(context.Background(), srv, Options{MaxQueueBytes: limit, Log: log.New(io.Discard, "", 0)})
	ran := make(chan error, 1)
	go func() { ran <- c.Run(echo) }()

	params := map[string]string{"text": strings.Repeat("x", 1000)}
	var sendErr error
	pushed := make(chan struct{})
	go func() {
		defer close(pushed)
		for i := 0; i < 10*limit/1000; i++ {
			if sendErr = c.Notify("window/logMessage", params); sendErr != nil {
				return
			}
			if q := c.out.queued(); q > limit {
				t.Errorf("after %d notifications %d bytes are queued; the limit is %d", i+1, q, limit)
				return
			}
		}
	}()
	within(t, "pushing to a peer that does not read", pushed)
	if !errors.Is(sendErr, ErrPeerNotReading) || !strings.Contains(sendErr.Error(), "limit of 65536 bytes") {
		t.Fatalf("pushing ended with %v; want ErrPeerNotReading naming the limit", sendErr)
	}
	within(t, "Done after the queue overflowed", c.Done())
	select {
	case err := <-ran:
		if !errors.Is(err, ErrPeerNotReading) {
			t.Errorf("Run returned %v; want ErrPeerNotReading", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after the queue overflowed")
	}
	if err := c.Notify("more", nil); err == nil {
		t.Error("a send after the overflow succeeded")
	}
}

// stdinLike is a transport whose Close does not interrupt a pending read, as with
// stdin; what is written goes to out.
type stdinLike struct {
	*io.PipeReader
	out io.Writer
}

func (s stdinLike) Write(p []byte) (int, error) { return s.out.Write(p) }
func (s stdinLike) Close() error                { return nil }

// Closing from a handler (LSP's exit) ends Run although the peer keeps its end open
// and the read cannot be interrupted.
func TestRunEndsAtCloseWhileReadBlocks(t *testing.T) {
	in, feed := io.Pipe()
	defer feed.Close()
	c := NewConn(context.Background(), stdinLike{in, io.Discard}, Options{Log: log.New(io.Discard, "", 0)})
	ran := make(chan struct{})
	go func() { c.Run(func(context.Context, *Request) (any, error) { c.Close(); return nil, nil }); close(ran) }()
	if _, err := io.WriteString(feed, frame(`{"jsonrpc":"2.0","method":"exit"}`)); err != nil {
		t.Fatal(err)
	}
	within(t, "Run after Close, with the input still open", ran)
}

// fixedInput reads a fixed input, throws writes away and closes as a no-op.
type fixedInput struct{ io.Reader }

func (fixedInput) Write(p []byte) (int, error) { return len(p), nil }
func (fixedInput) Close() error                { return nil }

// FuzzConn runs a connection over any input: whatever the messages (responses to no
// call, cancels of anything, Async handlers, panics), it never crashes and Run ends
// at the end of input.
func FuzzConn(f *testing.F) {
	for _, s := range []string{
		frame(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{}}`),
		frame(`{"jsonrpc":"2.0","id":"a","method":"slow"}`) + frame(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"a"}}`),
		frame(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":7}`) + frame(`{"jsonrpc":"2.0","method":"$/cancelRequest"}`),
		frame(`{"jsonrpc":"2.0","id":0,"result":null}`) + frame(`{"jsonrpc":"2.0","id":0,"error":{"code":1,"message":"x"}}`),
		frame(`{"jsonrpc":"2.0","id":2,"method":"boom"}`) + frame(`{"jsonrpc":"2.0","method":"boom"}`),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		c := NewConn(context.Background(), fixedInput{bytes.NewReader(in)}, Options{Log: log.New(io.Discard, "", 0)})
		c.Run(func(ctx context.Context, req *Request) (any, error) {
			switch req.Method {
			case "boom":
				panic("boom")
			case "slow":
				return Async(func(ctx context.Context) (any, error) { <-ctx.Done(); return nil, ctx.Err() }), nil
			}
			return echo(ctx, req)
		})
	})
}

// A client sees the responses that answer none of its calls through
// Options.Unmatched, and writes malformed input with WriteRaw, in order with
// what else it sends.
func TestUnmatchedResponsesAndRawWrites(t *testing.T) {
	type got struct {
		id     string
		result string
		code   int64
	}
	seen := make(chan got, 3)
	opts := Options{Unmatched: func(id *ID, result json.RawMessage, err *Error) {
		g := got{id: idString(id), result: string(result)}
		if err != nil {
			g.code = err.Code
		}
		seen <- g
	}}
	c, p := serve(t, opts, echo)
	p.send(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}`)
	p.send(`{"jsonrpc":"2.0","id":"r1","result":[2]}`)
	p.send(`{"jsonrpc":"2.0","id":99,"result":3}`)
	want := []got{{"null", "", -32700}, {`"r1"`, "[2]", 0}, {"99", "3", 0}}
	for _, w := range want {
		select {
		case g := <-seen:
			if g != w {
				t.Errorf("unmatched response %+v; want %+v", g, w)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no unmatched response %+v", w)
		}
	}
	if err := c.Notify("one", nil); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteRaw([]byte(frame(`{"jsonrpc":"2.0","method":"raw"}`))); err != nil {
		t.Fatal(err)
	}
	if err := c.Notify("two", nil); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"one", "raw", "two"} {
		if r := p.next(); r.Method != m {
			t.Errorf("sent %+v; want method %s", r, m)
		}
	}
	p.alive()
}
