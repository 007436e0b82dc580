package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/rollup"
	"github.com/magicfrog/mf-lsp/engine/safefs"
	"github.com/magicfrog/mf-lsp/session"
)

// rollupArg is magicfrog.rollup's argument. dimension and scope select journals
// as the CLI's --dimension and --scope do (absent: every journal with files;
// scope "" is a dimension's shared journal).
type rollupArg struct {
	Kind      string  `json:"kind"`
	Period    string  `json:"period"`
	Dimension string  `json:"dimension"`
	Scope     *string `json:"scope"`
}

// rollupCommand: magicfrog.rollup {kind, period, dimension, scope} →
// session.RollupReport. It runs beside the read loop, reports $/progress (the
// request's workDoneToken, else a token the server creates) and stops between
// jobs when the request or the progress is cancelled. Lessons that monthlies
// propose are returned and, per journal, offered to the client as one
// reviewable workspace/applyEdit ("Promote lessons to MEMORY.md") that it may
// accept or reject.
func (s *Server) rollupCommand(ctx *glsp.Context, arg json.RawMessage) (any, error) {
	const cmd = "magicfrog.rollup"
	req, setup, label, err := decodeRollupArg(cmd, arg)
	if err != nil {
		return nil, err
	}
	token := WorkDoneToken(ctx)
	return s.withSnapshot(cmd, "", func(rctx context.Context, snap *session.Snapshot) (any, error) {
		m := snap.Memory
		setup.Summarizer, setup.Today = snap.Settings.Summarizer, snap.Today
		opts, err := session.RollupOptions(m, setup)
		var terr *session.TranscriptsError
		if errors.As(err, &terr) {
			return nil, Errorf(CodeRequestFailed, "%s: %v (.magicfrog/config.json \"transcripts\")", cmd, err)
		}
		if err != nil {
			return nil, Errorf(CodeRequestFailed, "%s: %v", cmd, err)
		}
		jobs, err := rollup.Plan(m, req, opts)
		if err != nil {
			return nil, Errorf(CodeRequestFailed, "%s: %v", cmd, err)
		}
		return s.runRollup(rctx, m, req, opts, s.BeginProgress(token, "mf-lsp: "+label, true), len(jobs))
	}), nil
}

// decodeRollupArg checks magicfrog.rollup's argument: the request its kind
// and period make, the journals it selects, and its progress label.
func decodeRollupArg(cmd string, arg json.RawMessage) (rollup.Request, session.RollupSetup, string, error) {
	var a rollupArg
	setup := session.RollupSetup{Timeout: rollup.DefaultTimeout}
	if err := DecodeArg(cmd, arg, &a); err != nil {
		return rollup.Request{}, setup, "", err
	}
	if a.Kind == "" {
		return rollup.Request{}, setup, "", MissingArg(cmd, "kind")
	}
	words := []string{a.Kind}
	switch a.Kind {
	case "due":
		if a.Period != "" {
			return rollup.Request{}, setup, "", Errorf(CodeInvalidParams, "%s: kind \"due\" takes no period", cmd)
		}
	case "day", "week", "month":
		if a.Period == "" {
			return rollup.Request{}, setup, "", MissingArg(cmd, "period")
		}
		words = append(words, a.Period)
	default:
		return rollup.Request{}, setup, "", Errorf(CodeInvalidParams, "%s: argument \"kind\" must be day, week, month or due, got %q", cmd, a.Kind)
	}
	req, err := rollup.ParseRequest(words)
	if err != nil {
		return rollup.Request{}, setup, "", Errorf(CodeInvalidParams, "%s: %v", cmd, err)
	}
	if a.Dimension != "" {
		if setup.Dimension, err = engine.ParseDimension(a.Dimension); err != nil {
			return rollup.Request{}, setup, "", Errorf(CodeInvalidParams, "%s: argument \"dimension\": %v", cmd, err)
		}
	}
	if a.Scope != nil {
		if err := engine.CheckOwnerID(*a.Scope); err != nil {
			return rollup.Request{}, setup, "", Errorf(CodeInvalidParams, "%s: argument \"scope\": %v", cmd, err)
		}
	}
	setup.Owner = a.Scope
	return req, setup, "rollup " + strings.Join(words, " "), nil
}

// runRollup runs the planned jobs (total of them), reporting each on p, and
// stops between jobs when ctx or the progress is cancelled.
func (s *Server) runRollup(ctx context.Context, m *engine.Memory, req rollup.Request, opts rollup.Options, p *Progress, total int) (any, error) {
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		select {
		case <-p.Context().Done():
			stop()
		case <-runCtx.Done():
		}
	}()
	p.Report(fmt.Sprintf("%d job(s) planned", total), 0)
	done := 0
	report, outs, err := session.RunRollup(runCtx, m, req, opts, func(_ rollup.Outcome, step session.RollupStep) {
		done++
		pct := 100
		if total > 0 {
			pct = done * 100 / max(total, done)
		}
		p.Report(fmt.Sprintf("%s %s (%d/%d)", step.Verb, step.Ref, done, max(total, done)), pct)
	})
	if len(report.Written) > 0 {
		s.memoryChanged()
	}
	if err != nil {
		p.End("failed: " + err.Error())
		return nil, err
	}
	if runCtx.Err() != nil {
		p.End("cancelled")
		return nil, context.Canceled
	}
	p.End(report.Summary())
	s.offerLessons(m, outs)
	return report, nil
}

