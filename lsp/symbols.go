package lsp

import (
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/session"
)

// documentSymbol answers textDocument/documentSymbol with
// session.DocumentSymbols of the open buffer, else of the note on disk.
func (s *Server) documentSymbol(_ *glsp.Context, p *protocol.DocumentSymbolParams) (any, error) {
	src, ok := s.textOf(p.TextDocument.URI) // folding.go
	if !ok {
		return []protocol.DocumentSymbol{}, nil
	}
	out := toDocumentSymbols(NewMapper(src), session.DocumentSymbols(src))
	if out == nil {
		out = []protocol.DocumentSymbol{}
	}
	return out, nil
}

func toDocumentSymbols(m *Mapper, syms []session.DocumentSymbol) []protocol.DocumentSymbol {
	var out []protocol.DocumentSymbol
	for _, sym := range syms {
		rng, err := m.OffsetRange(sym.Span.Start, sym.Span.End)
		if err != nil {
			continue
		}
		sel, err := m.OffsetRange(sym.Selection.Start, sym.Selection.End)
		if err != nil {
			continue
		}
		ds := protocol.DocumentSymbol{Name: sym.Name, Kind: protocol.SymbolKindString, Range: rng, SelectionRange: sel,
			Children: toDocumentSymbols(m, sym.Children)}
		if sym.Kind == session.SymbolProperty {
			ds.Kind = protocol.SymbolKindProperty
		}
		if sym.Detail != "" {
			ds.Detail = &sym.Detail
		}
		out = append(out, ds)
	}
	return out
}

// workspaceSymbol answers workspace/symbol with session.WorkspaceSymbols of
// the main tree: nothing when it is still loading after loadGrace.
func (s *Server) workspaceSymbol(p *protocol.WorkspaceSymbolParams) (any, error) {
	none := func() (any, error) { return []protocol.SymbolInformation{}, nil }
	return s.whenLoaded("", loadGrace, func() (any, error) { return s.workspaceSymbols(p), nil }, none)
}

func (s *Server) workspaceSymbols(p *protocol.WorkspaceSymbolParams) []protocol.SymbolInformation {
	snap, err := s.sess.Snapshot("")
	if err != nil {
		return []protocol.SymbolInformation{}
	}
	notes := session.WorkspaceSymbols(snap, p.Query)
	out := make([]protocol.SymbolInformation, 0, len(notes))
	for _, e := range notes {
		container := e.Dimension.String()
		if e.Owner != "" {
			container += "/" + e.Owner
		}
		out = append(out, protocol.SymbolInformation{
			Name:          e.Key,
			Kind:          protocol.SymbolKindFile,
			Location:      protocol.Location{URI: session.PathToURI(e.Path), Range: protocol.Range{}},
			ContainerName: &container,
		})
	}
	return out
}
