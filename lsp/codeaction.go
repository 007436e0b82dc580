package lsp

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/diagnostics"
	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
)

// Code actions (textDocument/codeAction):
//
//   - quick fixes (kind quickfix) for the diagnostics of docs/diagnostics.md
//     that have one, each attached to the diagnostic it fixes. The fixes are
//     the ones diagnostics proposes (Finding.Fixes): byte edits of the buffer,
//     converted by the note's Mapper; commands (magicfrog.promote,
//     magicfrog.rollup, magicfrog.registerAgent, magicfrog.showEntry); file
//     operations (rename, create) when the client supports them;
//   - promotions (kind refactor.move) of every note on disk: up the chain and
//     into the skills layer, as magicfrog.promote commands, revision-checked
//     when they run.
//
// The findings are computed again from the buffer rather than taken from the
// request's diagnostics (a client may drop their data): a fix is offered for
// every finding on the requested lines, and for every finding whose code the
// request's diagnostics name.

// KindRefactorMove is the kind of the promotion actions.
const KindRefactorMove protocol.CodeActionKind = "refactor.move"

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
		return nil, Errorf(CodeInvalidParams, "invalid params for textDocument/codeAction: %v", err)
	}
	out := []protocol.CodeAction{}
	if !s.memoryLoaded() {
		return out, nil // never wait on the read loop
	}
	n, ok := s.Note(p.TextDocument.URI)
	if !ok {
		return out, nil
	}
	wanted := func(kind protocol.CodeActionKind) bool {
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
	if wanted(protocol.CodeActionKindQuickFix) {
		codes := map[string]bool{}
		for _, d := range p.Context.Diagnostics {
			var c string
			if json.Unmarshal(d.Code, &c) == nil {
				codes[c] = true
			}
		}
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
	}
	if wanted(KindRefactorMove) {
		out = append(out, s.promoteActions(n)...)
	}
	if wanted(KindSourceRollup) {
		out = append(out, s.rollupActions(n)...)
	}
	return out, nil
}

// findingsFor checks the note as publishFor does.
func (s *Server) findingsFor(n *Located) []diagnostics.Finding {
	in := diagnostics.Input{Memory: n.Memory, Note: n.Note, Scope: s.Participant(n.Memory), Today: s.Today(), OpenLoopDays: s.Settings().OpenLoopDays, WithFixes: true, Now: s.now()}
	if n.Doc != nil {
		if b, ok := s.Base(n.URI); ok {
			in.Base = &diagnostics.Base{Revision: b.Revision, Hash: b.Hash}
		}
	}
	return diagnostics.Check(in)
}

// quickFixes converts the fixes diagnostics proposes for one finding
// (docs/diagnostics.md) to code actions, without kind and diagnostics (the
// caller sets them). A sync conflict's answers come from the sync code.
func (s *Server) quickFixes(n *Located, f diagnostics.Finding) []protocol.CodeAction {
	var out []protocol.CodeAction
	for _, fix := range f.Fixes {
		if a, ok := s.fixAction(n, fix); ok {
			out = append(out, a)
		}
	}
	if f.Code == diagnostics.CodeSyncConflict {
		out = append(out, s.syncConflictActions(n, f)...)
	}
	return out
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

// promoteActions offers moving a note on disk up the chain (task → agent → user
// → account) and into the skills layer. Device and journal notes are not offered:
// the first belong to one machine, the second to their journal.
func (s *Server) promoteActions(n *Located) []protocol.CodeAction {
	e := n.Memory.Note(n.Path)
	if e == nil || e.Dimension == engine.Device || e.Layer.Kind == engine.KindFractal {
		return []protocol.CodeAction{}
	}
	var out []protocol.CodeAction
	add := func(title string, arg map[string]any) {
		arg["uri"] = n.URI
		// The revisions shown are the ones the promotion expects: a
		// compare-and-swap on both ends, never a blind overwrite.
		arg["sourceRevision"] = e.Revision()
		to, _ := engine.ParseDimension(fmt.Sprint(arg["to"]))
		key, scope := e.Key, e.Owner
		if arg["to"] == "skills" {
			l, _ := n.Memory.Layers().ByName("skills")
			to, key = e.Dimension, l.Prefix+e.LayerKey()
		} else if sc, ok := arg["scope"].(string); ok || to != e.Dimension {
			scope = sc
		}
		if rev := n.Memory.CurrentRevision(to, scope, key); rev > 0 {
			arg["destRevision"] = rev
			title += fmt.Sprintf(" (replaces revision %d there)", rev)
		}
		a := commandAction(title, "magicfrog.promote", arg)
		a.Kind = ptr(KindRefactorMove)
		out = append(out, *a)
	}
	if e.Dimension == engine.Task {
		agents := s.Scope(n.Memory).Agents
		for _, id := range agents {
			add("Promote to agent "+id, map[string]any{"to": "agent", "scope": id})
		}
		add("Promote to every agent (shared agent note)", map[string]any{"to": "agent", "scope": ""})
	}
	if e.Dimension.Specificity() > engine.User.Specificity() {
		add("Promote to user", map[string]any{"to": "user"})
	}
	if e.Dimension.Specificity() > engine.Account.Specificity() {
		add("Promote to account", map[string]any{"to": "account"})
	}
	if !e.Layer.IsSkills() {
		if _, ok := n.Memory.Layers().ByName("skills"); ok {
			add("Move into the skills layer", map[string]any{"to": "skills"})
		}
	}
	return out
}
