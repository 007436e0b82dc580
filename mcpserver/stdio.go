package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxMessage is the largest JSON-RPC message the stdio transport reads. It is
// well above the largest note (engine.MaxNoteSize) so that an oversized body
// is read and refused as a tool error; a longer line is answered with an
// error and skipped without being held.
const MaxMessage = 64 << 20

// MaxDepth is how deeply a message's arrays and objects may nest. The SDK
// refuses more than 1000 levels by ending the session; no MCP message needs
// more than a handful.
const MaxDepth = 512

// JSON-RPC 2.0's error codes for a line that is not a request.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// Stdio is the stdio transport over r and w (os.Stdin, os.Stdout), reading
// messages up to MaxMessage (the SDK's own frame limit, a little above, is
// never reached).
//
// The SDK's transport ends the session on the first line it cannot take as
// a JSON-RPC 2.0 message ([], null, a batch, "jsonrpc":"1.0", an object id,
// invalid UTF-8, JSON nested past its limit), without a reply. So every line
// passes a filter first (lineFilter): a malformed one is answered here with
// a JSON-RPC error — -32700 when it is not JSON (or not UTF-8, or nested
// deeper than MaxDepth), -32600 when it is JSON but not one message — with
// the request's id when one could be read, else null, and the session goes
// on. Blank lines are skipped. Only well-formed lines reach the SDK.
func Stdio(r io.Reader, w io.Writer) mcp.Transport {
	pend := &inFlight{ids: map[string]bool{}}
	out := &lockedWriter{w: w, pend: pend}
	return &mcp.IOTransport{Reader: io.NopCloser(&lineFilter{r: bufio.NewReaderSize(r, 64<<10), out: out, pend: pend, max: MaxMessage}), Writer: out, MaxLineLength: MaxMessage + 64<<10}
}

// drainTimeout is how long, once its input has ended, the stdio transport
// waits for the answers to the requests it passed on before the session
// ends: `printf '…' | mf-lsp mcp` gets every answer.
var drainTimeout = 30 * time.Second

// lockedWriter serializes whole writes: the SDK writes each message with one
// Write, and the filter's replies must not land inside one. It marks the
// requests answered.
type lockedWriter struct {
	mu   sync.Mutex
	w    io.Writer
	pend *inFlight
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	n, err := l.w.Write(p)
	l.mu.Unlock()
	if t := bytes.TrimLeft(p, " \t"); len(t) > 0 && t[0] == '{' {
		if m := members(t); m["method"] == nil && m["id"] != nil {
			l.pend.done(m["id"])
		}
	}
	return n, err
}

// inFlight are the ids of the requests passed on to the SDK and not yet
// answered.
type inFlight struct {
	mu   sync.Mutex
	ids  map[string]bool
	idle chan struct{} // closed when ids becomes empty; nil while empty
}

// idKey is an id as the SDK writes it back: a string's value, a number as
// an integer.
func idKey(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	if f, ok := v.(float64); ok {
		return fmt.Sprintf("n%d", int64(f))
	}
	return fmt.Sprintf("s%v", v)
}

func (p *inFlight) add(id json.RawMessage) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.ids) == 0 {
		p.idle = make(chan struct{})
	}
	p.ids[idKey(id)] = true
}

func (p *inFlight) done(id json.RawMessage) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := idKey(id)
	if !p.ids[k] {
		return
	}
	delete(p.ids, k)
	if len(p.ids) == 0 {
		close(p.idle)
		p.idle = nil
	}
}

// wait returns when every request passed on is answered, or after d.
func (p *inFlight) wait(d time.Duration) {
	p.mu.Lock()
	idle := p.idle
	p.mu.Unlock()
	if idle == nil {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	}
}

func (*lockedWriter) Close() error { return nil }

