package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A one-shot memory (Options.OneShot: the CLI's append) does not read a
// note it wrote back into the tree, and writes exactly as any memory: the
// disk, the result and the local history are the same; only the tree stays
// the load's. A write against the load's revision after another writer's
// is refused by the store, not lost.
func TestOneShotWrite(t *testing.T) {
	dir := t.TempDir()
	note := filepath.Join(dir, "data/memory/user/style.md")
	if err := os.MkdirAll(filepath.Dir(note), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(note, []byte("---\nrevision: 1\n---\nv1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	open := func(oneShot bool) *Memory {
		m, err := Open(Options{DataDir: filepath.Join(dir, "data"), OneShot: oneShot})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := open(true)
	if !m.OneShot() || open(false).OneShot() {
		t.Fatal("OneShot does not say what the options said")
	}
	res, err := m.Write(WriteRequest{Dimension: User, Key: "style.md", Body: []byte("v2\n"), ExpectRevision: 1, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	want := "---\nrevision: 2\nupdated: 2026-11-30T09:00:00.000Z\n---\nv2\n"
	if got := read(t, note); got != want || res.Revision != 2 || res.Hash != open(false).Note(note).Hash() {
		t.Fatalf("the write: rev %d hash %s\n%s", res.Revision, res.Hash, got)
	}
	if e := m.Note(note); e == nil || e.Revision() != 1 {
		t.Fatalf("the one-shot tree read its own write back: %v", e)
	}
	vs, err := m.LocalHistory(note)
	if err != nil || len(vs) != 2 || vs[0].Revision != 2 || vs[1].Revision != 1 {
		t.Fatalf("the local history: %+v, %v", vs, err)
	}
	// Another writer's revision 3 lands; a write from this tree's revision
	// (still 1) is stale, and the note stays the other writer's.
	if _, err := open(false).Write(WriteRequest{Dimension: User, Key: "style.md", Body: []byte("v3\n"), ExpectRevision: 2, Now: fixedNow}); err != nil {
		t.Fatal(err)
	}
	_, err = m.Write(WriteRequest{Dimension: User, Key: "style.md", Body: []byte("lost?\n"), ExpectRevision: m.Note(note).Revision(), Now: fixedNow})
	if st, ok := IsStale(err); !ok || st.Revision != 3 {
		t.Fatalf("a write from the load's revision: %v", err)
	}
	if got := read(t, note); !strings.Contains(got, "v3\n") {
		t.Fatalf("the refused write changed the note:\n%s", got)
	}
}
