package lsp

import (
	"context"
	"fmt"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/engine/errcode"
	"github.com/magicfrog/mf-lsp/session"
)

// The read-only commands of docs/protocol.md: magicfrog.render,
// magicfrog.effectiveView, magicfrog.describe and magicfrog.showEntry. Every
// command runs Async: memory may still be loading (withSnapshot waits for it)
// and the read loop must never wait.

// checkRender refuses a render argument session.RenderRequest.Check refuses.
func checkRender(cmd string, r session.RenderRequest) error {
	if err := r.Check(); err != nil {
		return Errorf(CodeInvalidParams, "%s: %v", cmd, err)
	}
	return nil
}

// renderFailed answers a failed render or effective view; several agents and
// none chosen carries code several-agents and the agents as data.choices
// (CodedError), which the editors answer by asking which agent.
func renderFailed(cmd string, err error) error {
	if errcode.Of(err) == errcode.SeveralAgents {
		return CodedError(cmd, err)
	}
	return err
}

// renderCommand: magicfrog.render {task, agents, machine, budget, previous} → the
// <memory> block, or with details a preview's answer (session.Preview).
func (s *Server) renderCommand(_ *glsp.Context, a session.RenderRequest) (any, error) {
	cmd := session.RenderCmd.Name
	if err := checkRender(cmd, a); err != nil {
		return nil, err
	}
	return s.withSnapshot(cmd, "", func(_ context.Context, snap *session.Snapshot) (any, error) {
		out, err := session.Render(snap, a)
		if err != nil {
			return nil, renderFailed(cmd, err)
		}
		return out, nil
	}), nil
}

// effectiveViewCommand: magicfrog.effectiveView {task, agents, machine} →
// session.EffectiveView.
func (s *Server) effectiveViewCommand(_ *glsp.Context, a session.ScopeRequest) (any, error) {
	cmd := session.EffectiveViewCmd.Name
	return s.withSnapshot(cmd, "", func(_ context.Context, snap *session.Snapshot) (any, error) {
		v, err := session.View(snap, a)
		if err != nil {
			return nil, renderFailed(cmd, err)
		}
		return v, nil
	}), nil
}

// describeCommand: magicfrog.describe {uri} → session.Description.
// An open buffer is described as it is in the editor.
func (s *Server) describeCommand(_ *glsp.Context, a session.NoteArgs) (any, error) {
	cmd := session.DescribeCmd.Name
	path, err := argURI(cmd, a.URI)
	if err != nil {
		return nil, err
	}
	return s.withSnapshot(cmd, path, func(_ context.Context, snap *session.Snapshot) (any, error) {
		if snap.Note == nil {
			return nil, withCause(Errorf(CodeInvalidParams, "%s: %s is not a memory note", cmd, a.URI), session.ErrNotNote)
		}
		return session.Describe(snap.Memory, snap.Note, snap.Participant), nil
	}), nil
}

// showEntryCommand: magicfrog.showEntry {uri} asks the client to open the note
// (window/showDocument, takeFocus). Returns {"success": bool}. A client
// without window/showDocument gets the note's Location instead ({"success":
// false, "uri", "range"}) and a message naming its path: what every client can
// show (docs/protocol.md).
func (s *Server) showEntryCommand(_ *glsp.Context, a session.NoteArgs) (any, error) {
	cmd := session.ShowEntryCmd.Name
	if _, err := argURI(cmd, a.URI); err != nil {
		return nil, err
	}
	if !s.supportsShowDocument() {
		s.ShowMessage(protocol.MessageTypeInfo, "mf-lsp: the note is %s (this editor does not open documents for the server)", pathOf(a.URI))
		return session.ShowEntryResult{URI: a.URI, Range: &session.LineRange{}}, nil
	}
	return Async(func(ctx context.Context) (any, error) {
		ok, err := s.showDocument(ctx, a.URI)
		if err != nil {
			return nil, err
		}
		return session.ShowEntryResult{Success: ok}, nil
	}), nil
}

// showDocument sends window/showDocument. Never call it on the read loop.
func (s *Server) showDocument(ctx context.Context, uri string) (bool, error) {
	if !s.supportsShowDocument() {
		return false, Errorf(CodeRequestFailed, "the editor does not support window/showDocument; open %s yourself", uri)
	}
	yes := true
	var res protocol.ShowDocumentResult
	if err := s.Call(ctx, string(protocol.ServerWindowShowDocument), &protocol.ShowDocumentParams{URI: uri, TakeFocus: &yes}, &res); err != nil {
		return false, fmt.Errorf("window/showDocument %s: %w", uri, err)
	}
	return res.Success, nil
}
