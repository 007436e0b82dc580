package lsp

import (
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/session"
)

// codeLens answers textDocument/codeLens: one lens on line 1 of a memory note
// saying where it stands (session.NoteLens), none for other files, and none
// when the note's tree is still loading after loadGrace (the client is asked
// to refresh its lenses when the load is over).
func (s *Server) codeLens(p *protocol.CodeLensParams) (any, error) {
	none := func() (any, error) { return []protocol.CodeLens{}, nil }
	return s.whenLoaded(pathOf(p.TextDocument.URI), loadGrace, func() (any, error) { return s.noteLens(p), nil }, none)
}

func (s *Server) noteLens(p *protocol.CodeLensParams) []protocol.CodeLens {
	n, err := s.note(p.TextDocument.URI)
	if err != nil {
		return []protocol.CodeLens{}
	}
	lens := session.NoteLens(n.Snapshot)
	winner := p.TextDocument.URI
	if lens.Path != n.Path {
		winner = session.PathToURI(lens.Path)
	}
	return []protocol.CodeLens{{
		Range:   protocol.Range{},
		Command: &protocol.Command{Title: lens.Title, Command: lens.Command, Arguments: []any{session.NoteArgs{URI: string(winner)}}},
	}}
}
