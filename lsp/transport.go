package lsp

// The transport: lsp/internal/jsonrpc carries the messages (framing, dispatch,
// cancellation, Async replies, a bounded outgoing queue; its package documentation
// says what runs where); this file adapts glsp's handler to it. We skip glsp's own
// server package (it pulls a dozen logging modules and hard-wires stdio).
//
// For handlers the rule is: be quick, and never wait for the client on the read loop.
// Slow work returns Async; requests to the client (workDoneProgress/create,
// showMessageRequest, applyEdit, showDocument) go through Server.Call from an Async
// func or Server.Go.

import (
	"context"
	"encoding/json"
	"errors"
	"io"

	"github.com/magicfrog/mf-lsp/engine/errcode"
	"github.com/magicfrog/mf-lsp/lsp/internal/jsonrpc"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// CodedError is a command's failure as RequestFailed, "CMD: message", with
// the error's errcode details (errcode.DataOf) as the JSON-RPC error's data,
// so a client decides on data.code, never on the message. An error that is
// no errcode.Coded is RequestFailed without data.
func CodedError(cmd string, err error) *jsonrpc.Error {
	e := Errorf(CodeRequestFailed, "%s: %v", cmd, err)
	if d, ok := errcode.DataOf(err); ok {
		e.Data, _ = json.Marshal(d)
	}
	return e
}

// JSON-RPC and LSP error codes a handler may answer with (via Errorf).
const (
	CodeParseError           = jsonrpc.CodeParseError
	CodeInvalidRequest       = jsonrpc.CodeInvalidRequest
	CodeMethodNotFound       = jsonrpc.CodeMethodNotFound
	CodeInvalidParams        = jsonrpc.CodeInvalidParams
	CodeInternalError        = jsonrpc.CodeInternalError
	CodeServerNotInitialized = jsonrpc.CodeServerNotInitialized
	CodeUnknownError         = jsonrpc.CodeUnknownError
	CodeRequestFailed        = jsonrpc.CodeRequestFailed
	CodeRequestCancelled     = jsonrpc.CodeRequestCancelled
	CodeContentModified      = jsonrpc.CodeContentModified
)

// DefaultMaxMessageBytes is the default of Options.MaxMessageBytes.
const DefaultMaxMessageBytes = jsonrpc.DefaultMaxMessageBytes

// Errorf returns a JSON-RPC error with the given code. A handler that returns one has it
// sent to the client as is; any other error is sent as RequestFailed with its message.
// The first error among args is its cause (jsonrpc.Error.Cause): a command's
// failure sends the cause's errcode data (commandError), so a message built
// from an engine error keeps the engine's code.
func Errorf(code int64, format string, args ...any) *jsonrpc.Error {
	e := jsonrpc.Errorf(code, format, args...)
	for _, a := range args {
		if err, ok := a.(error); ok {
			e.Cause = err
			break
		}
	}
	return e
}

// Async is a request result computed beside the read loop: the func runs in its own
// goroutine with a context that is cancelled by $/cancelRequest or when the
// connection closes, and its result is the reply. Take what it needs from the
// document store before returning (snapshots): later edits are applied concurrently.
type Async = jsonrpc.Async

// newConn makes the connection Serve runs: limits from the options, failures the
// client gets no reply for shown in its log.
func (s *Server) newConn(ctx context.Context, rwc io.ReadWriteCloser) *jsonrpc.Conn {
	return jsonrpc.NewConn(ctx, rwc, jsonrpc.Options{
		MaxMessageBytes: s.opts.MaxMessageBytes,
		Log:             s.log,
		Report: func(msg string) {
			s.Notify(string(protocol.ServerWindowLogMessage), &protocol.LogMessageParams{Type: protocol.MessageTypeError, Message: "mf-lsp: " + msg})
		},
	})
}

// glspHandler turns a glsp.Handler into the connection's handler (what glsp's
// server/handle.go does), mapping glsp's "invalid method/params" to their JSON-RPC
// errors and ending the connection on exit.
func glspHandler(h glsp.Handler, conn *jsonrpc.Conn, logf func(string, ...any)) jsonrpc.Handler {
	notify := func(method string, params any) {
		if err := conn.Notify(method, params); err != nil && !errors.Is(err, jsonrpc.ErrClosed) {
			logf("notify %s: %v", method, err)
		}
	}
	return func(_ context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method == string(protocol.MethodExit) {
			// Spec: the server exits on exit. Closing the connection ends Serve.
			defer conn.Close()
		}
		ctx := &glsp.Context{
			Method: req.Method,
			Params: req.Params,
			Notify: notify,
			// ctx.Call from a handler would deadlock: the loop it blocks is the one
			// that reads the reply. Refuse loudly instead of hanging; use Server.Call
			// from an Async func or Server.Go.
			Call: func(method string, params any, result any) {
				logf("BUG: glsp Context.Call(%q) refused: it deadlocks on the read loop; use Server.Call from Async or Server.Go", method)
			},
		}
		result, validMethod, validParams, err := h.Handle(ctx)
		switch {
		case !validMethod:
			return nil, Errorf(CodeMethodNotFound, "method not supported: %s", req.Method)
		case !validParams && err != nil:
			return nil, Errorf(CodeInvalidParams, "invalid params for %s: %v", req.Method, err)
		case !validParams:
			return nil, Errorf(CodeInvalidParams, "invalid params")
		}
		return result, err
	}
}
