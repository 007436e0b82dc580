package history

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func known(t *testing.T, s *Store, rel string, content []byte) bool {
	t.Helper()
	x, err := s.Sums()
	if err != nil {
		t.Fatal(err)
	}
	return x.Known(rel, sha256.Sum256(content))
}

// TestSumsKnowWhatTheLogsName: the sums file tells, by a content's SHA-256,
// whether a note's log names it (and its blob is there), without reading a
// version: after a record, for that note only; after a prune drops the
// entry (and its blob), no longer; a version logged before the file was
// kept is learned by Observe, which logs it once.
func TestSumsKnowWhatTheLogsName(t *testing.T) {
	s := For(t.TempDir())
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	v1, v2 := note(1, "one"), note(2, "two")
	if known(t, s, "a.md", v1) {
		t.Fatal("an empty history knows a version")
	}
	if err := s.Record("a.md", v1, Written, t0); err != nil {
		t.Fatal(err)
	}
	if err := s.Record("a.md", v2, Written, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if !known(t, s, "a.md", v1) || !known(t, s, "a.md", v2) || known(t, s, "b.md", v1) {
		t.Fatal("the sums do not say which note's log names what")
	}
	// A prune by age drops v1 (not the newest): the sums forget it.
	if _, err := s.Prune(Policy{MaxAge: time.Minute, MaxBytes: 1 << 30}, t0.Add(48*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if known(t, s, "a.md", v1) || !known(t, s, "a.md", v2) {
		t.Error("after the prune the sums still name the version it dropped, or lost the one kept")
	}
	// A history from before the sums file: Observe logs nothing twice.
	if err := os.Remove(filepath.Join(s.Dir(), sumsFile)); err != nil {
		t.Fatal(err)
	}
	hold := func() (bool, func()) { return true, func() {} }
	for range 2 {
		if kept, err := s.Observe("a.md", v2, t0, hold); err != nil || kept {
			t.Fatalf("Observe of a logged version: kept %v, %v", kept, err)
		}
	}
	if !known(t, s, "a.md", v2) {
		t.Error("Observe did not teach the sums a version logged before them")
	}
	if kept, err := s.Observe("b.md", v1, t0, func() (bool, func()) { return false, func() {} }); err != nil || kept || known(t, s, "b.md", v1) {
		t.Errorf("Observe logged a version the tree no longer holds: kept %v, %v", kept, err)
	}
	if kept, err := s.Observe("b.md", v1, t0, hold); err != nil || !kept || !known(t, s, "b.md", v1) {
		t.Errorf("Observe: kept %v, %v", kept, err)
	}
	if log, _ := s.Log("b.md"); len(log) != 1 || log[0].How != Observed {
		t.Errorf("b.md's log: %+v, want one observed entry", log)
	}
}
