package lsp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/diagnostics"
	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
	"github.com/magicfrog/mf-lsp/session"
)

// Code actions (textDocument/codeAction):
//
//   - quick fixes (kind quickfix) for the diagnostics of docs/diagnostics.md
//     that have one, each attached to the diagnostic it fixes. Frontmatter fixes
//     are text edits of the buffer computed by frontmatter.SetFields (every
//     other byte stays) and converted by the note's Mapper; fixes that touch the
//     disk or other files are commands (magicfrog.promote, magicfrog.rollup,
//     magicfrog.registerAgent, magicfrog.showEntry) or file operations
//     (rename, create) when the client supports them;
//   - promotions (kind refactor.move) of every note on disk: up the chain and
//     into the skills layer, as magicfrog.promote commands, revision-checked
//     when they run.
//
// The findings are computed again from the buffer rather than taken from the
// request's diagnostics (a client may drop their data): a fix is offered for
// every finding on the requested lines, and for every finding whose code the
// request's diagnostics name.

// The kinds of the promotion actions and of the rollup actions on journal files.
const (
	KindRefactorMove protocol.CodeActionKind = session.KindRefactorMove
	KindSourceRollup protocol.CodeActionKind = session.KindSourceRollup
)

type codeActionParams struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
	Range   protocol.Range `json:"range"`
	Context struct {
		Diagnostics []struct {
			Range protocol.Range  `json:"range"`
			Code  json.RawMessage `json:"code"`
		} `json:"diagnostics"`
		Only []string `json:"only"`
	} `json:"context"`
}

// codeAction answers textDocument/codeAction. glsp's decoded params lose the
// diagnostics' codes, so the raw params are read.
func (s *Server) codeAction(ctx *glsp.Context, _ *protocol.CodeActionParams) (any, error) {
	var p codeActionParams
	if err := json.Unmarshal(ctx.Params, &p); err != nil {
		return nil, Errorf(jsonrpc2.CodeInvalidParams, "invalid params for textDocument/codeAction: %v", err)
	}
	out := []protocol.CodeAction{}
	n, err := s.note(p.TextDocument.URI)
	if err != nil {
		return out, nil // not a note, or memory still loading: nothing to offer
	}
	if p.wants(protocol.CodeActionKindQuickFix) {
		out = append(out, s.quickFixActions(n, &p)...)
	}
	if p.wants(KindRefactorMove) {
		out = append(out, commandActions(session.PromoteActions(n.Snap))...)
	}
	if p.wants(KindSourceRollup) {
		out = append(out, commandActions(session.RollupActions(n.Snap))...)
	}
	return out, nil
}

// wants reports whether the request asks for actions of kind (context.only).
func (p *codeActionParams) wants(kind protocol.CodeActionKind) bool {
	if len(p.Context.Only) == 0 {
		return true
	}
	for _, o := range p.Context.Only {
		if string(kind) == o || strings.HasPrefix(string(kind), o+".") {
			return true
		}
	}
	return false
}

// quickFixActions are the fixes of the note's findings on the requested lines,
// and of every finding whose code the request's diagnostics name, each
// attached to its diagnostic.
func (s *Server) quickFixActions(n *Located, p *codeActionParams) []protocol.CodeAction {
	codes := map[string]bool{}
	for _, d := range p.Context.Diagnostics {
		var c string
		if json.Unmarshal(d.Code, &c) == nil {
			codes[c] = true
		}
	}
	var out []protocol.CodeAction
	for _, f := range s.findingsFor(n) {
		diag, ok := s.toDiagnostic(n.Mapper, f)
		if !ok {
			continue
		}
		onLines := diag.Range.Start.Line <= p.Range.End.Line && diag.Range.End.Line >= p.Range.Start.Line
		if !onLines && !codes[f.Code] {
			continue
		}
		for _, a := range s.quickFixes(n, f) {
			a.Kind = ptr(protocol.CodeActionKindQuickFix)
			a.Diagnostics = []protocol.Diagnostic{diag}
			out = append(out, a)
		}
	}
	return out
}

