package engine

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Two refreshes of one note record in the local history in the order they
// read the disk, whatever order their goroutines get to it. Here the
// watcher's refresh that loaded an editor's revision 6 is slow to record
// it; meanwhile the note is removed and a second refresh sees it gone. The
// history must end with the removal: a version the first refresh had
// (revision 5) logged after the deletion would be the "current" history of
// the note re-created at revision 1, and that new note would be flagged as
// overwriting revision 5.
func TestRefreshesRecordInTheOrderTheyRead(t *testing.T) {
	m, dir := newTree(t, map[string]string{"data/machine-id": "m-here\n"})
	p := filepath.Join(dir, "data", "memory", "user", "n.md")
	for rev := range 5 {
		if _, err := m.Write(WriteRequest{Dimension: User, Key: "n.md", ExpectRevision: rev, Body: []byte("engine\n")}); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(p, []byte("---\nrevision: 6\n---\nthe editor's, with willSave\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	m.seenHook = func(string) {
		first := false
		once.Do(func() { first = true })
		if first {
			close(entered)
			<-release
		}
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); m.Refresh(p) }() // loads revision 6, then is slow to record
	<-entered
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	second := make(chan struct{})
	go func() { defer wg.Done(); defer close(second); m.Refresh(p) }() // sees it gone
	// Give the second refresh the chance to record first (it must wait for
	// the first; with or without the wait it ends the same way).
	select {
	case <-second:
	case <-time.After(300 * time.Millisecond):
	}
	close(release)
	wg.Wait()
	m.seenHook = nil

	if _, err := m.Write(WriteRequest{Dimension: User, Key: "n.md", Body: []byte("a new note\n")}); err != nil {
		t.Fatal(err)
	}
	if o, ok := m.OverwriteAt(p); ok {
		t.Fatalf("the re-created note is flagged: revision %d over revision %d", o.Revision, o.LostRevision)
	}
	for _, want := range []string{"engine\n", "the editor's, with willSave\n"} {
		if !historyHolds(t, m, p, want) {
			t.Errorf("no version with body %q in the history", want)
		}
	}
}

func historyHolds(t *testing.T, m *Memory, p, body string) bool {
	t.Helper()
	vs, err := m.LocalHistory(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		if v.Blob == "" {
			continue
		}
		if b, err := m.HistoryVersion(p, v.Blob); err == nil && string(bodyOf(b)) == body {
			return true
		}
	}
	return false
}

// A folder of notes removed (or replaced) while the tree had them loaded: the
// watcher's refresh of the folder keeps each version the tree had, as a
// refresh of each note would, and logs the removal.
func TestRefreshOfAFolderKeepsWhatItDropped(t *testing.T) {
	loaded := "---\nrevision: 3\n---\nloaded, never written by the engine\n"
	m, dir := newTree(t, map[string]string{
		"data/machine-id":             "m-here\n",
		"data/memory/user/f/a.md":     loaded,
		"data/memory/user/f/g/b.md":   loaded + "b\n",
		"data/memory/user/f/keep.md":  loaded + "kept\n",
		"data/memory/user/outside.md": loaded + "outside\n",
	})
	folder := filepath.Join(dir, "data", "memory", "user", "f")
	a, b, keep := filepath.Join(folder, "a.md"), filepath.Join(folder, "g", "b.md"), filepath.Join(folder, "keep.md")
	if err := os.RemoveAll(filepath.Join(folder, "g")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	m.Refresh(folder)
	if m.Note(a) != nil || m.Note(b) != nil || m.Note(keep) == nil {
		t.Fatal("the refresh of the folder did not drop a.md and g/b.md, or dropped keep.md")
	}
	body := "loaded, never written by the engine\n"
	for p, want := range map[string]string{a: body, b: body + "b\n"} {
		if !historyHolds(t, m, p, want) {
			t.Errorf("%s: the version the tree had is not in the history", p)
		}
		if vs, _ := m.LocalHistory(p); len(vs) == 0 || vs[0].Blob != "" {
			t.Errorf("%s: the removal is not the newest entry: %+v", p, vs)
		}
	}
	if vs, _ := m.LocalHistory(keep); len(vs) != 0 {
		t.Errorf("keep.md did not change and has a history: %+v", vs)
	}
}

// A folder of notes that appears (moved in, unpacked from a backup) is
// judged as each note would be: an old copy of a note the history holds at a
// higher revision, removed while no process had it loaded, is flagged.
func TestRefreshOfAFolderJudgesWhatItLoaded(t *testing.T) {
	m, dir := newTree(t, map[string]string{"data/machine-id": "m-here\n"})
	p := filepath.Join(dir, "data", "memory", "user", "f", "n.md")
	for rev := range 3 {
		if _, err := m.Write(WriteRequest{Dimension: User, Key: "f/n.md", ExpectRevision: rev, Body: []byte("engine\n")}); err != nil {
			t.Fatal(err)
		}
	}
	folder := filepath.Dir(p)
	if err := os.RemoveAll(folder); err != nil {
		t.Fatal(err)
	}
	m, err := Open(Options{DataDir: filepath.Join(dir, "data")}) // a process that never had it
	if err != nil {
		t.Fatal(err)
	}
	backup := []byte("---\nrevision: 1\n---\nthe backup's\n")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, backup, 0o644); err != nil {
		t.Fatal(err)
	}
	m.Refresh(folder)
	if m.Note(p) == nil {
		t.Fatal("the folder's note did not load")
	}
	if o, ok := m.OverwriteAt(p); !ok || o.LostRevision != 3 || o.Revision != 1 {
		t.Errorf("the backup's revision 1 over revision 3 is not flagged: %+v", o)
	}
}
