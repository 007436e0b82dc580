package history

import (
	"bytes"
	"fmt"
	"os"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/magicfrog/mf-lsp/engine/store"
)

// TestInterleavedWriterAndWatcher: one note, a writer (an engine process:
// it puts its version on disk under the store's lock, then records it,
// Replaced and Record) and a watcher of another process (Seen of what it
// loaded, with the disk read again), and now and then a foreign program
// writing a lower revision (an editor's stale save). In any interleaving of
// their steps: a watcher that sees the writer's version before the writer
// recorded it opens no overwrite (the writer's own Replaced judges what it
// replaced, not what it wrote); a foreign lower revision the watcher saw,
// or the writer wrote over, is flagged, and stays flagged while it is on
// disk (the writer recording its version after the watcher saw the foreign
// one over it closes nothing); and every version that was on disk is in the
// history.
func TestInterleavedWriterAndWatcher(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		dir, err := os.MkdirTemp("", "history-interleave-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		s := For(dir)
		rev := func(b []byte) int { r, _ := store.RevisionOf(b); return r }
		at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
		disk := note(1, "first")
		if err := s.Record("n.md", disk, Written, at); err != nil {
			t.Fatal(err)
		}
		var tree []byte          // what the watcher loaded last (nil: nothing yet)
		var pending [2][]byte    // a write on disk its writer has not recorded: replaced, written
		top := 1                 // the highest revision that was on disk
		foreign := false         // a foreign lower revision reached the disk
		var lower []byte         // that version
		onDisk := [][]byte{disk} // every version that was on disk
		for i := range rapid.IntRange(1, 30).Draw(t, "steps") {
			at = at.Add(time.Second)
			switch rapid.IntRange(0, 3).Draw(t, "step") {
			case 0: // the writer puts its next version on disk
				if pending[1] != nil {
					continue
				}
				next := note(rev(disk)+1, fmt.Sprint("write ", i))
				pending = [2][]byte{disk, next}
				disk = next
			case 1: // the writer records it
				if pending[1] == nil {
					continue
				}
				old, written := pending[0], pending[1]
				pending = [2][]byte{}
				hashChecked := rapid.Bool().Draw(t, "hash checked")
				if _, err := s.Replaced("n.md", old, hashChecked, BlobID(written), rev(written), at); err != nil {
					t.Fatal(err)
				}
				if err := s.Wrote("n.md", written, func() []byte { return disk }, at); err != nil {
					t.Fatal(err)
				}
				if _, ok := s.OverwriteAt("n.md"); foreign && bytes.Equal(old, lower) && !ok {
					t.Fatalf("step %d: a write over a foreign revision %d was not flagged", i, rev(old))
				}
			case 2: // the watcher sees the disk
				now := disk
				if _, err := s.Seen("n.md", tree, now, func() []byte { return disk }, at); err != nil {
					t.Fatal(err)
				}
				tree = now
				if bytes.Equal(now, lower) {
					if _, ok := s.OverwriteAt("n.md"); !ok {
						t.Fatalf("step %d: a foreign revision %d over revision %d was seen and not flagged", i, rev(now), top)
					}
				}
			case 3: // a foreign program writes a lower revision, below what the history holds
				below := rev(disk) - 1
				if pending[1] != nil {
					below-- // the writer's version is on disk, not yet in the history
				}
				if foreign || below < 1 {
					continue
				}
				disk = note(rapid.IntRange(1, below).Draw(t, "foreign revision"), fmt.Sprint("foreign ", i))
				foreign, lower = true, disk
			}
			if tree != nil && bytes.Equal(tree, lower) && bytes.Equal(disk, lower) {
				if _, ok := s.OverwriteAt("n.md"); !ok {
					t.Fatalf("step %d: the foreign revision %d the watcher saw is on disk and no longer flagged", i, rev(disk))
				}
			}
			top = max(top, rev(disk))
			onDisk = append(onDisk, disk)
			if o, ok := s.OverwriteAt("n.md"); ok && !foreign {
				t.Fatalf("step %d: an overwrite with no foreign write: revision %d over revision %d", i, o.Revision, o.LostRevision)
			}
		}
		// What the watcher or the writer will still see of the disk.
		if pending[1] != nil {
			if _, err := s.Replaced("n.md", pending[0], true, BlobID(pending[1]), rev(pending[1]), at); err != nil {
				t.Fatal(err)
			}
			if err := s.Record("n.md", pending[1], Written, at); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Seen("n.md", tree, disk, func() []byte { return disk }, at); err != nil {
			t.Fatal(err)
		}
		for _, v := range onDisk {
			if _, err := s.Get(BlobID(v)); err != nil {
				t.Fatalf("a version that was on disk is not in the history: %v\n%s", err, v)
			}
		}
	})
}