// findingsFor checks the note as publishFor does.
func (s *Server) findingsFor(n *Located) []diagnostics.Finding { return session.Findings(n.Snap) }

// commandActions converts the session's command actions.
func commandActions(as []session.CommandAction) []protocol.CodeAction {
	out := make([]protocol.CodeAction, 0, len(as))
	for _, a := range as {
		ca := commandAction(a.Title, a.Command, a.Arg)
		ca.Kind = ptr(protocol.CodeActionKind(a.Kind))
		out = append(out, *ca)
	}
	return out
}

func nowUpdated() string { return engine.FormatTime(time.Now()) }

// quickFixes returns the fixes of one finding (docs/diagnostics.md), without kind
// and diagnostics (the caller sets them).
func (s *Server) quickFixes(n *Located, f diagnostics.Finding) []protocol.CodeAction {
	e := n.Note
	var out []protocol.CodeAction
	add := func(a *protocol.CodeAction) {
		if a != nil {
			out = append(out, *a)
		}
	}
	set := func(title string, sets ...frontmatter.Set) {
		add(s.setFieldsAction(n, title, sets))
	}
	switch f.Code {
	case diagnostics.CodeFrontmatterMissing:
		sets := []frontmatter.Set{{Key: "revision", Value: 1}, {Key: "updated", Value: nowUpdated()}}
		if e.Dimension == engine.Device {
			if id := s.machineID(n.Memory); id != "" {
				sets = append(sets, frontmatter.Set{Key: "machine", Value: id})
			}
		}
		set("Add frontmatter (revision 1, updated now)", sets...)
	case diagnostics.CodeRevisionMissing, diagnostics.CodeRevisionNotInteger, diagnostics.CodeRevisionTooSmall:
		rev := intData(f.Data, "suggest", 1)
		title := fmt.Sprintf("Set revision to %d", rev)
		if f.Code == diagnostics.CodeRevisionMissing {
			title = fmt.Sprintf("Add revision: %d", rev)
		}
		set(title, frontmatter.Set{Key: "revision", Value: rev})
	case diagnostics.CodeUpdatedMissing:
		set("Add updated: now", frontmatter.Set{Key: "updated", Value: nowUpdated()})
	case diagnostics.CodeUpdatedInvalid:
		if utc, ok := f.Data["suggest"].(string); ok && utc != "" {
			set("Write it as UTC ("+utc+")", frontmatter.Set{Key: "updated", Value: utc})
		}
		set("Set updated to now", frontmatter.Set{Key: "updated", Value: nowUpdated()})
	case diagnostics.CodeMachineMissing:
		id, _ := f.Data["machine"].(string)
		if id == "" {
			id = s.machineID(n.Memory)
		}
		if id != "" {
			set("Bind to this machine ("+id+")", frontmatter.Set{Key: "machine", Value: id})
		}
	case diagnostics.CodeMachineForbidden:
		set("Remove machine", frontmatter.Set{Key: "machine"})
	case diagnostics.CodeSkillMissingName:
		set("Add name: "+strings.TrimSuffix(filepath.Base(e.Path), filepath.Ext(e.Path)),
			frontmatter.Set{Key: "name", Value: strings.TrimSuffix(filepath.Base(e.Path), filepath.Ext(e.Path))})
	case diagnostics.CodeSkillMissingDescription:
		set("Add description:", frontmatter.Set{Key: "description", Value: "TODO: what this skill does and when to use it"})
	case diagnostics.CodeDuplicateKey:
		add(s.removeDuplicateAction(n, f))
	case diagnostics.CodeShadowed:
		if w, ok := f.Data["winner"].(string); ok && w != "" {
			add(commandAction("Open the winning version", "magicfrog.showEntry", map[string]any{"uri": PathToURI(w)}))
		}
	case diagnostics.CodeLegacyLocation:
		if canonical, _ := f.Data["canonical"].(string); canonical != "" && n.Memory.Note(e.Path) != nil {
			arg := map[string]any{"uri": n.URI, "to": e.Dimension.String()}
			if e.Dimension.HasOwners() {
				arg["scope"] = e.Owner
			}
			add(commandAction("Move to the canonical tree ("+s.displayPath(n.Memory, canonical)+")", "magicfrog.promote", arg))
		}
	case diagnostics.CodeUnregisteredAgentFolder:
		if folder, _ := f.Data["folder"].(string); folder != "" {
			add(commandAction(fmt.Sprintf("Register %s as an agent ID", folder), "magicfrog.registerAgent", map[string]any{"id": folder}))
			add(commandAction("Keep shared", "magicfrog.registerAgent", map[string]any{"id": folder, "shared": true}))
		}
	case diagnostics.CodeUnregisteredTaskFolder:
		if folder, _ := f.Data["folder"].(string); folder != "" {
			add(commandAction(fmt.Sprintf("Register %s as a task ID", folder), "magicfrog.registerTask", map[string]any{"id": folder}))
		}
	case diagnostics.CodeStaleRevision:
		out = append(out, s.staleFixes(n, f)...)
	case diagnostics.CodeSyncConflict:
		out = append(out, s.syncConflictActions(n, f)...)
	case diagnostics.CodeRollupStale:
		if kind, _ := f.Data["kind"].(string); kind != "" {
			period, _ := f.Data["period"].(string)
			add(commandAction(fmt.Sprintf("Rerun the rollup (%s %s)", kind, period), "magicfrog.rollup",
				map[string]any{"kind": kind, "period": period, "dimension": e.Dimension.String(), "scope": e.Owner}))
		}
	case diagnostics.CodeBrokenLink:
		if target, _ := f.Data["target"].(string); target != "" && s.supportsResourceOp("create") {
			if _, ok := n.Memory.Locate(target); ok {
				content := string(frontmatter.Compose([]frontmatter.Set{{Key: "revision", Value: 1}, {Key: "updated", Value: nowUpdated()}}, nil))
				add(&protocol.CodeAction{Title: "Create the note " + filepath.Base(target), Edit: &protocol.WorkspaceEdit{DocumentChanges: []any{
					protocol.CreateFile{Kind: "create", URI: PathToURI(target), Options: &protocol.CreateFileOptions{IgnoreIfExists: ptr(true)}},
					protocol.TextDocumentEdit{TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: PathToURI(target)}},
						Edits: []any{protocol.TextEdit{Range: protocol.Range{}, NewText: content}}},
				}}})
			}
		}
	}
	// Journal naming findings (journal/misnamed, journal/wrong-folder, …) carry
	// the right name: rename the file.
	if to, _ := f.Data["suggestPath"].(string); to != "" && strings.HasPrefix(f.Code, "journal/") && s.supportsResourceOp("rename") {
		suggest, _ := f.Data["suggest"].(string)
		if suggest == "" {
			suggest = filepath.Base(to)
		}
		add(&protocol.CodeAction{Title: "Rename to " + suggest, IsPreferred: ptr(true), Edit: &protocol.WorkspaceEdit{DocumentChanges: []any{
			protocol.RenameFile{Kind: "rename", OldURI: n.URI, NewURI: PathToURI(to)},
		}}})
	}
	return out
}

