package lsp

import (
	"context"
	"fmt"
	"runtime/debug"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// Talking to the client: notifications, requests and the messages the user
// sees, from the read loop or beside it.

// Notify sends a notification to the client. Safe from any goroutine, including
// handlers on the read loop (sending does not wait for the client).
func (s *Server) Notify(method string, params any) {
	s.mu.Lock()
	notify, conn := s.notify, s.conn
	s.mu.Unlock()
	switch {
	case notify != nil:
		notify(method, params)
	case conn != nil:
		// Before initialized only logMessage/showMessage/$/progress should be sent;
		// that is the caller's business, not worth a queue here.
		if err := conn.Notify(method, params); err != nil {
			s.log.Printf("notify %s: %v", method, err)
		}
	default:
		s.log.Printf("notify %s dropped: not connected", method)
	}
}

// Call sends a request to the client and waits for its reply. NEVER call it from a
// handler running on the read loop (it deadlocks: the reply is read by that loop);
// call it from an Async func or a Server.Go goroutine.
func (s *Server) Call(ctx context.Context, method string, params, result any) error {
	s.mu.Lock()
	conn := s.conn
	s.mu.Unlock()
	if conn == nil {
		return fmt.Errorf("call %s: not connected", method)
	}
	return conn.Call(ctx, method, params, result)
}

// Go runs fn beside the read loop, with a context that ends with the connection, and
// recovers (and logs) a panic in it. Use it for work that must talk to the client.
func (s *Server) Go(name string, fn func(ctx context.Context)) {
	s.mu.Lock()
	conn := s.conn
	s.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer cancel()
		defer func() {
			if p := recover(); p != nil {
				s.log.Printf("panic in %s: %v\n%s", name, p, debug.Stack())
				s.LogMessage(protocol.MessageTypeError, "internal error in %s: %v", name, p)
			}
		}()
		if conn != nil {
			go func() {
				select {
				case <-conn.Done():
					cancel()
				case <-ctx.Done():
				}
			}()
		}
		fn(ctx)
	}()
}

// LogMessage logs to stderr and to the client's output panel (window/logMessage).
func (s *Server) LogMessage(typ protocol.MessageType, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.log.Print(msg)
	s.Notify(string(protocol.ServerWindowLogMessage), &protocol.LogMessageParams{Type: typ, Message: msg})
}

// ShowMessage pops a message up in the client (window/showMessage) and logs it.
func (s *Server) ShowMessage(typ protocol.MessageType, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.log.Print(msg)
	s.Notify(string(protocol.ServerWindowShowMessage), &protocol.ShowMessageParams{Type: typ, Message: msg})
}

// ShowMessageRequest asks the user to pick one of actions (window/showMessageRequest).
// It returns at once and may be called from a handler: the request runs beside the
// read loop and then calls then(choice, err) there; choice is "" when the user
// dismissed the message. then runs on its own goroutine: lock what it touches.
func (s *Server) ShowMessageRequest(typ protocol.MessageType, message string, actions []string, then func(choice string, err error)) {
	items := make([]protocol.MessageActionItem, len(actions))
	for i, a := range actions {
		items[i] = protocol.MessageActionItem{Title: a}
	}
	s.Go("showMessageRequest", func(ctx context.Context) {
		var picked *protocol.MessageActionItem
		err := s.Call(ctx, string(protocol.ServerWindowShowMessageRequest),
			&protocol.ShowMessageRequestParams{Type: typ, Message: message, Actions: items}, &picked)
		choice := ""
		if picked != nil {
			choice = picked.Title
		}
		if then != nil {
			then(choice, err)
		}
	})
}

// PublishDiagnostics sends the diagnostics of one document. A nil slice is sent as []
// (glsp would send null, which clients reject), clearing the document's diagnostics.
func (s *Server) PublishDiagnostics(uri protocol.DocumentUri, version *int32, diags []protocol.Diagnostic) {
	if diags == nil {
		diags = []protocol.Diagnostic{}
	}
	var v *protocol.UInteger
	if version != nil && *version >= 0 {
		u := protocol.UInteger(*version)
		v = &u
	}
	s.Notify(string(protocol.ServerTextDocumentPublishDiagnostics), &protocol.PublishDiagnosticsParams{URI: uri, Version: v, Diagnostics: diags})
}
