package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Error codes of JSON-RPC 2.0 and of the LSP base protocol (LSP 3.16 §Response
// Message; RequestFailed is 3.17 but harmless to older clients, which show any code's
// message).
const (
	CodeParseError           = -32700
	CodeInvalidRequest       = -32600
	CodeMethodNotFound       = -32601
	CodeInvalidParams        = -32602
	CodeInternalError        = -32603
	CodeServerNotInitialized = -32002
	CodeUnknownError         = -32001
	CodeRequestFailed        = -32803
	CodeRequestCancelled     = -32800
	CodeContentModified      = -32801
)

// Error is a JSON-RPC error object. A handler that returns one has it sent as is; any
// other error is sent as RequestFailed with its message (context.Canceled as
// RequestCancelled).
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
	// Cause is the error the message was made from, never sent: errors.As
	// and errors.Is look through an Error to it (Unwrap).
	Cause error `json:"-"`
}

// Unwrap returns Cause.
func (e *Error) Unwrap() error { return e.Cause }

// Errorf returns an Error with the given code and a formatted message.
func Errorf(code int64, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func (e *Error) Error() string { return fmt.Sprintf("jsonrpc: code %d: %s", e.Code, e.Message) }

// ID identifies a request: a string or a non-negative integer (LSP's integer | string).
type ID struct {
	Num      int64
	Str      string
	IsString bool
}

func (id ID) String() string {
	if id.IsString {
		return strconv.Quote(id.Str)
	}
	return strconv.FormatInt(id.Num, 10)
}

func (id ID) MarshalJSON() ([]byte, error) {
	if id.IsString {
		return json.Marshal(id.Str)
	}
	return strconv.AppendInt(nil, id.Num, 10), nil
}

// parseID reads an id as the peer wrote it; ok is false for anything but a string or
// a non-negative integer (a fractional id, an object).
func parseID(raw json.RawMessage) (id ID, ok bool) {
	if len(raw) > 0 && raw[0] == '"' {
		if json.Unmarshal(raw, &id.Str) != nil {
			return ID{}, false
		}
		id.IsString = true
		return id, true
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || n < 0 {
		return ID{}, false
	}
	return ID{Num: n}, true
}

// Request is a request or notification from the peer.
type Request struct {
	ID     *ID // nil for a notification
	Method string
	// Params are the params as sent: nil when absent, "null" when null.
	Params json.RawMessage
}

// message is one decoded incoming message: a request, a notification or a response.
type message struct {
	Request
	isResponse bool
	result     json.RawMessage // a response's result; nil when absent
	err        *Error          // a response's error
}

// badMessage is a problem with one incoming message that does not end the connection.
type badMessage struct {
	id   *ID  // nil: reply with id null
	resp bool // a response from the peer: log only, never reply
	err  *Error
}

// wireMessage holds every member a JSON-RPC message may have, undecoded, so that one
// decode of the frame serves both the checks and the dispatch.
type wireMessage struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// decodeMessage decodes one frame's body and checks its shape, so that what is not a
// JSON-RPC message is answered with a precise error. A member that is present as null
// counts as present (json.RawMessage keeps "null"), except for id: null there means
// no id.
func decodeMessage(body []byte) (*message, *badMessage) {
	var w wireMessage
	if err := json.Unmarshal(body, &w); err != nil {
		var syntax *json.SyntaxError
		trimmed := bytes.TrimLeft(body, " \t\r\n")
		switch {
		case errors.As(err, &syntax):
			return nil, &badMessage{err: Errorf(CodeParseError, "message is not valid JSON: %v", err)}
		case len(trimmed) > 0 && trimmed[0] == '[':
			return nil, &badMessage{err: Errorf(CodeInvalidRequest, "batch messages are not supported by LSP; send one message per frame")}
		case len(trimmed) == 0 || trimmed[0] != '{':
			return nil, &badMessage{err: Errorf(CodeInvalidRequest, "a JSON-RPC message must be a JSON object")}
		}
		return nil, &badMessage{err: Errorf(CodeInvalidRequest, "invalid JSON-RPC message: %v", err)}
	}
	m := &message{isResponse: w.Method == nil && (w.Result != nil || w.Error != nil)}
	if len(w.ID) > 0 && string(w.ID) != "null" {
		id, ok := parseID(w.ID)
		if !ok {
			return nil, &badMessage{resp: m.isResponse, err: Errorf(CodeInvalidRequest, "id must be a string or a non-negative integer, got %s", truncate(string(w.ID), 30))}
		}
		m.ID = &id
	}
	if w.JSONRPC != nil && string(w.JSONRPC) != "null" {
		var version string
		if json.Unmarshal(w.JSONRPC, &version) != nil || version != "2.0" {
			return nil, &badMessage{id: m.ID, resp: m.isResponse, err: Errorf(CodeInvalidRequest, "jsonrpc must be \"2.0\", got %s", truncate(string(w.JSONRPC), 30))}
		}
	}
	switch {
	case w.Method != nil:
		if json.Unmarshal(w.Method, &m.Method) != nil {
			return nil, &badMessage{id: m.ID, err: Errorf(CodeInvalidRequest, "method must be a string, got %s", truncate(string(w.Method), 30))}
		}
		if w.Result != nil || w.Error != nil {
			return nil, &badMessage{id: m.ID, err: Errorf(CodeInvalidRequest, "a message cannot have both a method and a result or error")}
		}
		m.Params = w.Params
	case m.isResponse:
		m.result = w.Result
		if w.Error != nil && string(w.Error) != "null" {
			if err := json.Unmarshal(w.Error, &m.err); err != nil {
				return nil, &badMessage{id: m.ID, resp: true, err: Errorf(CodeInvalidRequest, "invalid error object in response: %v", err)}
			}
		}
	default:
		return nil, &badMessage{id: m.ID, err: Errorf(CodeInvalidRequest, "message has neither a method nor a result or error")}
	}
	return m, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Outgoing messages. Each is encoded once, its envelope by one encode (json.Marshal's
// bytes, in a pooled buffer).
type (
	outRequest struct {
		JSONRPC string `json:"jsonrpc"`
		ID      *ID    `json:"id,omitempty"` // nil: a notification
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"` // a nil interface omits params
	}
	resultResponse struct {
		JSONRPC string `json:"jsonrpc"`
		ID      *ID    `json:"id"`
		Result  any    `json:"result"` // nil is sent as null: success needs a result
	}
	errorResponse struct {
		JSONRPC string `json:"jsonrpc"`
		ID      *ID    `json:"id"` // nil: null, the id could not be read
		Error   *Error `json:"error"`
	}
)
