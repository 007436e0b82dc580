package history

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The store skips making the folders it made before; one removed behind its
// back (a prune, a user) is made again by the write that finds it gone.
func TestFoldersRemovedBehindTheStore(t *testing.T) {
	s := For(t.TempDir())
	c := append(note(1, ""), text(7, 2<<10)...)
	if err := s.Record("agent/a/topics/n1.md", c, Written, time.Now()); err != nil {
		t.Fatal(err)
	}
	id := BlobID(c)
	// The log's folder and the version's fan-out folder, both gone.
	if err := os.RemoveAll(filepath.Join(s.dir, "log", "agent")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(s.dir, "objects", id[:2])); err != nil {
		t.Fatal(err)
	}
	if err := s.Record("agent/a/topics/n2.md", c, Written, time.Now()); err != nil {
		t.Fatalf("a write into folders removed behind the store: %v", err)
	}
	log, err := s.Log("agent/a/topics/n2.md")
	if err != nil || !has(log, id) {
		t.Fatalf("the log does not name the version (%v): %+v", err, log)
	}
	if got, err := s.Get(id); err != nil || string(got) != string(c) {
		t.Fatalf("the version is not stored again: %v", err)
	}
}
