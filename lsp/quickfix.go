package lsp

import (
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/diagnostics"
	"github.com/magicfrog/mf-lsp/session"
)

// fixAction converts one fix diagnostics proposes to a code action: byte
// edits of the note to text edits through its Mapper, files to create or
// rename to resource operations, a command to a command whose file
// arguments are URIs. ok is false when the client cannot apply it (no
// resource operations) or an edit does not map.
func (s *Server) fixAction(n *Located, fix diagnostics.Fix) (protocol.CodeAction, bool) {
	a := protocol.CodeAction{Title: fix.Title}
	if fix.Preferred {
		a.IsPreferred = ptr(true)
	}
	switch {
	case fix.Create != "":
		if !s.supportsResourceOp("create") {
			return a, false
		}
		// The new file is empty: every edit of it is at its start.
		uri := session.PathToURI(fix.Create)
		edits := []any{}
		for _, e := range fix.Edits {
			edits = append(edits, protocol.TextEdit{Range: protocol.Range{}, NewText: e.NewText})
		}
		a.Edit = &protocol.WorkspaceEdit{DocumentChanges: []any{
			protocol.CreateFile{Kind: "create", URI: uri, Options: &protocol.CreateFileOptions{IgnoreIfExists: ptr(true)}},
			protocol.TextDocumentEdit{TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri}},
				Edits: edits},
		}}
	case fix.Rename != nil:
		if !s.supportsResourceOp("rename") {
			return a, false
		}
		a.Edit = &protocol.WorkspaceEdit{DocumentChanges: []any{
			protocol.RenameFile{Kind: "rename", OldURI: fileURI(n, fix.Rename.From), NewURI: fileURI(n, fix.Rename.To)},
		}}
	case len(fix.Edits) > 0:
		fe := make([]session.Edit, len(fix.Edits))
		for i, e := range fix.Edits {
			if e.Path != n.Note.Path {
				return a, false // only the note's own text has a Mapper here
			}
			fe[i] = session.Edit{Span: session.Span{Start: e.Start, End: e.End}, Text: e.NewText}
		}
		edits, err := n.Mapper.TextEdits(fe)
		if err != nil {
			s.log.Printf("code action on %s: %v", n.URI, err)
			return a, false
		}
		a.Edit = s.workspaceEdit(n, edits)
	}
	if c := fix.Command; c != nil {
		args := make(map[string]any, len(c.Args))
		for k, v := range c.Args {
			if p, ok := v.(diagnostics.FileArg); ok {
				v = fileURI(n, string(p))
			}
			args[k] = v
		}
		arg, err := session.TypedArg(c.Name, args)
		if err != nil {
			s.log.Printf("BUG: code action %q: %v", fix.Title, err)
			return a, false
		}
		a.Command = &protocol.Command{Title: fix.Title, Command: c.Name, Arguments: []any{arg}}
	}
	return a, true
}

// fileURI names a file of a fix: the note as the client named it, any other
// file by its path.
func fileURI(n *Located, path string) protocol.DocumentUri {
	if path == n.Note.Path {
		return n.URI
	}
	return session.PathToURI(path)
}
