package hashcache

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

var testHeader = []byte("hashcache test 1\n")

func header() []byte { return testHeader }

func keyOf(s string) Key { return KeyOf([]byte(s)) }

// TestConcurrentWriters: processes writing at once never leave a damaged
// file; every value in it is one somebody made.
func TestConcurrentWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "values")
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 20 {
				c := Open(path, header, 1<<16)
				for i := range 50 {
					text := fmt.Sprintf("w%d r%d t%d", w, round, i)
					c.Add(keyOf(text), uint32(len(text)))
				}
				if err := c.Flush(); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	records := Open(path, header, 1<<16).Records()
	if records == nil {
		t.Fatal("the cache file is unusable after concurrent writes")
	}
	for i := 0; i < len(records); i += RecordSize {
		if !Intact(records[i : i+RecordSize]) {
			t.Fatalf("record %d damaged", i/RecordSize)
		}
	}
	// The last writer's values are all there, and right.
	for i := range 50 {
		for w := range 8 {
			text := fmt.Sprintf("w%d r19 t%d", w, i)
			if n, ok := Find(records, keyOf(text)); ok && int(n) != len(text) {
				t.Fatalf("%q: cached %d, want %d", text, n, len(text))
			}
		}
	}
	if matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".values-*")); len(matches) != 0 {
		t.Errorf("temporary files left behind: %v", matches)
	}
}

// TestBounded: past the bound, the values this process used or made are
// kept and older ones dropped.
func TestBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "values")
	old := Open(path, header, 100)
	for i := range 100 {
		old.Add(keyOf(fmt.Sprintf("old %d", i)), uint32(i))
	}
	if err := old.Flush(); err != nil {
		t.Fatal(err)
	}
	c := Open(path, header, 100)
	if n, ok := c.Lookup(keyOf("old 7")); !ok || n != 7 {
		t.Fatalf("old 7: %d, %v", n, ok)
	}
	for i := range 60 {
		c.Add(keyOf(fmt.Sprintf("new %d", i)), uint32(i))
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := (info.Size() - int64(len(testHeader))) / RecordSize; got != 100 {
		t.Errorf("%d records, want the bound (100)", got)
	}
	records := Open(path, header, 100).Records()
	if _, ok := Find(records, keyOf("old 7")); !ok {
		t.Error("a value this process used was dropped")
	}
	for i := range 60 {
		if n, ok := Find(records, keyOf(fmt.Sprintf("new %d", i))); !ok || int(n) != i {
			t.Errorf("new %d: %d, %v", i, n, ok)
		}
	}
}

// TestOtherHeader: a file written under another header (another format or
// version of what made the values) is empty to this one, and replaced.
func TestOtherHeader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "values")
	c := Open(path, func() []byte { return []byte("hashcache test 0\n") }, 100)
	c.Add(keyOf("a"), 1)
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	now := Open(path, header, 100)
	if _, ok := now.Lookup(keyOf("a")); ok {
		t.Fatal("a value written under another header was found")
	}
	now.Add(keyOf("b"), 2)
	if err := now.Flush(); err != nil {
		t.Fatal(err)
	}
	if n, ok := Open(path, header, 100).Lookup(keyOf("b")); !ok || n != 2 {
		t.Errorf("b: %d, %v after replacing the other header's file", n, ok)
	}
}

// TestFlushOfNothingReadsNothing: a command that made no value (mf-hook
// append, version) pays no read of the cache file at its exit, nor the
// header's build information; the first lookup after it reads the file.
func TestFlushOfNothingReadsNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "values")
	c := Open(path, header, 16)
	c.Add(keyOf("a"), 1)
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	asked := 0
	c = Open(path, func() []byte { asked++; return testHeader }, 16)
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	if asked != 0 {
		t.Errorf("Flush with nothing added read the file (asked for the header %d times)", asked)
	}
	if n, ok := c.Lookup(keyOf("a")); !ok || n != 1 || asked != 1 {
		t.Errorf("Lookup after an empty Flush = %d, %v (header asked %d times); want 1, true (once)", n, ok, asked)
	}
}
