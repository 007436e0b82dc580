package watch_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/watch"
)

// TestWatch: a note written by someone else, in a folder made after the watch
// started, reaches the tree and the callback in one batch.
func TestWatch(t *testing.T) {
	data := t.TempDir()
	if err := os.MkdirAll(filepath.Join(data, "memory", "user"), 0o755); err != nil {
		t.Fatal(err)
	}
	m, err := engine.Open(engine.Options{DataDir: data})
	if err != nil {
		t.Fatal(err)
	}
	batches := make(chan []string, 10)
	w, err := watch.Start(m, func(paths []string, changed bool) {
		if changed {
			batches <- paths
		}
	}, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	dir := filepath.Join(data, "memory", "user", "notes")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the new folder is watched once its create is seen
	note := filepath.Join(dir, "a.md")
	if err := os.WriteFile(note, []byte("---\nrevision: 1\n---\nhello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(10 * time.Second)
	for m.Note(note) == nil {
		select {
		case paths := <-batches:
			t.Logf("batch %v", paths)
			if slices.Contains(paths, note) && m.Note(note) == nil {
				t.Fatal("the callback ran before the tree was refreshed")
			}
		case <-deadline:
			t.Fatal("the new note never reached the tree")
		}
	}
}
