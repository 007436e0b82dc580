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
