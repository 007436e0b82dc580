package lsp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// glspChanges is what glsp's own decoding of didChange's params gives, in the
// server's terms: the reference changeParams must agree with.
func glspChanges(t testing.TB, raw string) (protocol.VersionedTextDocumentIdentifier, []ContentChange, error) {
	var p protocol.DidChangeTextDocumentParams
	if err := json.Unmarshal([]byte(raw), &p); err != nil {
		return p.TextDocument, nil, err
	}
	var out []ContentChange
	for _, c := range p.ContentChanges {
		switch c := c.(type) {
		case protocol.TextDocumentContentChangeEvent:
			out = append(out, ContentChange{Range: c.Range, Text: c.Text})
		case protocol.TextDocumentContentChangeEventWhole:
			out = append(out, ContentChange{Text: c.Text})
		default:
			t.Fatalf("glsp decoded a change as %T", c)
		}
	}
	return p.TextDocument, out, nil
}

// TestChangeParamsDecodeAsGlsps: the server's one-pass decoding of didChange
// reads every change as glsp's did: ranged, whole (no range, or a null one),
// with rangeLength (deprecated, ignored), escapes, and several in order; and
// refuses what glsp refuses.
func TestChangeParamsDecodeAsGlsps(t *testing.T) {
	for _, raw := range []string{
		`{"textDocument":{"uri":"file:///a.md","version":3},"contentChanges":[{"text":"whole \"text\"\n\u00e9 😀"}]}`,
		`{"textDocument":{"uri":"file:///a.md","version":4},"contentChanges":[{"range":{"start":{"line":1,"character":2},"end":{"line":1,"character":5}},"rangeLength":3,"text":"x"}]}`,
		`{"textDocument":{"uri":"file:///a.md","version":5},"contentChanges":[{"range":null,"text":"all"},{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":"a"}]}`,
		`{"textDocument":{"uri":"file:///a.md","version":6},"contentChanges":[]}`,
		`{"textDocument":{"uri":"file:///a.md","version":7}}`,
	} {
		doc, want, err := glspChanges(t, raw)
		if err != nil {
			t.Fatalf("glsp refused %s: %v", raw, err)
		}
		var got changeParams
		if err := json.Unmarshal([]byte(raw), &got); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		same := reflect.DeepEqual(got.ContentChanges, want) || len(got.ContentChanges)+len(want) == 0 // [] and none alike
		if got.TextDocument != doc || !same {
			t.Errorf("%s:\n got %+v %+v\nwant %+v %+v", raw, got.TextDocument, got.ContentChanges, doc, want)
		}
	}
	for _, raw := range []string{
		`{"textDocument":{"uri":"file:///a.md","version":"3"},"contentChanges":[]}`,
		`{"textDocument":{"uri":"file:///a.md","version":3},"contentChanges":[{"text":3}]}`,
		`{"textDocument":{"uri":"file:///a.md","version":3},"contentChanges":{"text":"x"}}`,
	} {
		_, _, gerr := glspChanges(t, raw)
		var got changeParams
		if err := json.Unmarshal([]byte(raw), &got); (err == nil) != (gerr == nil) {
			t.Errorf("%s: ours %v, glsp's %v", raw, err, gerr)
		}
	}
}

// BenchmarkDidChangeParams: decoding a full-text didChange of a 45 KB note,
// glsp's way and the server's (the read loop pays it before the request
// sent after the edit):
//
//	go test ./lsp -run '^$' -bench DidChangeParams -benchmem
func BenchmarkDidChangeParams(b *testing.B) {
	text := strings.Repeat("A line of a note, with \"quotes\" and a tab\there.\n", 900)
	raw, _ := json.Marshal(map[string]any{"textDocument": map[string]any{"uri": "file:///a.md", "version": 3},
		"contentChanges": []any{map[string]any{"text": text}}})
	b.Run("glsp", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			var p protocol.DidChangeTextDocumentParams
			if err := json.Unmarshal(raw, &p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("onePass", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			var p changeParams
			if err := json.Unmarshal(raw, &p); err != nil {
				b.Fatal(err)
			}
		}
	})
}
