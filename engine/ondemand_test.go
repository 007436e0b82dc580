package engine_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/errcode"
	"github.com/magicfrog/mf-lsp/engine/mdlinks"
)

// openOnDemand is makeTree's tree loaded as the language server loads it:
// a note larger than engine.ResidentMax keeps its frontmatter only.
func openOnDemand(t *testing.T, files map[string]string) (string, *engine.Memory, *engine.Memory) {
	t.Helper()
	dir, full := makeTree(t, files)
	m, err := engine.Open(engine.Options{DataDir: filepath.Join(dir, "data"), ProjectDir: filepath.Join(dir, "project"), BodiesOnDemand: true})
	if err != nil {
		t.Fatal(err)
	}
	return dir, full, m
}

// TestBodiesOnDemandSameAnswers: a tree whose large notes are read on demand
// answers as the tree that keeps every text: the same texts, frontmatter
// Documents, values and blocks, byte for byte. Only large notes are read
// again; small ones stay resident.
func TestBodiesOnDemandSameAnswers(t *testing.T) {
	big := strings.Repeat("a line of a long note, with [a link](../user/u-good.md)\n", 200)
	_, full, m := openOnDemand(t, map[string]string{
		"data/memory/user/big.md":                     "---\nrevision: 4\nupdated: 2026-10-20T09:12:00.000Z\ndescription: \"quoted: value\"\n---\n" + big,
		"data/memory/agent/larry/big-nofront.md":      big,
		"data/memory/agent/larry/big-unterminated.md": "---\nrevision: 2\n" + big,
		"project/.magicfrog/memory/big-task.md":       note(7, big),
		"data/memory/user/big-plain.md":               note(1, strings.Repeat("no link [here], nor (there)\n", 200)),
	})
	resident := 0
	for _, want := range full.Notes() {
		e := m.Note(want.Path)
		if e == nil {
			t.Fatalf("%s: not loaded on demand", want.Path)
		}
		if e.Resident() {
			resident++
		} else if want.Size() <= engine.ResidentMax {
			t.Errorf("%s: %d bytes read on demand, want resident", e.Path, want.Size())
		}
		wantText, gotText := want.TextOrNil(), e.TextOrNil()
		if string(gotText) != string(wantText) || e.Size() != len(wantText) || e.Sum() != want.Sum() {
			t.Errorf("%s: text differs on demand", e.Path)
		}
		if !e.MayLink() && (mdlinks.Links(wantText, want.BodyStart()) != nil || mdlinks.WikiLinks(wantText, want.BodyStart()) != nil) {
			t.Errorf("%s: MayLink false, but it has links", e.Path)
		}
		if strings.HasSuffix(e.Path, "big-plain.md") == e.MayLink() {
			t.Errorf("%s: MayLink %v", e.Path, e.MayLink())
		}
		if !reflect.DeepEqual(e.Doc(), want.Doc()) || e.Revision() != want.Revision() || e.Updated() != want.Updated() || e.Machine() != want.Machine() || e.BodyStart() != want.BodyStart() {
			t.Errorf("%s: frontmatter differs on demand: %+v, want %+v", e.Path, e.Doc(), want.Doc())
		}
	}
	if resident == len(full.Notes()) {
		t.Fatal("every note is resident: the test reads nothing on demand")
	}
	if e := m.Note(filepath.Join(filepath.Dir(m.Paths.MemoryDir()), "memory", "agent", "larry", "big-unterminated.md")); e == nil || !e.Resident() {
		t.Errorf("a note with an unterminated frontmatter must keep its text (its frontmatter is not readable alone)")
	}
	for _, opts := range []engine.RenderOptions{{}, {Budget: 300}} {
		if got, want := render(t, m, opts), render(t, full, opts); got.Text != want.Text {
			t.Errorf("budget %d: the block differs on demand:\n%s\nwant\n%s", opts.Budget, got.Text, want.Text)
		}
	}
}

// TestBodiesOnDemandNeverStale: a note changed on disk behind the tree's
// back (no Refresh, no watcher event) is never answered from the text it had:
// reading it fails as stale (errcode.Stale), the tree is told and refreshes
// it, and the next read is the new text. A block rendered over it likewise.
func TestBodiesOnDemandNeverStale(t *testing.T) {
	big := strings.Repeat("the old text of a long note\n", 300)
	dir, _, m := openOnDemand(t, map[string]string{"data/memory/user/big.md": note(3, big)})
	p := filepath.Join(dir, "data", "memory", "user", "big.md")
	e := m.Note(p)
	if e == nil || e.Resident() {
		t.Fatalf("want %s read on demand", p)
	}
	var told []string
	m.SetOnStale(func(path string) { told = append(told, path) })
	newer := note(3, strings.Repeat("the new text, same length!!\n", 300)) // same revision, same size
	if err := os.WriteFile(p, []byte(newer), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := e.Text()
	var changed *engine.ChangedError
	if err == nil || !errors.As(err, &changed) || errcode.Of(err) != errcode.Stale || changed.Path != p {
		t.Fatalf("Text after the file changed: %q, %v; want a stale ChangedError", src, err)
	}
	if _, err := e.Body(); err == nil {
		t.Fatal("Body after the file changed: want the error")
	}
	if _, err := m.Render(engine.RenderOptions{Scope: scopeT7, Today: specToday}); errcode.Of(err) != errcode.Stale {
		t.Fatalf("Render over a changed note: %v, want stale", err)
	}
	if len(told) == 0 || told[0] != p {
		t.Fatalf("the stale hook heard %v, want %s", told, p)
	}
	// Without a hook the tree refreshes the note itself.
	m.SetOnStale(nil)
	if _, err := e.Text(); err == nil {
		t.Fatal("the old note read again: want stale")
	}
	now := m.Note(p)
	if now == nil || now == e || string(now.TextOrNil()) != newer {
		t.Fatalf("after a stale read the tree holds %v, want the new text", now)
	}
	if blk := render(t, m, engine.RenderOptions{}); !strings.Contains(blk.Text, "the new text") || strings.Contains(blk.Text, "the old text") {
		t.Errorf("the block after the refresh:\n%s", blk.Text)
	}
	// A note gone from the disk is stale too, never its old text.
	e = now
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Text(); errcode.Of(err) != errcode.Stale {
		t.Fatalf("Text of a removed note: %v, want stale", err)
	}
	if m.Note(p) != nil {
		t.Error("the removed note is still in the tree after the stale read")
	}
}
