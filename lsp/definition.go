package lsp

import (
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/session"
)

// definition answers textDocument/definition with session.Definition: the
// note a link leads to, or the note that shadows this one (on its first
// line). Nothing while the tree loads after loadGrace.
func (s *Server) definition(p *protocol.DefinitionParams) (any, error) {
	if d, ok := s.Docs.Get(p.TextDocument.URI); ok && d.Path == "" {
		return s.viewDefinition(d, p.Position)
	}
	return s.placesAt(p.TextDocumentPositionParams, session.Definition)
}

// viewDefinition answers textDocument/definition in a document the editor
// opened that is no file (its <memory> block preview, its effective view:
// magicfrog-memory:/…, magicfrog://…) with session.ViewDefinition over the
// main tree: the note a key, path or block element there names.
func (s *Server) viewDefinition(d *Document, pos protocol.Position) (any, error) {
	none := func() (any, error) { return []protocol.Location{}, nil }
	return s.whenLoaded("", loadGrace, func() (any, error) {
		snap, err := s.sess.Snapshot("")
		if err != nil {
			return none()
		}
		off, err := NewMapper(d.Text).PositionOffset(pos)
		if err != nil {
			return none()
		}
		ps := session.ViewDefinition(snap, d.Text, off)
		defer session.ReleasePlaces(ps)
		return locations(ps), nil
	}, none)
}

// placesAt answers a request at a position of a note with places (find), as
// locations; none for a file that is no note, and none while its tree loads
// after loadGrace.
func (s *Server) placesAt(p protocol.TextDocumentPositionParams, find func(*session.Snapshot, int) []session.Place) (any, error) {
	none := func() (any, error) { return []protocol.Location{}, nil }
	return s.whenLoaded(pathOf(p.TextDocument.URI), loadGrace, func() (any, error) {
		n, err := s.note(p.TextDocument.URI)
		if err != nil {
			return none()
		}
		off, err := n.Mapper.PositionOffset(p.Position)
		if err != nil {
			return none()
		}
		ps := find(n.Snapshot, off)
		defer session.ReleasePlaces(ps) // locations keep no note's bytes
		return locations(ps), nil
	}, none)
}

// documentLink answers textDocument/documentLink with session.DocumentLinks:
// each link (its destination; a wikilink whole) to a note in scope.
func (s *Server) documentLink(p *protocol.DocumentLinkParams) (any, error) {
	none := func() (any, error) { return []protocol.DocumentLink{}, nil }
	return s.whenLoaded(pathOf(p.TextDocument.URI), loadGrace, func() (any, error) {
		n, err := s.note(p.TextDocument.URI)
		if err != nil {
			return none()
		}
		out := []protocol.DocumentLink{}
		for _, l := range session.DocumentLinks(n.Snapshot) {
			span := l.Link.DestSpan
			if l.Link.Wiki || l.Link.Reference {
				span = l.Link.Span
			}
			r, err := n.Mapper.OffsetRange(span.Start, span.End)
			if err != nil {
				continue
			}
			target := session.PathToURI(l.Target.Path)
			tip := l.Target.Ref()
			out = append(out, protocol.DocumentLink{Range: r, Target: &target, Tooltip: &tip})
		}
		return out, nil
	}, none)
}

// locations are places as LSP locations, each counted in its own note. A
// place alone in its text is counted up to its span (OffsetRangeIn); the
// places of one text follow each other, and a second one has its lines
// indexed once for the rest.
func locations(ps []session.Place) []protocol.Location {
	out := make([]protocol.Location, 0, len(ps))
	var m *Mapper
	var prev []byte
	for i, p := range ps {
		var r protocol.Range
		var err error
		switch {
		case m != nil && sameBytes(m.Content(), p.Src):
			r, err = m.OffsetRange(p.Span.Start, p.Span.End)
		case i > 0 && sameBytes(prev, p.Src):
			m = NewMapper(p.Src)
			r, err = m.OffsetRange(p.Span.Start, p.Span.End)
		default:
			r, err = OffsetRangeIn(p.Src, p.Span.Start, p.Span.End)
		}
		prev = p.Src
		if err != nil {
			continue
		}
		out = append(out, protocol.Location{URI: session.PathToURI(p.Path), Range: r})
	}
	return out
}

// references answers textDocument/references with session.References: the
// chain of the note's key, most specific first, then its backlinks.
func (s *Server) references(p *protocol.ReferenceParams) (any, error) {
	return s.placesAt(p.TextDocumentPositionParams, func(snap *session.Snapshot, off int) []session.Place {
		return session.References(snap, off, p.Context.IncludeDeclaration)
	})
}

// sameBytes reports whether a and b are the same bytes in memory (one note's
// text), not merely equal.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