// staleFixes are the two answers to a stale buffer (docs/protocol.md,
// save-time conflicts). They run magicfrog.resolveConflict, the same code the
// save-time question runs, so that both know what the conflict found on disk.
func (s *Server) staleFixes(n *Located, f diagnostics.Finding) []protocol.CodeAction {
	if n.Doc == nil {
		return nil
	}
	exists, _ := f.Data["exists"].(bool)
	if !exists {
		return nil // removed on disk: saving creates it again, nothing to choose
	}
	resolve := func(title, choice string) protocol.CodeAction {
		return protocol.CodeAction{Title: title, Command: &protocol.Command{Title: title, Command: "magicfrog.resolveConflict",
			Arguments: []any{map[string]any{"uri": n.URI, "choice": choice}}}}
	}
	diskRev := intData(f.Data, "diskRevision", 0)
	return []protocol.CodeAction{
		resolve(ActionTakeDisk, "takeDisk"),
		resolve(fmt.Sprintf("%s (%d)", ActionKeepMine, diskRev+1), "keepMine"),
	}
}

// removeDuplicateAction deletes the line(s) of the duplicate key the finding is on.
func (s *Server) removeDuplicateAction(n *Located, f diagnostics.Finding) *protocol.CodeAction {
	src := n.Note.Src
	for _, fl := range n.Note.Doc.Fields {
		if !fl.Duplicate || fl.KeySpan.Start != f.Span.Start {
			continue
		}
		start := fl.KeySpan.Start
		for start > 0 && src[start-1] != '\n' && src[start-1] != '\r' {
			start--
		}
		end := max(fl.KeySpan.End, fl.ValueSpan.End)
		for end < len(src) && src[end] != '\n' {
			end++
		}
		if end < len(src) {
			end++
		}
		edits, ok := s.textEdits(n, []frontmatter.Edit{{Span: frontmatter.Span{Start: start, End: end}}})
		if !ok {
			return nil
		}
		return &protocol.CodeAction{Title: "Remove the duplicate " + fl.Key + " line", Edit: s.workspaceEdit(n, edits)}
	}
	return nil
}

