package lsp

import (
	"context"
	"time"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/session"
)

// Saving a memory note (docs/protocol.md, "Save"): session.WillSave decides;
// this file sends its edits, and on a conflict publishes the stale-revision
// diagnostic at once and asks with window/showMessageRequest ("Take disk
// version", "Keep mine as next revision", "Compare", "Merge"), applying the
// answer with workspace/applyEdit. magicfrog.resolveConflict gives the same
// answers from a command.

// Exact action titles (docs/protocol.md).
const (
	ActionTakeDisk = session.ActionTakeDisk
	ActionKeepMine = session.ActionKeepMine
)

// willSaveWaitUntil answers with the revision bump of session.WillSave, or on
// a conflict with no edits and the question. A save waits for the note's tree
// when it still loads (beside the read loop, up to saveWait or the client's
// cancel): answered without it, the note would be written without its bump.
func (s *Server) willSaveWaitUntil(p *protocol.WillSaveTextDocumentParams) (any, error) {
	uri := p.TextDocument.URI
	d, open := s.Docs.Get(uri)
	if !open || d.Path == "" {
		return []protocol.TextEdit{}, nil
	}
	return s.whenLoaded(d.Path, saveWait, func() (any, error) { return s.saveEdits(uri), nil }, func() (any, error) {
		s.LogMessage(protocol.MessageTypeWarning, "mf-lsp: memory is still loading: the revision of %s was not bumped", d.Path)
		return []protocol.TextEdit{}, nil
	})
}

// saveWait bounds how long a save waits for its tree to load.
const saveWait = time.Minute

// saveEdits decides the save of the open document uri.
func (s *Server) saveEdits(uri protocol.DocumentUri) []protocol.TextEdit {
	d, open := s.Docs.Get(uri)
	if !open || d.Path == "" {
		return []protocol.TextEdit{}
	}
	dec, err := s.sess.WillSave(d.Path)
	if err != nil {
		s.LogMessage(protocol.MessageTypeWarning, "mf-lsp: %v", err)
		return []protocol.TextEdit{}
	}
	if dec.Conflict != nil {
		s.publishFor(d)
		if dec.Conflict.Ask {
			s.askConflict(uri, dec.Conflict)
		}
		return []protocol.TextEdit{}
	}
	if dec.Recreated != "" {
		s.ShowMessage(protocol.MessageTypeWarning, "mf-lsp: %s", dec.Recreated)
	}
	return textEdits(d.Text, dec.Edits)
}

// textEdits converts byte edits of text to LSP edits; none when one does not map.
func textEdits(text []byte, edits []session.Edit) []protocol.TextEdit {
	out, err := NewMapper(text).TextEdits(edits)
	if err != nil {
		return []protocol.TextEdit{}
	}
	return out
}

// askConflict asks the conflict's question and applies the answer; "Compare"
// shows the disk version and asks again.
func (s *Server) askConflict(uri protocol.DocumentUri, c *session.SaveConflict) {
	s.askConflictAfter(uri, c, 0)
}

// askConflictAfter asks c's question after the user compared n times. Each
// question differs from the one before: VS Code folds a notification equal to
// one still closing into it, and closing the first then closes the second, so
// the question asked again after Compare would vanish.
func (s *Server) askConflictAfter(uri protocol.DocumentUri, c *session.SaveConflict, n int) {
	question := c.Question
	switch {
	case n%2 == 1:
		question += " The disk version is open beside your buffer: choose how to resolve."
	case n > 0:
		question += " The disk version is open beside your buffer again: choose how to resolve."
	}
	s.ShowMessageRequest(protocol.MessageTypeWarning, question, s.conflictActions(c.Actions), func(choice string, err error) {
		if err == nil && choice == ActionCompare && s.sendCompare(uri) {
			s.log.Printf("save conflict on %s: the disk version is shown beside the buffer; asking again", uri)
			s.askConflictAfter(uri, c, n+1) // compared: now choose
			return
		}
		s.sess.Answered(uri)
		if err != nil {
			s.log.Printf("save conflict question for %s: %v", uri, err)
			return
		}
		switch choice {
		case ActionTakeDisk:
			s.resolveTakeDisk(uri)
		case ActionKeepMine:
			s.resolveKeepMine(uri)
		case ActionMerge:
			s.resolveMerge(uri)
		}
	})
}

// conflictActions are the answers this client is offered: Compare only to a
// client that shows magicfrog/compare (one that never opted in would get a
// choice that does nothing).
func (s *Server) conflictActions(actions []string) []string {
	if s.wantsNotification(CompareNotification) {
		return actions
	}
	out := make([]string, 0, len(actions))
	for _, a := range actions {
		if a != ActionCompare {
			out = append(out, a)
		}
	}
	return out
}

