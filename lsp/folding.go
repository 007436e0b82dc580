package lsp

import (
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/session"
)

// foldingRange answers textDocument/foldingRange with session.FoldingRanges of
// the open buffer, else of the note on disk: whole lines, a fold of one line
// left out (there is nothing to fold).
func (s *Server) foldingRange(_ *glsp.Context, p *protocol.FoldingRangeParams) ([]protocol.FoldingRange, error) {
	src, ok := s.textOf(p.TextDocument.URI)
	if !ok {
		return []protocol.FoldingRange{}, nil
	}
	m := NewMapper(src)
	out := []protocol.FoldingRange{}
	for _, f := range session.FoldingRanges(src) {
		r, err := m.OffsetRange(f.Span.Start, f.Span.End)
		if err != nil || r.End.Line <= r.Start.Line {
			continue
		}
		kind := string(protocol.FoldingRangeKindRegion)
		out = append(out, protocol.FoldingRange{StartLine: r.Start.Line, EndLine: r.End.Line, Kind: &kind})
	}
	return out, nil
}

// textOf is the open buffer of uri, else the note on disk.
func (s *Server) textOf(uri protocol.DocumentUri) ([]byte, bool) {
	if d, ok := s.Docs.Get(uri); ok {
		return d.Text, true
	}
	if n, err := s.note(uri); err == nil {
		return n.Src(), true
	}
	return nil, false
}
