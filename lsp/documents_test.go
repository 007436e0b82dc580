package lsp

import (
	"errors"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

func change(l1, c1, l2, c2 int, text string) ContentChange {
	return ContentChange{Range: &protocol.Range{Start: pos(l1, c1), End: pos(l2, c2)}, Text: text}
}

func TestDocumentsIncrementalChanges(t *testing.T) {
	ds := NewDocuments(0)
	const uri = "file:///m.md"
	if _, err := ds.Open(uri, "markdown", 1, []byte("---\r\nrevision: 3\r\n---\r\nhé 😀 x\r\n")); err != nil {
		t.Fatal(err)
	}
	d, err := ds.Change(uri, 2, []ContentChange{
		change(1, 10, 1, 11, "4"),    // revision: 4
		change(3, 5, 3, 6, "y"),      // the space after 😀, at UTF-16 column 5 (😀 takes two units)
		change(4, 0, 4, 0, "tail\n"), // append on the last, empty line
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "---\r\nrevision: 4\r\n---\r\nhé 😀yx\r\ntail\n"; string(d.Text) != want {
		t.Errorf("text = %q, want %q", d.Text, want)
	}
	if d.Version != 2 {
		t.Errorf("version = %d", d.Version)
	}
	// Whole-document replacement.
	d, err = ds.Change(uri, 3, []ContentChange{{Text: "new"}})
	if err != nil || string(d.Text) != "new" || d.Version != 3 {
		t.Fatalf("whole change: %q v%d, %v", d.Text, d.Version, err)
	}
	// A change out of range fails as a whole: the document keeps version 3.
	_, err = ds.Change(uri, 4, []ContentChange{change(0, 0, 0, 1, "N"), change(9, 0, 9, 1, "?")})
	if err == nil {
		t.Fatal("out-of-range change succeeded")
	}
	if d, _ := ds.Get(uri); string(d.Text) != "new" || d.Version != 3 {
		t.Errorf("after failed change: %q v%d; want unchanged", d.Text, d.Version)
	}
	// Old snapshots stay valid.
	if string(d.Text) != "new" {
		t.Errorf("snapshot changed")
	}
	if d, ok := ds.Saved(uri); !ok || d.SavedVersion != 3 {
		t.Errorf("Saved: %+v %v", d, ok)
	}
	if !ds.Close(uri) {
		t.Error("Close of an open document returned false")
	}
	if _, err := ds.Change(uri, 5, []ContentChange{change(0, 0, 0, 0, "x")}); err == nil {
		t.Error("change to a closed document succeeded")
	}
}

func TestDocumentsSizeLimit(t *testing.T) {
	ds := NewDocuments(10)
	const uri = "file:///big.md"
	var tooLarge *TooLargeError
	if _, err := ds.Open(uri, "markdown", 1, []byte("01234567890")); !errors.As(err, &tooLarge) {
		t.Fatalf("Open over the limit: %v", err)
	}
	if _, ok := ds.Get(uri); ok {
		t.Error("too-large document is tracked")
	}
	// Incremental edits to it are ignored quietly...
	if d, err := ds.Change(uri, 2, []ContentChange{change(0, 0, 0, 0, "x")}); d != nil || err != nil {
		t.Errorf("change to ignored document = %v, %v; want nil, nil", d, err)
	}
	// ...until a full-text change brings it under the limit.
	if d, err := ds.Change(uri, 3, []ContentChange{{Text: "small"}}); err != nil || d == nil || string(d.Text) != "small" {
		t.Errorf("shrinking change = %v, %v", d, err)
	}
	// Growing past the limit drops it again.
	if _, err := ds.Change(uri, 4, []ContentChange{change(0, 5, 0, 5, "+123456")}); !errors.As(err, &tooLarge) {
		t.Errorf("growing change: %v", err)
	}
}
