package watch

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
)

// TestOpenMissesNoWriteBeforeAFolderIsWatched: the folders a load reports
// are watched by a goroutine beside it, and a note written while its folder
// is not yet watched reaches the tree all the same, because the load reads
// no note before its folder is watched. The load used to read on: a write
// between its read and the goroutine's add was never seen, and Neovim's
// 10_conflict found its buffer never flagged stale on a loaded CI machine.
// Here the goroutine is held up at the note's folder, and the note written
// then, as an agent would.
func TestOpenMissesNoWriteBeforeAFolderIsWatched(t *testing.T) {
	data := t.TempDir()
	notes := filepath.Join(data, "memory", "agent", "larry", "notes")
	for _, rel := range []string{"memory/user/notes/a.md", "memory/agent/larry/notes/deep/b.md", "memory/agent/larry/notes/c.md"} {
		p := filepath.Join(data, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("---\nrevision: 1\n---\nas loaded\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := filepath.Join(notes, "c.md")
	beforeAdd := func(dir string) {
		if dir != notes {
			return
		}
		time.Sleep(100 * time.Millisecond) // the load read on here
		if err := os.WriteFile(c, []byte("---\nrevision: 5\n---\nagent body\n"), 0o644); err != nil {
			t.Error(err)
		}
	}
	changed := make(chan []string, 10)
	m, w, err := open(engine.Options{DataDir: data}, func(_ *engine.Memory, paths []string, _ bool) { changed <- paths }, t.Logf, beforeAdd)
	if err != nil || w == nil {
		t.Fatalf("Open: %v (watcher %v)", err, w)
	}
	defer w.Close()
	deadline := time.After(5 * time.Second)
	for m.Note(c) == nil || m.Note(c).Revision() != 5 {
		select {
		case <-changed:
		case <-deadline:
			t.Fatal("the tree never had revision 5: the write before the folder was watched was missed")
		}
	}
}
