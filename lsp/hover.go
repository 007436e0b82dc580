package lsp

import (
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/session"
)

// hover answers textDocument/hover with session.Hover: Markdown about the
// note (or the note a link points to), over the link, else the hovered line.
// While the note's tree loads it waits loadGrace, then answers ContentModified.
func (s *Server) hover(p *protocol.HoverParams) (any, error) {
	return s.whenLoaded(pathOf(p.TextDocument.URI), loadGrace,
		func() (any, error) { return s.hoverNote(p), nil },
		func() (any, error) { return nil, errLoading("hover") })
}

func (s *Server) hoverNote(p *protocol.HoverParams) *protocol.Hover {
	n, err := s.note(p.TextDocument.URI)
	if err != nil {
		return nil
	}
	off, err := n.Mapper.PositionOffset(p.Position)
	if err != nil {
		return nil
	}
	h := session.Hover(n.Snapshot, off)
	r := lineRange(n.Mapper, int(p.Position.Line))
	if h.OnLink {
		r = nil
		if rng, err := n.Mapper.OffsetRange(h.Span.Start, h.Span.End); err == nil {
			r = &rng
		}
	}
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: h.Markdown}, Range: r}
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
