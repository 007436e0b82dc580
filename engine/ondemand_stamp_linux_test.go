package engine_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/store"
)

// TestBodiesOnDemandTrustsAnUnchangedStamp: a note read on demand whose
// file's stamp (device, inode, size, modification and change times) is the
// one the load read, and was already more than 2 s old when the load
// started, is answered without hashing it; one whose change time moved (a
// rewrite of the same size with its modification time set back) is hashed
// and found changed; one written within 2 s of the load is hashed, however
// unchanged its stamp.
func TestBodiesOnDemandTrustsAnUnchangedStamp(t *testing.T) {
	old := note(3, strings.Repeat("the old text of a long note\n", 300))
	files := map[string]string{"data/memory/user/big.md": old}

	// The clock an hour ahead: every file was written long before the load.
	engine.SetLoadClock(t, func() time.Time { return time.Now().Add(time.Hour) })
	dir, _, m := openOnDemand(t, files)
	p := filepath.Join(dir, "data", "memory", "user", "big.md")
	e := m.Note(p)
	if e == nil || e.Resident() {
		t.Fatalf("want %s read on demand", p)
	}
	for i := range 2 {
		before := engine.OnDemandHashes()
		if src, err := e.Text(); err != nil || string(src) != old {
			t.Fatalf("read %d of an unchanged old file: %v", i, err)
		}
		if n := engine.OnDemandHashes() - before; n != 0 {
			t.Errorf("read %d of an unchanged old file hashed it %d times, want 0", i, n)
		}
	}

	m.SetOnStale(func(string) {})
	newer := note(3, strings.Repeat("the new text, same length!!\n", 300))
	rewriteKeepingMtime(t, p, newer)
	before := engine.OnDemandHashes()
	src, err := e.Text()
	var changed *engine.ChangedError
	if !errors.As(err, &changed) || changed.Hash != store.Hash([]byte(newer)) {
		t.Fatalf("after a rewrite of the same size and modification time: %q, %v; want a ChangedError with the new hash", src, err)
	}
	if n := engine.OnDemandHashes() - before; n != 1 {
		t.Errorf("the rewritten file was hashed %d times, want 1", n)
	}

	// The real clock: the files are younger than the load's start less 2 s.
	engine.SetLoadClock(t, time.Now)
	dir, _, m = openOnDemand(t, files)
	e = m.Note(filepath.Join(dir, "data", "memory", "user", "big.md"))
	before = engine.OnDemandHashes()
	if src, err := e.Text(); err != nil || string(src) != old {
		t.Fatalf("read of an unchanged young file: %v", err)
	}
	if n := engine.OnDemandHashes() - before; n != 1 {
		t.Errorf("a file written within 2 s of the load was hashed %d times, want 1", n)
	}
}

// TestBodiesOnDemandNeverStaleWhenOld is TestBodiesOnDemandNeverStale's
// change behind the tree's back for a tree loaded long after its files
// were written, where an unchanged stamp is trusted: a rewrite in place and
// a file replaced by a rename are still caught.
func TestBodiesOnDemandNeverStaleWhenOld(t *testing.T) {
	engine.SetLoadClock(t, func() time.Time { return time.Now().Add(time.Hour) })
	big := strings.Repeat("the old text of a long note\n", 300)
	dir, _, m := openOnDemand(t, map[string]string{"data/memory/user/big.md": note(3, big)})
	p := filepath.Join(dir, "data", "memory", "user", "big.md")
	e := m.Note(p)
	var told []string
	m.SetOnStale(func(path string) { told = append(told, path) })
	newer := note(3, strings.Repeat("the new text, same length!!\n", 300))
	rewriteTicked(t, p, func() {
		if err := os.WriteFile(p, []byte(newer), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	if _, err := e.Text(); !errors.As(err, new(*engine.ChangedError)) || len(told) != 1 {
		t.Fatalf("Text after a rewrite in place: %v (told %v); want stale", err, told)
	}
	m.SetOnStale(nil)
	e.Text() // the tree refreshes the note
	e = m.Note(p)
	if e == nil || string(e.TextOrNil()) != newer {
		t.Fatalf("after the refresh: %v", e)
	}
	renamed := note(3, strings.Repeat("a third text, same length!!\n", 300))
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, []byte(renamed), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Text(); !errors.As(err, new(*engine.ChangedError)) {
		t.Fatalf("Text after the file was replaced by a rename: %v; want stale", err)
	}
}

// rewriteKeepingMtime writes text over p (the same size as before) and sets
// its modification time back: only its change time says it changed.
func rewriteKeepingMtime(t *testing.T, p, text string) {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err != nil {
		t.Fatal(err)
	}
	mtime := time.Unix(0, st.Mtim.Nano())
	rewriteTicked(t, p, func() {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	})
	if err := syscall.Stat(p, &st); err != nil || st.Mtim.Nano() != mtime.UnixNano() || st.Size != int64(len(text)) {
		t.Fatalf("the rewrite did not keep the modification time and size: %v", err)
	}
}

// rewriteTicked runs write until p's change time differs from what it was:
// the file system's clock ticks every few milliseconds, and a write within
// the tick of the one before leaves an equal stamp (which the load's 2 s
// margin is for; the test's clock ahead has none).
func rewriteTicked(t *testing.T, p string, write func()) {
	t.Helper()
	var was syscall.Stat_t
	if err := syscall.Stat(p, &was); err != nil {
		t.Fatal(err)
	}
	for range 200 {
		write()
		var now syscall.Stat_t
		if err := syscall.Stat(p, &now); err != nil {
			t.Fatal(err)
		}
		if now.Ctim.Nano() != was.Ctim.Nano() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the change time never moved")
}
