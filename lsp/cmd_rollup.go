package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/rollup"
	"github.com/magicfrog/mf-lsp/engine/safefs"
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

type rollupFailure struct {
	Ref   string `json:"ref"`
	Error string `json:"error"`
}

type rollupLesson struct {
	URI  string `json:"uri"` // the monthly that proposes it
	Text string `json:"text"`
}

// rollupCommand: magicfrog.rollup {kind, period, dimension, scope}. It runs
// beside the read loop, reports $/progress (the request's workDoneToken, else a
// token the server creates) and stops between jobs when the request or the
// progress is cancelled. Lessons that monthlies propose are returned and, per
// journal, offered to the client as one reviewable workspace/applyEdit
// ("Promote lessons to MEMORY.md") that it may accept or reject.
func (s *Server) rollupCommand(ctx *glsp.Context, arg json.RawMessage) (any, error) {
	const cmd = "magicfrog.rollup"
	var a rollupArg
	if err := DecodeArg(cmd, arg, &a); err != nil {
		return nil, err
	}
	if a.Kind == "" {
		return nil, MissingArg(cmd, "kind")
	}
	words := []string{a.Kind}
	switch a.Kind {
	case "due":
		if a.Period != "" {
			return nil, Errorf(CodeInvalidParams, "%s: kind \"due\" takes no period", cmd)
		}
	case "day", "week", "month":
		if a.Period == "" {
			return nil, MissingArg(cmd, "period")
		}
		words = append(words, a.Period)
	default:
		return nil, Errorf(CodeInvalidParams, "%s: argument \"kind\" must be day, week, month or due, got %q", cmd, a.Kind)
	}
	req, err := rollup.ParseRequest(words)
	if err != nil {
		return nil, Errorf(CodeInvalidParams, "%s: %v", cmd, err)
	}
	var dim engine.Dimension
	if a.Dimension != "" {
		if dim, err = engine.ParseDimension(a.Dimension); err != nil {
			return nil, Errorf(CodeInvalidParams, "%s: argument \"dimension\": %v", cmd, err)
		}
	}
	if a.Scope != nil {
		if err := engine.CheckOwnerID(*a.Scope); err != nil {
			return nil, Errorf(CodeInvalidParams, "%s: argument \"scope\": %v", cmd, err)
		}
	}
	token := WorkDoneToken(ctx)
	label := "rollup " + strings.Join(words, " ")
	return Async(func(rctx context.Context) (any, error) {
		m, err := s.memoryNow()
		if err != nil {
			return nil, err
		}
		if _, err := rollup.FractalLayer(m); err != nil {
			return nil, Errorf(CodeRequestFailed, "%s: %v", cmd, err)
		}
		st := s.Settings()
		summ, err := rollup.Resolve(rollup.DefaultTimeout, st.Summarizer, m.Binding().Summarizer)
		if err != nil {
			return nil, Errorf(CodeRequestFailed, "%s: %v", cmd, err)
		}
		opts := rollup.Options{Dimension: dim, Today: s.Today(), Summarizer: summ}
		// The project's transcript folder feeds day refines here too, or a
		// refine written by the scheduled job would look stale in the editor.
		if tdir, err := rollup.TranscriptsDir("", m.Binding().Transcripts, m.Paths.ProjectDir); err != nil {
			return nil, Errorf(CodeRequestFailed, "%s: %v", cmd, err)
		} else if tdir != "" {
			if opts.Transcripts, err = rollup.LoadTranscripts(tdir, time.Local); err != nil {
				return nil, Errorf(CodeRequestFailed, "%s: %v (.magicfrog/config.json \"transcripts\")", cmd, err)
			}
		}
		if a.Scope != nil {
			opts.Owner, opts.OwnerSet = *a.Scope, true
		}
		jobs, err := rollup.Plan(m, req, opts)
		if err != nil {
			return nil, Errorf(CodeRequestFailed, "%s: %v", cmd, err)
		}
		p := s.BeginProgress(token, "mf-lsp: "+label, true)
		runCtx, stop := context.WithCancel(rctx)
		defer stop()
		go func() {
			select {
			case <-p.Context().Done():
				stop()
			case <-runCtx.Done():
			}
		}()
		total := len(jobs)
		p.Report(fmt.Sprintf("%d job(s) planned", total), 0)
		out := struct {
			Written  []string        `json:"written"`
			UpToDate int             `json:"upToDate"`
			Failed   []rollupFailure `json:"failed"`
			Lessons  []rollupLesson  `json:"lessons"`
		}{Written: []string{}, Failed: []rollupFailure{}, Lessons: []rollupLesson{}}
		done := 0
		outs, err := rollup.RunPlan(runCtx, m, req, opts, func(o rollup.Outcome) {
			done++
			ref := o.Job.Journal.String() + o.Job.Output
			verb := "written"
			switch {
			case o.Err != nil:
				verb = "failed"
				out.Failed = append(out.Failed, rollupFailure{Ref: ref, Error: o.Err.Error()})
			case o.Status == rollup.UpToDate:
				verb = "up to date"
				out.UpToDate++
			default:
				out.Written = append(out.Written, string(PathToURI(o.Path)))
			}
			for _, l := range o.Lessons {
				out.Lessons = append(out.Lessons, rollupLesson{URI: string(PathToURI(o.Path)), Text: l})
			}
			pct := 100
			if total > 0 {
				pct = done * 100 / max(total, done)
			}
			p.Report(fmt.Sprintf("%s %s (%d/%d)", verb, ref, done, max(total, done)), pct)
		})
		if len(out.Written) > 0 {
			s.memoryChanged(m)
		}
		if err != nil {
			p.End("failed: " + err.Error())
			return nil, err
		}
		if runCtx.Err() != nil {
			p.End("cancelled")
			return nil, context.Canceled
		}
		p.End(fmt.Sprintf("%d written, %d up to date, %d failed", len(out.Written), out.UpToDate, len(out.Failed)))
		s.offerLessons(m, outs)
		return out, nil
	}), nil
}

// offerLessons sends, per journal whose monthlies proposed lessons, a
// workspace/applyEdit adding them to its MEMORY.md (rollup.PlanLessons). The
// edit carries a change annotation that needs confirmation, so clients that
// support it show it for review first. It runs on its own goroutine: the
// command's result does not wait for the user.
func (s *Server) offerLessons(m *engine.Memory, outs []rollup.Outcome) {
	type group struct {
		j       rollup.Journal
		lessons []string
	}
	var groups []*group
	byJournal := map[string]*group{}
	for _, o := range outs {
		if o.Err != nil || len(o.Lessons) == 0 {
			continue
		}
		k := o.Job.Journal.String()
		g := byJournal[k]
		if g == nil {
			g = &group{j: o.Job.Journal}
			byJournal[k] = g
			groups = append(groups, g)
		}
		g.lessons = append(g.lessons, o.Lessons...)
	}
	for _, g := range groups {
		le, err := rollup.PlanLessons(m, g.j, g.lessons)
		if err != nil {
			s.LogMessage(protocol.MessageTypeWarning, "mf-lsp: lessons for %s: %v", g.j, err)
			continue
		}
		if len(le.Added) == 0 {
			continue
		}
		edit, err := s.lessonsEdit(le)
		if err != nil {
			s.LogMessage(protocol.MessageTypeWarning, "mf-lsp: lessons for %s: %v", g.j, err)
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
	uri := string(PathToURI(le.Path))
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
