package lsp

import (
	"encoding/json"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/engine/frontmatter"
	"github.com/magicfrog/mf-lsp/session"
)

// The completion answer is sent in its own lean types; its JSON is what the
// protocol's CompletionList of the same items encodes, byte for byte: every
// kind, an item with and without detail and sort text, items of several spans
// (converted once per span), one over a multi-byte line, and an incomplete list.
func TestCompletionAnswerEncodesAsTheProtocolList(t *testing.T) {
	src := []byte("---\nrevision: 1\n---\nSee [[topics/hé]] and [[to\n")
	m := NewMapper(src)
	wiki := frontmatter.Span{Start: 45, End: 47}
	c := session.Completion{Incomplete: true, Items: []session.CompletionItem{
		{Label: "skills/", Detail: "layer skills", Kind: session.CompleteFolder, Edit: frontmatter.Edit{Span: wiki, Text: "skills/"}, Sort: "0skills/"},
		{Label: "topics/a", Detail: "user · effective", Kind: session.CompleteNote, Edit: frontmatter.Edit{Span: wiki, Text: "topics/a"}, Sort: "topics/a\x000"},
		{Label: "topics/b", Kind: session.CompleteNote, Edit: frontmatter.Edit{Span: wiki, Text: "topics/b"}},
		{Label: "revision", Detail: "the note's revision", Kind: session.CompleteKey, Edit: frontmatter.Edit{Span: frontmatter.Span{Start: 4, End: 6}, Text: "revision: "}},
		{Label: "1", Detail: "revision", Kind: session.CompleteValue, Edit: frontmatter.Edit{Span: frontmatter.Span{Start: 14, End: 15}, Text: "1"}},
		{Label: "topics/hé", Kind: session.CompleteNote, Edit: frontmatter.Edit{Span: frontmatter.Span{Start: 26, End: 36}, Text: "topics/hé"}},
		{Label: "out of range", Kind: session.CompleteNote, Edit: frontmatter.Edit{Span: frontmatter.Span{Start: 40, End: 400}, Text: "x"}},
		{Label: "after it", Kind: session.CompleteNote, Edit: frontmatter.Edit{Span: frontmatter.Span{Start: 26, End: 36}, Text: "after"}},
	}}
	// What the handler built before: the protocol's types, pointers and all.
	want := protocol.CompletionList{IsIncomplete: c.Incomplete, Items: []protocol.CompletionItem{}}
	kinds := map[session.CompletionKind]protocol.CompletionItemKind{
		session.CompleteKey: protocol.CompletionItemKindProperty, session.CompleteValue: protocol.CompletionItemKindValue,
		session.CompleteNote: protocol.CompletionItemKindFile, session.CompleteFolder: protocol.CompletionItemKindFolder,
	}
	for _, it := range c.Items {
		r, err := m.OffsetRange(it.Edit.Span.Start, it.Edit.Span.End)
		if err != nil {
			continue
		}
		item := protocol.CompletionItem{Label: it.Label, Kind: ptr(kinds[it.Kind]),
			TextEdit: protocol.TextEdit{Range: r, NewText: it.Edit.Text}, FilterText: ptr(it.Edit.Text)}
		if it.Detail != "" {
			item.Detail = ptr(it.Detail)
		}
		if it.Sort != "" {
			item.SortText = ptr(it.Sort)
		}
		want.Items = append(want.Items, item)
	}
	wantJSON, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(completionAnswer(c, m))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(wantJSON) {
		t.Errorf("completion answer\n got %s\nwant %s", got, wantJSON)
	}
	var back protocol.CompletionList
	if err := json.Unmarshal(got, &back); err != nil || len(back.Items) != len(c.Items)-1 {
		t.Errorf("decoded as the protocol's list: %d items, %v; want %d", len(back.Items), err, len(c.Items)-1)
	}
	empty, _ := json.Marshal(completionAnswer(session.Completion{}, nil))
	if string(empty) != `{"isIncomplete":false,"items":[]}` {
		t.Errorf("no items: %s", empty)
	}
}

// A completion answer's items are borrowed from a pool and given back once
// the connection encoded the reply (jsonrpc.Releaser), as session's items are
// once converted: at 100,000 notes the two arrays of 100 items were half of
// what the requests allocated over the coldbench's latency run.
func TestCompletionAnswerReusesItsItems(t *testing.T) {
	src := []byte("---\nrevision: 1\n---\nSee [[to\n")
	m := NewMapper(src)
	items := make([]session.CompletionItem, session.MaxCompletions)
	for i := range items {
		items[i] = session.CompletionItem{Label: "topics/a", Kind: session.CompleteNote, Edit: frontmatter.Edit{Span: frontmatter.Span{Start: 26, End: 28}, Text: "topics/a"}}
	}
	c := session.Completion{Items: items}
	first := completionAnswer(c, m)
	want, _ := json.Marshal(first)
	first.Release()
	if got, _ := json.Marshal(completionAnswer(c, m)); string(got) != string(want) {
		t.Errorf("after reuse the answer encodes as\n%s\nwant\n%s", got, want)
	}
	if raceEnabled {
		return
	}
	allocs := testing.AllocsPerRun(100, func() {
		a := completionAnswer(c, m)
		if len(a.Items) != len(items) {
			t.Fatalf("%d items; want %d", len(a.Items), len(items))
		}
		a.Release()
	})
	if allocs > 1 {
		t.Errorf("an answer of %d items released once encoded allocates %v times; want its items reused", len(items), allocs)
	}
}
