package lsp

import (
	"errors"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/session"
)

// hover answers textDocument/hover with session.Hover: Markdown about the
// note (or the note a link points to), over the link, else the hovered line.
func (s *Server) hover(_ *glsp.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	n, err := s.note(p.TextDocument.URI)
	if errors.Is(err, session.ErrLoading) {
		return nil, errLoading("hover")
	}
	if err != nil {
		return nil, nil
	}
	off, err := n.Mapper.PositionOffset(p.Position)
	if err != nil {
		return nil, nil
	}
	h := session.Hover(n.Snapshot, off)
	r := lineRange(n.Mapper, int(p.Position.Line))
	if h.OnLink {
		r = nil
		if rng, err := n.Mapper.OffsetRange(h.Span.Start, h.Span.End); err == nil {
			r = &rng
		}
	}
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: h.Markdown}, Range: r}, nil
}

// lineRange is the range of one line's content.
func lineRange(m *Mapper, line int) *protocol.Range {
	if line < 0 || line >= m.LineCount() {
		return nil
	}
	span := m.lines[line]
	r, err := m.OffsetRange(span.start, span.end)
	if err != nil {
		return nil
	}
	return &r
}
