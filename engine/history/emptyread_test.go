package history

import (
	"testing"
	"time"
)

// A writer that truncates a note, then writes it (os.WriteFile, most
// editors) leaves it empty for a moment; a watcher reading it then sees an
// empty note, and the disk read again at once may still be empty. That read
// is no version: not an overwrite of the version before, and not logged.
func TestSeenEmptyReadBetweenTruncateAndWriteIsNoVersion(t *testing.T) {
	s := For(t.TempDir())
	t0 := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	v1, v2 := note(7, "first"), note(7, "first, edited in place")
	if err := s.Record("a.md", v1, Written, t0); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	writing := func() []byte { // the write lands 10 ms after the truncate
		if time.Since(start) < 10*time.Millisecond {
			return []byte{}
		}
		return v2
	}
	o, err := s.Seen("a.md", v1, []byte{}, writing, t0.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if o != nil {
		t.Errorf("an empty read between a truncate and a write opened an overwrite: %+v", *o)
	}
	// The tree held the empty note until the write's own event.
	if o, err = s.Seen("a.md", []byte{}, v2, func() []byte { return v2 }, t0.Add(2*time.Second)); err != nil || o != nil {
		t.Errorf("the write after it: overwrite %+v, %v; want none", o, err)
	}
	if ow, open := s.OverwriteAt("a.md"); open {
		t.Errorf("an overwrite is open: %+v", ow)
	}
	log, _ := s.Log("a.md")
	for _, e := range log {
		if e.Blob == BlobID(nil) {
			t.Errorf("the log holds the empty read as a version: %+v", e)
		}
	}
	if !has(log, BlobID(v2)) || !has(log, BlobID(v1)) {
		t.Errorf("the log lost a version with content: %+v", log)
	}
}

// A note that stays empty was emptied: the version before is kept and the
// emptying is an overwrite of it (Restore brings it back).
func TestSeenNoteEmptiedForGoodIsAnOverwrite(t *testing.T) {
	s := For(t.TempDir())
	t0 := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	v1 := note(7, "first")
	if err := s.Record("a.md", v1, Written, t0); err != nil {
		t.Fatal(err)
	}
	o, err := s.Seen("a.md", v1, []byte{}, func() []byte { return []byte{} }, t0.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if o == nil || o.Blob != BlobID(nil) || o.Lost != BlobID(v1) || o.LostRevision != 7 {
		t.Fatalf("emptying revision 7 for good: overwrite %+v; want one naming the empty version over revision 7", o)
	}
	if got, err := s.Get(o.Lost); err != nil || string(got) != string(v1) {
		t.Errorf("the version emptied is not in the history: %q, %v", got, err)
	}
}
