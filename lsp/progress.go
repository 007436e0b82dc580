package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// Progress reports one long-running operation to the client with $/progress (LSP
// work-done progress). All methods return at once and are safe on the read loop: the
// messages are sent, in order, by a goroutine, after that goroutine has created the
// token with window/workDoneProgress/create (a request to the client, which must not
// be waited for on the loop). A client without work-done progress support gets
// nothing, silently.
type Progress struct {
	s      *Server
	ctx    context.Context
	cancel context.CancelFunc

	mu    sync.Mutex
	queue []any
	ended bool
	wake  chan struct{}
}

// WorkDoneToken returns the workDoneToken of a request's params, or nil. Read it from
// the raw params: glsp decodes progress tokens as nil.
func WorkDoneToken(ctx *glsp.Context) json.RawMessage {
	var p struct {
		Token json.RawMessage `json:"workDoneToken"`
	}
	if decodeParams(ctx, &p) != nil || len(p.Token) == 0 || string(p.Token) == "null" {
		return nil
	}
	return p.Token
}

// BeginProgress starts a progress report titled title. token is the client's
// workDoneToken for the request (WorkDoneToken(ctx)), or nil to create one. If
// cancellable, the client may show a cancel button; Context() is done when the user
// presses it or the connection ends. End must be called.
func (s *Server) BeginProgress(token json.RawMessage, title string, cancellable bool) *Progress {
	ctx, cancel := context.WithCancel(context.Background())
	p := &Progress{s: s, ctx: ctx, cancel: cancel, wake: make(chan struct{}, 1)}
	p.push(&protocol.WorkDoneProgressBegin{Kind: "begin", Title: title, Cancellable: &cancellable})
	caps := s.ClientCapabilities()
	supported := caps.Window != nil && caps.Window.WorkDoneProgress != nil && *caps.Window.WorkDoneProgress
	s.Go("progress "+title, func(conn context.Context) {
		if token == nil {
			if !supported {
				return
			}
			tok, _ := json.Marshal(fmt.Sprintf("mf-lsp/progress/%d", s.seq.Add(1)))
			if err := s.Call(conn, string(protocol.ServerWindowWorkDoneProgressCreate), map[string]json.RawMessage{"token": tok}, nil); err != nil {
				s.log.Printf("progress %q: window/workDoneProgress/create: %v", title, err)
				return
			}
			token = tok
		}
		key := string(token)
		s.mu.Lock()
		s.progress[key] = p
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			delete(s.progress, key)
			s.mu.Unlock()
		}()
		for {
			select {
			case <-p.wake:
			case <-conn.Done():
				cancel()
				return
			}
			p.mu.Lock()
			batch, ended := p.queue, p.ended
			p.queue = nil
			p.mu.Unlock()
			for _, v := range batch {
				s.Notify(string(protocol.MethodProgress), map[string]any{"token": token, "value": v})
			}
			if ended {
				return
			}
		}
	})
	return p
}

// Report updates the message and, when percentage is in 0..100, the percentage.
func (p *Progress) Report(message string, percentage int) {
	r := &protocol.WorkDoneProgressReport{Kind: "report", Message: &message}
	if percentage >= 0 && percentage <= 100 {
		u := protocol.UInteger(percentage)
		r.Percentage = &u
	}
	p.push(r)
}

// End finishes the report with a final message. Later calls do nothing.
func (p *Progress) End(message string) {
	p.mu.Lock()
	if !p.ended {
		p.queue = append(p.queue, &protocol.WorkDoneProgressEnd{Kind: "end", Message: &message})
		p.ended = true
	}
	p.mu.Unlock()
	p.signal()
}

// Context is done when the user cancels the operation in the client.
func (p *Progress) Context() context.Context { return p.ctx }

func (p *Progress) push(v any) {
	p.mu.Lock()
	if !p.ended {
		p.queue = append(p.queue, v)
	}
	p.mu.Unlock()
	p.signal()
}

func (p *Progress) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// progressCancel handles window/workDoneProgress/cancel from raw params (glsp decodes
// the token as nil).
func (s *Server) progressCancel(ctx *glsp.Context) (any, error) {
	var params struct {
		Token json.RawMessage `json:"token"`
	}
	if err := decodeParams(ctx, &params); err != nil {
		return nil, err
	}
	s.mu.Lock()
	p := s.progress[string(params.Token)]
	s.mu.Unlock()
	if p != nil {
		p.cancel()
	}
	return nil, nil
}
