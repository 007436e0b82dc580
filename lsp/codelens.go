package lsp

import (
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/session"
)

// codeLens answers textDocument/codeLens: one lens on line 1 of a memory note
// saying where it stands (session.NoteLens), none for other files, and none
// while memory loads (the client asks again when the document changes).
func (s *Server) codeLens(_ *glsp.Context, p *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	n, err := s.note(p.TextDocument.URI)
	if err != nil {
		return []protocol.CodeLens{}, nil
	}
	lens := session.NoteLens(n.Snapshot)
	winner := p.TextDocument.URI
	if lens.Path != n.Path {
		winner = session.PathToURI(lens.Path)
	}
	return []protocol.CodeLens{{
		Range:   protocol.Range{},
		Command: &protocol.Command{Title: lens.Title, Command: lens.Command, Arguments: []any{map[string]any{"uri": winner}}},
	}}, nil
}