// offerLessons sends, per journal whose monthlies proposed lessons, a
// workspace/applyEdit adding them to its MEMORY.md (session.LessonsEdits). The
// edit carries a change annotation that needs confirmation, so clients that
// support it show it for review first. It runs on its own goroutine: the
// command's result does not wait for the user.
func (s *Server) offerLessons(m *engine.Memory, outs []rollup.Outcome) {
	edits, errs := session.LessonsEdits(m, outs)
	for _, err := range errs {
		s.LogMessage(protocol.MessageTypeWarning, "mf-lsp: %v", err)
	}
	for _, jl := range edits {
		edit, err := s.lessonsEdit(jl.Edit)
		if err != nil {
			s.LogMessage(protocol.MessageTypeWarning, "mf-lsp: %v", session.LessonsError(jl.Journal, err))
			continue
		}
		label := "Promote lessons to MEMORY.md"
		s.Go("applyEdit lessons", func(ctx context.Context) {
			var res protocol.ApplyWorkspaceEditResponse
			if err := s.Call(ctx, string(protocol.ServerWorkspaceApplyEdit), map[string]any{"label": label, "edit": edit}, &res); err != nil {
				s.log.Printf("%s: %v", label, err)
			}
		})
	}
}

// lessonsEdit turns a LessonsEdit into a WorkspaceEdit: one insertion into the
// existing MEMORY.md (at its byte offset, mapped on the current file), or the
// creation of the file with its whole content.
func (s *Server) lessonsEdit(le rollup.LessonsEdit) (map[string]any, error) {
	uri := string(session.PathToURI(le.Path))
	annotation := map[string]any{"lessons": map[string]any{
		"label": "Promote lessons to MEMORY.md", "needsConfirmation": true,
		"description": strings.Join(le.Added, "\n"),
	}}
	if le.Exists {
		src, err := safefs.ReadFile(le.Path, engine.MaxNoteSize)
		if err != nil {
			return nil, err
		}
		if d, open := s.Docs.Get(uri); open && string(d.Text) != string(src) {
			return nil, fmt.Errorf("%s has unsaved changes; save it and run the rollup again to review the lessons", le.Path)
		}
		pos, err := NewMapper(src).OffsetPosition(le.Offset)
		if err != nil {
			return nil, err
		}
		rng := protocol.Range{Start: pos, End: pos}
		if !s.supportsDocumentChanges() {
			return map[string]any{"changes": map[string]any{uri: []protocol.TextEdit{{Range: rng, NewText: le.Insert}}}}, nil
		}
		return map[string]any{
			"documentChanges": []any{map[string]any{
				"textDocument": map[string]any{"uri": uri, "version": nil},
				"edits":        []any{map[string]any{"range": rng, "newText": le.Insert, "annotationId": "lessons"}},
			}},
			"changeAnnotations": annotation,
		}, nil
	}
	if !s.supportsResourceOp("create") {
		return nil, fmt.Errorf("%s does not exist and the editor cannot create files in an edit; run `mf-lsp rollup --promote` instead", le.Path)
	}
	zero := protocol.Position{}
	return map[string]any{
		"documentChanges": []any{
			map[string]any{"kind": "create", "uri": uri, "options": map[string]any{"ignoreIfExists": true}, "annotationId": "lessons"},
			map[string]any{
				"textDocument": map[string]any{"uri": uri, "version": nil},
				"edits":        []any{map[string]any{"range": protocol.Range{Start: zero, End: zero}, "newText": string(le.Content), "annotationId": "lessons"}},
			},
		},
		"changeAnnotations": annotation,
	}, nil
}

// supportsDocumentChanges reports whether the client takes WorkspaceEdit.documentChanges.
func (s *Server) supportsDocumentChanges() bool {
	caps := s.ClientCapabilities()
	return caps.Workspace != nil && caps.Workspace.WorkspaceEdit != nil &&
		caps.Workspace.WorkspaceEdit.DocumentChanges != nil && *caps.Workspace.WorkspaceEdit.DocumentChanges
}

// supportsResourceOp reports whether the client applies documentChanges with the
// resource operation op ("create", "rename", "delete").
func (s *Server) supportsResourceOp(op string) bool {
	caps := s.ClientCapabilities()
	if caps.Workspace == nil || caps.Workspace.WorkspaceEdit == nil {
		return false
	}
	if !s.supportsDocumentChanges() {
		return false
	}
	for _, k := range caps.Workspace.WorkspaceEdit.ResourceOperations {
		if string(k) == op {
			return true
		}
	}
	return false
}
