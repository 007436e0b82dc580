package lsp

import (
	"sync"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/engine/frontmatter"
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
		return completionList{IsIncomplete: true, Items: []completionItem{}}, nil
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
		answer := completionAnswer(c, m)
		c.Release() // converted: session's items go back to its pool
		return answer, nil
	}, none)
}

// completionKinds are the protocol's kind of each session.CompletionKind.
var completionKinds = [...]protocol.CompletionItemKind{
	session.CompleteKey:    protocol.CompletionItemKindProperty,
	session.CompleteValue:  protocol.CompletionItemKindValue,
	session.CompleteNote:   protocol.CompletionItemKindFile,
	session.CompleteFolder: protocol.CompletionItemKindFolder,
}

// completionList and completionItem are protocol.CompletionList and
// CompletionItem with only the fields this server sends, by value: the same
// JSON, but an answer of session.MaxCompletions items is one allocation for
// its items (not four pointers and a boxed text edit each) and its encoding
// walks six fields an item, not twenty (docs/navigation.md, "Over stdio").
type completionList struct {
	IsIncomplete bool              `json:"isIncomplete"`
	Items        []completionItem  `json:"items"`
	pooled       *[]completionItem // Items' array, borrowed from completionItems
}

// completionItems are the arrays of answers of up to session.MaxCompletions
// items: an answer borrows one and the connection gives it back once it
// encoded the reply (Release), so a completion at 100,000 notes makes no
// array of 100 items a keystroke for the collector to follow.
var completionItems = sync.Pool{New: func() any {
	items := make([]completionItem, 0, session.MaxCompletions)
	return &items
}}

// Release gives the items' array back to completionItems (jsonrpc.Releaser):
// the answer is not read after.
func (l completionList) Release() {
	if l.pooled == nil {
		return
	}
	clear(l.Items) // no strings kept alive by the pool
	*l.pooled = l.Items[:0]
	completionItems.Put(l.pooled)
}

type completionItem struct {
	Label      string                      `json:"label"`
	Kind       protocol.CompletionItemKind `json:"kind"`
	Detail     string                      `json:"detail,omitempty"`
	SortText   string                      `json:"sortText,omitempty"`
	FilterText string                      `json:"filterText"`
	TextEdit   protocol.TextEdit           `json:"textEdit"`
}

// completionAnswer is c in the protocol's terms, its spans converted by m
// (most items of an answer replace the same typed text: converted once).
func completionAnswer(c session.Completion, m *Mapper) completionList {
	out := completionList{IsIncomplete: c.Incomplete}
	if len(c.Items) <= session.MaxCompletions {
		out.pooled = completionItems.Get().(*[]completionItem)
		out.Items = (*out.pooled)[:0]
	} else {
		out.Items = make([]completionItem, 0, len(c.Items))
	}
	var last frontmatter.Span
	var r protocol.Range
	for i, it := range c.Items {
		if i == 0 || it.Edit.Span != last {
			next, err := m.OffsetRange(it.Edit.Span.Start, it.Edit.Span.End)
			if err != nil {
				continue
			}
			r, last = next, it.Edit.Span
		}
		out.Items = append(out.Items, completionItem{Label: it.Label, Kind: completionKinds[it.Kind], Detail: it.Detail,
			SortText: it.Sort, FilterText: it.Edit.Text, TextEdit: protocol.TextEdit{Range: r, NewText: it.Edit.Text}})
	}
	return out
}