// lineFilter reads newline-delimited messages and hands on only those the
// SDK can take, answering the others (see Stdio).
type lineFilter struct {
	r       *bufio.Reader
	out     io.Writer
	pending []byte // the rest of the current good line, with its newline
	err     error  // the read error after the current line
	pend    *inFlight
	max     int // the longest line passed on: MaxMessage
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			// The input ended: let the SDK answer what it was given first
			// (it drops requests still running when its read ends).
			f.pend.wait(drainTimeout)
			return 0, f.err
		}
		line, tooLong, err := f.readLine()
		f.err = err
		switch {
		case tooLong:
			f.reply(nil, codeInvalidRequest, fmt.Sprintf("Invalid Request: message larger than %d bytes: not read", f.max))
		case len(bytes.TrimSpace(line)) == 0:
		default:
			id, code, msg := checkMessage(line)
			if code != 0 {
				f.reply(id, code, msg)
				continue
			}
			if id != nil {
				f.pend.add(id)
			}
			f.pending = append(line, '\n')
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// readLine returns the next line without its line end. A line longer than
// f.max is read to its end and dropped (tooLong), never held whole.
func (f *lineFilter) readLine() (line []byte, tooLong bool, err error) {
	for {
		chunk, err := f.r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > f.max+2 { // room for "\r\n"
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) > f.max {
			tooLong, line = true, nil
		}
		return line, tooLong, err
	}
}

// reply writes a JSON-RPC error response; id nil is null.
func (f *lineFilter) reply(id json.RawMessage, code int, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	if err != nil {
		return
	}
	_, _ = f.out.Write(append(b, '\n'))
}

// checkMessage says whether line is one JSON-RPC 2.0 message the SDK reads
// without failing (code 0), else the error to answer and the request's id
// when it has a readable one. Its checks are the SDK's decoding rules
// (go-sdk internal/jsonrpc2.DecodeMessage): "jsonrpc" exactly "2.0", an id
// that is a string, a number or null, a string method, or for a response a
// non-null id and an error object.
func checkMessage(line []byte) (id json.RawMessage, code int, message string) {
	if !utf8.Valid(line) {
		return nil, codeParseError, "Parse error: the message is not UTF-8"
	}
	if deeperThan(line, MaxDepth) {
		return nil, codeParseError, fmt.Sprintf("Parse error: the message nests arrays and objects deeper than %d levels", MaxDepth)
	}
	if !json.Valid(line) {
		return nil, codeParseError, "Parse error: the line is not one JSON value (one message per line)"
	}
	switch bytes.TrimLeft(line, " \t")[0] {
	case '{':
	case '[':
		return nil, codeInvalidRequest, "Invalid Request: batches are not supported (MCP has no JSON-RPC batching since 2025-06-18); send one message per line"
	default:
		return nil, codeInvalidRequest, "Invalid Request: a JSON-RPC message is a JSON object"
	}
	m := members(line)
	rawID, hasID := m["id"]
	validID := !hasID || isNull(rawID) || rawID[0] == '"' || func() bool {
		var n float64 // the SDK's id numbers
		return json.Unmarshal(rawID, &n) == nil
	}()
	method, isRequest := m["method"]
	if isRequest && validID && hasID && !isNull(rawID) {
		id = rawID
	}
	switch {
	case !validID:
		return nil, codeInvalidRequest, "Invalid Request: id must be a string, a number or null, got " + truncate(rawID)
	case string(m["jsonrpc"]) != `"2.0"`:
		return id, codeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0", got ` + truncate(m["jsonrpc"])
	case isRequest && method[0] != '"':
		return id, codeInvalidRequest, "Invalid Request: method must be a string, got " + truncate(method)
	case isRequest:
		return id, 0, ""
	case !hasID || isNull(rawID):
		return nil, codeInvalidRequest, "Invalid Request: a message needs a method (a request or notification) or an id (a response)"
	}
	if e, ok := m["error"]; ok && !isNull(e) {
		var we struct {
			Code    int64           `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(e, &we); err != nil {
			return nil, codeInvalidRequest, "Invalid Request: the response's error is not an error object: " + err.Error()
		}
	}
	return nil, 0, ""
}

func isNull(raw json.RawMessage) bool { return string(raw) == "null" }

// truncate shows at most 40 bytes of a member's JSON in a message.
func truncate(raw json.RawMessage) string {
	if raw == nil {
		return "nothing"
	}
	if len(raw) > 40 {
		return string(raw[:40]) + "…"
	}
	return string(raw)
}

// deeperThan reports whether JSON text b nests arrays and objects more than
// max levels, skipping strings; one pass, before any decoder sees it.
func deeperThan(b []byte, max int) bool {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			i = stringEnd(b, i) - 1
		case '[', '{':
			if depth++; depth > max {
				return true
			}
		case ']', '}':
			depth--
		}
	}
	return false
}

// members are the top-level members of a JSON object that json.Valid has
// accepted, each value as its raw text (a later duplicate wins, as in the
// SDK's decoder). One pass that decodes nothing but the keys: a 50 MB
// memory_write is not decoded twice.
func members(b []byte) map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	i := bytes.IndexByte(b, '{') + 1
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return m // '}': the end
		}
		kEnd := stringEnd(b, i)
		var key string
		if raw := b[i:kEnd]; bytes.IndexByte(raw, '\\') < 0 {
			key = string(raw[1 : len(raw)-1])
		} else if json.Unmarshal(raw, &key) != nil {
			return m
		}
		i = skipSpace(b, kEnd) + 1 // the ':'
		i = skipSpace(b, i)
		vEnd := valueEnd(b, i)
		m[key] = b[i:vEnd]
		i = skipSpace(b, vEnd) + 1 // the ',' or the '}'
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the index after the string that starts at b[i] ('"'): the
// next quote not escaped, that is, not after an odd run of backslashes.
func stringEnd(b []byte, i int) int {
	for i++; ; i++ {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b)
		}
		i += j
		n := 0
		for k := i - 1; k >= 0 && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return i + 1
		}
	}
}

// valueEnd is the index after the JSON value that starts at b[i].
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = stringEnd(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}