// setFieldsAction is an action editing the buffer's frontmatter; nil when the
// frontmatter cannot be edited safely (unterminated, unparseable).
func (s *Server) setFieldsAction(n *Located, title string, sets []frontmatter.Set) *protocol.CodeAction {
	fe, ok := frontmatter.SetFields(n.Note.Src, n.Note.Doc, sets)
	if !ok || len(fe) == 0 {
		return nil
	}
	edits, ok := s.textEdits(n, fe)
	if !ok {
		return nil
	}
	return &protocol.CodeAction{Title: title, Edit: s.workspaceEdit(n, edits)}
}

// textEdits converts byte edits of the note's source to LSP text edits.
func (s *Server) textEdits(n *Located, fe []frontmatter.Edit) ([]protocol.TextEdit, bool) {
	out := make([]protocol.TextEdit, 0, len(fe))
	for _, e := range fe {
		rng, err := n.Mapper.OffsetRange(e.Span.Start, e.Span.End)
		if err != nil {
			s.log.Printf("code action on %s: %v", n.URI, err)
			return nil, false
		}
		out = append(out, protocol.TextEdit{Range: rng, NewText: e.Text})
	}
	return out, true
}

// workspaceEdit edits one note: the buffer at its version when the client takes
// versioned documentChanges (a stale edit is then refused), else plain changes.
func (s *Server) workspaceEdit(n *Located, edits []protocol.TextEdit) *protocol.WorkspaceEdit {
	if n.Doc != nil && s.supportsDocumentChanges() {
		v := protocol.Integer(n.Doc.Version)
		items := make([]any, len(edits))
		for i, e := range edits {
			items[i] = e
		}
		return &protocol.WorkspaceEdit{DocumentChanges: []any{protocol.TextDocumentEdit{
			TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: n.URI}, Version: &v},
			Edits:        items,
		}}}
	}
	return &protocol.WorkspaceEdit{Changes: map[protocol.DocumentUri][]protocol.TextEdit{n.URI: edits}}
}

func commandAction(title, command string, arg map[string]any) *protocol.CodeAction {
	return &protocol.CodeAction{Title: title, Command: &protocol.Command{Title: title, Command: command, Arguments: []any{arg}}}
}

func (s *Server) machineID(m *engine.Memory) string {
	if id := s.Settings().Machine; id != "" {
		return id
	}
	return m.MachineID()
}

// displayPath shortens a path for a title: relative to the data directory or
// the project when under one.
func (s *Server) displayPath(m *engine.Memory, p string) string {
	for _, dir := range []string{m.Paths.DataDir, m.Paths.ProjectDir} {
		if dir == "" {
			continue
		}
		if rel, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return p
}

// intData reads an integer from a finding's Data (int, or float64 after JSON).
func intData(data map[string]any, key string, def int) int {
	switch v := data[key].(type) {
	case int:
		return v
	case float64:
		return int(v)
	}
	return def
}
