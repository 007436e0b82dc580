package lsp

import (
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/session"
)

// completionTriggers are the characters after which a client asks for
// completion unprompted: a link's "(" or "[[", a path's "/", a value's ":".
var completionTriggers = []string{"(", "[", "/", ":", `"`}

// completion answers textDocument/completion with session.Complete (a memory
// note) or session.CompleteConfig (magicfrog.json, the project's config.json,
// open in the editor): each item a text edit of the typed text. An empty list while the tree loads after
// loadGrace, marked incomplete so that the client asks again.
func (s *Server) completion(p *protocol.CompletionParams) (any, error) {
	none := func() (any, error) {
		return protocol.CompletionList{IsIncomplete: true, Items: []protocol.CompletionItem{}}, nil
	}
	return s.whenLoaded(pathOf(p.TextDocument.URI), loadGrace, func() (any, error) {
		var c session.Completion
		var m *Mapper
		if n, err := s.note(p.TextDocument.URI); err == nil {
			m = n.Mapper
			if off, err := m.PositionOffset(p.Position); err == nil {
				c = session.Complete(n.Snapshot, off)
			}
		} else if d, ok := s.Docs.Get(p.TextDocument.URI); ok {
			// A configuration file: agent and task IDs.
			m = NewMapper(d.Text)
			snap, err := s.sess.Snapshot("")
			if off, err2 := m.PositionOffset(p.Position); err == nil && err2 == nil {
				c = session.CompleteConfig(snap, d.Path, d.Text, off)
			}
		}
		out := protocol.CompletionList{IsIncomplete: c.Incomplete, Items: make([]protocol.CompletionItem, 0, len(c.Items))}
		for _, it := range c.Items {
			r, err := m.OffsetRange(it.Edit.Span.Start, it.Edit.Span.End)
			if err != nil {
				continue
			}
			item := protocol.CompletionItem{Label: it.Label, Kind: ptr(completionKinds[it.Kind]),
				TextEdit: protocol.TextEdit{Range: r, NewText: it.Edit.Text}, FilterText: ptr(it.Edit.Text)}
			if it.Detail != "" {
				item.Detail = ptr(it.Detail)
			}
			if it.Sort != "" {
				item.SortText = ptr(it.Sort)
			}
			out.Items = append(out.Items, item)
		}
		return out, nil
	}, none)
}

var completionKinds = map[session.CompletionKind]protocol.CompletionItemKind{
	session.CompleteKey:    protocol.CompletionItemKindProperty,
	session.CompleteValue:  protocol.CompletionItemKindValue,
	session.CompleteNote:   protocol.CompletionItemKindFile,
	session.CompleteFolder: protocol.CompletionItemKindFolder,
}
