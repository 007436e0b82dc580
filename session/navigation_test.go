package session

import (
	"path/filepath"
	"testing"
)

// The backlink index and completion's candidates are built once per tree
// version, and follow the tree: a note written since is in the next answer,
// a note that did not change keeps the links found in it before.
func TestNavigationIndexesFollowTheTree(t *testing.T) {
	s, data := loaded(t, Options{})
	user := filepath.Join(data, "memory", "user")
	style, guide, plan := filepath.Join(user, "style.md"), filepath.Join(user, "guide.md"), filepath.Join(user, "plan.md")
	writeNote(t, style, tone)
	writeNote(t, guide, "---\nrevision: 1\n---\nSee [style](style.md).\n")
	s.Refresh([]string{style, guide})
	snap, err := s.Snapshot(style)
	if err != nil {
		t.Fatal(err)
	}
	if got := Backlinks(snap, snap.Note); len(got) != 1 || got[0].Path != guide {
		t.Fatalf("backlinks %+v, want the guide's link", got)
	}
	// The watcher may still refresh the notes just written (a refresh is a
	// new version of the tree); the index is judged only when none came.
	idx, v := snap.tree.links.idx, snap.Memory.Version()
	_ = Backlinks(snap, snap.Note)
	if snap.tree.links.idx != idx && snap.Memory.Version() == v {
		t.Error("the backlink index was built again for an unchanged tree")
	}
	wiki := func(snap *Snapshot) int { // candidates for "[[p"
		list := snap.tree.candidates.lists(snap).list()
		n := 0
		for _, c := range list {
			if c.note.Key == "plan.md" {
				n++
			}
		}
		return n
	}
	if n := wiki(snap); n != 0 {
		t.Fatalf("plan.md offered before it exists")
	}

	writeNote(t, plan, "---\nrevision: 1\n---\nRead [[style]].\n")
	s.Refresh([]string{plan})
	snap, err = s.Snapshot(style)
	if err != nil {
		t.Fatal(err)
	}
	got := Backlinks(snap, snap.Note)
	if len(got) != 2 || got[0].Path != guide || got[1].Path != plan {
		t.Fatalf("backlinks after a new note %+v, want the guide's and the plan's", got)
	}
	if _, kept := snap.tree.links.idx.out[snap.Memory.Note(guide)]; !kept {
		t.Error("the guide's links are not in the new index")
	}
	if n := wiki(snap); n != 1 {
		t.Errorf("plan.md offered %d times after it was written, want once", n)
	}
}
