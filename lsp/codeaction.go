package lsp

import (
	"encoding/json"
	"strings"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/diagnostics"
	"github.com/magicfrog/mf-lsp/session"
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
//     into the skills layer. To a client that applies documentChanges with
//     rename, a move to a free place is a WorkspaceEdit (the frontmatter edit
//     of the buffer at its version, then a RenameFile that never overwrites),
//     so the editor moves the buffer itself; any other is a magicfrog.promote
//     command, revision-checked when it runs.
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
	if err := decodeParams(ctx, &p); err != nil {
		return nil, err
	}
	none := func() (any, error) { return []protocol.CodeAction{}, nil }
	return s.whenLoaded(pathOf(p.TextDocument.URI), loadGrace, func() (any, error) { return s.noteActions(&p), nil }, none)
}

// noteActions are the code actions of a memory note; none for other files.
func (s *Server) noteActions(p *codeActionParams) []protocol.CodeAction {
	out := []protocol.CodeAction{}
	n, err := s.note(p.TextDocument.URI)
	if err != nil {
		return out
	}
	if p.wants(protocol.CodeActionKindQuickFix) {
		out = append(out, s.quickFixActions(n, p)...)
	}
	if p.wants(KindRefactorMove) {
		out = append(out, s.promoteActions(n)...)
	}
	if p.wants(KindSourceRollup) {
		out = append(out, commandActions(session.RollupActions(n.Snapshot))...)
	}
	return out
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
	for _, f := range session.FindingsWithFixes(n.Snapshot) {
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

// promoteActions are the note's promotions: a WorkspaceEdit where the client
// renames files and session.PromoteMove says the editor can make the move,
// else the magicfrog.promote command.
func (s *Server) promoteActions(n *Located) []protocol.CodeAction {
	as := session.PromoteActions(n.Snapshot)
	out := commandActions(as)
	if !s.supportsResourceOp("rename") {
		return out
	}
	for i, a := range as {
		arg, ok := a.Arg.(session.PromoteArgs)
		if !ok {
			continue
		}
		mv, ok := session.PromoteMove(n.Snapshot, arg)
		if !ok {
			continue
		}
		edits, err := n.Mapper.TextEdits(mv.Edits) // mv.Text is the note's source
		if err != nil {
			s.log.Printf("code action on %s: %v", n.URI, err)
			continue
		}
		var changes []any
		if len(edits) > 0 {
			items := make([]any, len(edits))
			for j, e := range edits {
				items[j] = e
			}
			id := protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: n.URI}}
			if n.Doc != nil {
				v := protocol.Integer(n.Doc.Version)
				id.Version = &v // a buffer changed since is refused by the client
			}
			changes = append(changes, protocol.TextDocumentEdit{TextDocument: id, Edits: items})
		}
		// Never over a file that appeared since: the client refuses the rename.
		changes = append(changes, protocol.RenameFile{Kind: "rename", OldURI: n.URI, NewURI: session.PathToURI(mv.To),
			Options: &protocol.RenameFileOptions{Overwrite: ptr(false), IgnoreIfExists: ptr(false)}})
		out[i].Command = nil
		out[i].Edit = &protocol.WorkspaceEdit{DocumentChanges: changes}
	}
	return out
}

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

func commandAction(title, command string, arg any) *protocol.CodeAction {
	return &protocol.CodeAction{Title: title, Command: &protocol.Command{Title: title, Command: command, Arguments: []any{arg}}}
}