// resolutionEdit is the workspace edit of a conflict's resolution.
func resolutionEdit(uri protocol.DocumentUri, r session.Resolution) (protocol.WorkspaceEdit, bool) {
	var edits []protocol.TextEdit
	if r.Edits != nil {
		edits = textEdits(r.Buffer, r.Edits)
		if len(edits) == 0 {
			return protocol.WorkspaceEdit{}, false
		}
	} else {
		end, err := NewMapper(r.Buffer).OffsetPosition(len(r.Buffer))
		if err != nil {
			return protocol.WorkspaceEdit{}, false
		}
		edits = []protocol.TextEdit{{Range: protocol.Range{End: end}, NewText: r.Text}}
	}
	return protocol.WorkspaceEdit{Changes: map[protocol.DocumentUri][]protocol.TextEdit{uri: edits}}, true
}

// TakeDiskEdit is the edit replacing the buffer of uri with the disk version
// (session.TakeDisk).
func (s *Server) TakeDiskEdit(uri protocol.DocumentUri) (protocol.WorkspaceEdit, bool) {
	r, ok := s.sess.TakeDisk(uri)
	if !ok {
		return protocol.WorkspaceEdit{}, false
	}
	return resolutionEdit(uri, r)
}

// KeepMineEdit is the edit making the buffer of uri the next revision after the
// disk's (session.KeepMine), and that revision.
func (s *Server) KeepMineEdit(uri protocol.DocumentUri) (protocol.WorkspaceEdit, int, bool) {
	r, ok := s.sess.KeepMine(uri)
	if !ok {
		return protocol.WorkspaceEdit{}, 0, false
	}
	edit, ok := resolutionEdit(uri, r)
	return edit, r.Revision, ok
}

func (s *Server) resolveTakeDisk(uri protocol.DocumentUri) {
	edit, ok := s.TakeDiskEdit(uri)
	if !ok {
		s.ShowMessage(protocol.MessageTypeWarning, "mf-lsp: there is no disk version of %s to take", uri)
		return
	}
	s.applyEdit(uri, ActionTakeDisk, edit)
}

func (s *Server) resolveKeepMine(uri protocol.DocumentUri) {
	edit, _, ok := s.KeepMineEdit(uri)
	if !ok {
		s.ShowMessage(protocol.MessageTypeWarning, "mf-lsp: cannot set the revision of %s: its frontmatter does not parse", uri)
		return
	}
	// Whether the buffer took the edit decides who writes the revision when
	// the editor's save of the old text lands after the answer: the buffer's
	// next save (it holds the edit), or the server (it does not).
	s.sess.KeepMineApplied(uri, s.applyEdit(uri, ActionKeepMine, edit))
}

// applyEdit sends workspace/applyEdit (from a goroutine beside the read loop) and
// republishes the buffer's diagnostics against its new base. It reports
// whether the client applied the edit.
func (s *Server) applyEdit(uri protocol.DocumentUri, label string, edit protocol.WorkspaceEdit) (applied bool) {
	if d, ok := s.Docs.Get(uri); ok {
		s.publishFor(d)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var res protocol.ApplyWorkspaceEditResponse
	if err := s.Call(ctx, string(protocol.ServerWorkspaceApplyEdit), &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: edit}, &res); err != nil {
		s.LogMessage(protocol.MessageTypeWarning, "mf-lsp: %s: workspace/applyEdit failed: %v", label, err)
		return false
	}
	if !res.Applied {
		reason := "no reason given"
		if res.FailureReason != nil {
			reason = *res.FailureReason
		}
		s.ShowMessage(protocol.MessageTypeWarning, "mf-lsp: %s was not applied by the editor (%s)", label, reason)
	}
	return res.Applied
}

// resolveConflictCommand: magicfrog.resolveConflict {uri, choice} answers a
// save-time conflict the way the question does (save.go): "takeDisk" replaces
// the buffer with the disk version (the agent's, even when the editor's own
// save has since written over it), "keepMine" makes the buffer the next
// revision after the disk's. The edit reaches the client as workspace/applyEdit
// and the buffer is based on the disk version from then on.
func (s *Server) resolveConflictCommand(_ *glsp.Context, a session.ResolveConflictArgs) (any, error) {
	cmd := session.ResolveConflictCmd.Name
	if _, err := argURI(cmd, a.URI); err != nil {
		return nil, err
	}
	if _, open := s.Docs.Get(a.URI); !open {
		return nil, withCause(Errorf(CodeInvalidParams, "%s: %s is not open", cmd, a.URI), &session.NotOpenError{URI: a.URI})
	}
	resolve := map[string]func(string){"takeDisk": s.resolveTakeDisk, "keepMine": s.resolveKeepMine, "merge": s.resolveMerge,
		"compare": func(uri string) { s.sendCompare(uri) }}[a.Choice]
	if resolve == nil {
		return nil, Errorf(CodeInvalidParams, "%s: choice must be \"takeDisk\", \"keepMine\", \"merge\" or \"compare\", got %q", cmd, a.Choice)
	}
	// Off the read loop: the edit is a request to the client, whose reply that
	// loop reads.
	return Async(func(context.Context) (any, error) {
		resolve(a.URI)
		return nil, nil
	}), nil
}
