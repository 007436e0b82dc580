package lsp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/session"
)

// rollupCommand: magicfrog.rollup {kind, period, dimension, scope} →
// session.RollupReport. It runs beside the read loop, reports $/progress (the
// request's workDoneToken, else a token the server creates) and stops between
// jobs when the request or the progress is cancelled. Lessons that monthlies
// propose are returned and, per journal, offered to the client as one
// reviewable workspace/applyEdit ("Promote lessons to MEMORY.md") that it may
// accept or reject.
func (s *Server) rollupCommand(ctx *glsp.Context, a session.RollupRequest) (any, error) {
	cmd := session.RollupCmd.Name
	req, setup, label, err := a.Parse()
	if err != nil {
		return nil, Errorf(CodeInvalidParams, "%s: %v", cmd, err)
	}
	token := WorkDoneToken(ctx)
	return s.withSnapshot(cmd, "", func(rctx context.Context, snap *session.Snapshot) (any, error) {
		plan, err := session.PlanRollup(snap, req, setup)
		var terr *session.TranscriptsError
		if errors.As(err, &terr) {
			return nil, Errorf(CodeRequestFailed, "%s: %v (.magicfrog/config.json \"transcripts\")", cmd, err)
		}
		if err != nil {
			return nil, Errorf(CodeRequestFailed, "%s: %v", cmd, err)
		}
		return s.runRollup(rctx, plan, s.BeginProgress(token, "mf-lsp: "+label, true))
	}), nil
}

// runRollup runs the planned jobs, reporting each on p, and stops between
// jobs when ctx or the progress is cancelled.
func (s *Server) runRollup(ctx context.Context, plan *session.RollupPlan, p *Progress) (any, error) {
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		select {
		case <-p.Context().Done():
			stop()
		case <-runCtx.Done():
		}
	}()
	total := plan.Jobs
	p.Report(fmt.Sprintf("%d job(s) planned", total), 0)
	done := 0
	run, err := plan.Run(runCtx, func(step session.RollupStep) {
		done++
		pct := 100
		if total > 0 {
			pct = done * 100 / max(total, done)
		}
		p.Report(fmt.Sprintf("%s %s (%d/%d)", step.Verb, step.Ref, done, max(total, done)), pct)
	})
	report := run.Report
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
	s.offerLessons(run)
	return report, nil
}

// offerLessons sends, per journal whose monthlies proposed lessons, a
// workspace/applyEdit adding them to its MEMORY.md (session.LessonsEdits). The
// edit carries a change annotation that needs confirmation, so clients that
// support it show it for review first. It runs on its own goroutine: the
// command's result does not wait for the user.
func (s *Server) offerLessons(run *session.RollupRun) {
	edits, errs := run.Lessons()
	for _, err := range errs {
		s.LogMessage(protocol.MessageTypeWarning, "mf-lsp: %v", err)
	}
	for _, jl := range edits {
		edit, err := s.lessonsEdit(jl)
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

// lessonsEdit turns a journal's lessons edit into a WorkspaceEdit: one
// insertion into the existing MEMORY.md (at its byte offset, mapped on the
// current file), or the creation of the file with its whole content.
func (s *Server) lessonsEdit(jl session.JournalLessons) (map[string]any, error) {
	le := jl.Edit
	uri := string(session.PathToURI(le.Path))
	annotation := map[string]any{"lessons": map[string]any{
		"label": "Promote lessons to MEMORY.md", "needsConfirmation": true,
		"description": strings.Join(le.Added, "\n"),
	}}
	if le.Exists {
		src, err := s.sess.LessonsSource(le.Path)
		if err != nil {
			return nil, err
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