// The failure TestInterleavedWriterAndWatcher found, as it happens between an
// agent's mf-lsp write and a server watching the note: the server's watcher
// logs revision 4 after the agent's store wrote it and before the agent
// recorded it; the agent's Replaced of revision 3 is no overwrite of its own
// revision 4 (it was flagged "revision 4 was overwritten by revision 3",
// and the editor's save over revision 7 later was named as that one).
func TestReplacedIsNotJudgedAgainstTheVersionWritten(t *testing.T) {
	s := For(t.TempDir())
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	for rev := 1; rev <= 3; rev++ {
		if err := s.Record("n.md", note(rev, fmt.Sprint(rev)), Written, at); err != nil {
			t.Fatal(err)
		}
	}
	r3, r4 := note(3, "3"), note(4, "4")
	if o, err := s.Seen("n.md", r3, r4, func() []byte { return r4 }, at); o != nil || err != nil {
		t.Fatalf("the watcher: %+v %v", o, err)
	}
	for _, hashChecked := range []bool{false, true} {
		if o, err := s.Replaced("n.md", r3, hashChecked, BlobID(r4), 4, at); o != nil || err != nil {
			t.Fatalf("the writer's Replaced (hash checked %v): %+v %v; want no overwrite", hashChecked, o, err)
		}
	}
	if err := s.Record("n.md", r4, Written, at); err != nil {
		t.Fatal(err)
	}
	if o, ok := s.OverwriteAt("n.md"); ok {
		t.Fatalf("open overwrite: %+v", o)
	}
}

// An editor that saves by truncating the file, then writing it: a watcher
// that reads the empty file in between opens the overwrite of revision 7 by
// it (revision 0, no base); the save's own version, seen next, is what the
// overwrite names, with the version it was based on (the Merge needs it).
func TestAnOpenOverwriteNamesTheVersionOnDisk(t *testing.T) {
	s := For(t.TempDir())
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	for rev := 1; rev <= 7; rev++ {
		if err := s.Record("n.md", note(rev, fmt.Sprint(rev)), Written, at); err != nil {
			t.Fatal(err)
		}
	}
	empty, mine := []byte{}, note(1, "1, edited in the editor")
	if o, _ := s.Seen("n.md", note(7, "7"), empty, func() []byte { return empty }, at); o == nil || o.LostRevision != 7 || o.Revision != 0 {
		t.Fatalf("the empty file: %+v", o)
	}
	if _, err := s.Seen("n.md", empty, mine, func() []byte { return mine }, at); err != nil {
		t.Fatal(err)
	}
	o, ok := s.OverwriteAt("n.md")
	if !ok || o.LostRevision != 7 || o.Blob != BlobID(mine) || o.Revision != 1 || o.Base != BlobID(note(1, "1")) {
		t.Fatalf("open overwrite %+v; want revision 7 lost to the editor's revision 1, based on revision 1", o)
	}
	if _, err := s.Get(BlobID(empty)); err != nil {
		t.Errorf("the empty version is not kept: %v", err)
	}
}
