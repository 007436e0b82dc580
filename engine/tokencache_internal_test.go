package engine

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func newTestCache(dir string) *tokenCache {
	return &tokenCache{dir: dir, added: map[tokenKey]uint32{}, used: map[tokenKey]bool{}}
}

func keyOf(s string) tokenKey {
	sum := sha256.Sum256([]byte(s))
	return tokenKey(sum[:16])
}

// add records a count as countTokens does after tokenizing.
func (c *tokenCache) add(text string, n int) {
	c.mu.Lock()
	c.added[keyOf(text)] = uint32(n)
	c.mu.Unlock()
}

// TestTokenCacheConcurrentWriters: processes writing at once never leave a
// damaged file; every count in it is one somebody made.
func TestTokenCacheConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 20 {
				c := newTestCache(dir)
				for i := range 50 {
					text := fmt.Sprintf("w%d r%d t%d", w, round, i)
					c.add(text, len(text))
				}
				if err := c.flush(); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	c := newTestCache(dir)
	records := c.read()
	if records == nil {
		t.Fatal("the cache file is unusable after concurrent writes")
	}
	for i := 0; i < len(records); i += tokenRecordSize {
		if !recordIntact(records[i : i+tokenRecordSize]) {
			t.Fatalf("record %d damaged", i/tokenRecordSize)
		}
	}
	// The last writer's counts are all there, and right.
	for i := range 50 {
		for w := range 8 {
			text := fmt.Sprintf("w%d r19 t%d", w, i)
			if n, ok := findRecord(records, keyOf(text)); ok && n != len(text) {
				t.Fatalf("%q: cached %d, want %d", text, n, len(text))
			}
		}
	}
	if matches, _ := filepath.Glob(filepath.Join(dir, ".token-counts-*")); len(matches) != 0 {
		t.Errorf("temporary files left behind: %v", matches)
	}
}

// TestTokenCacheBounded: past the bound, the counts this process used or made
// are kept and older ones dropped.
func TestTokenCacheBounded(t *testing.T) {
	defer func(n int) { tokenCacheMaxRecords = n }(tokenCacheMaxRecords)
	tokenCacheMaxRecords = 100
	dir := t.TempDir()
	old := newTestCache(dir)
	for i := range 100 {
		old.add(fmt.Sprintf("old %d", i), i)
	}
	if err := old.flush(); err != nil {
		t.Fatal(err)
	}
	c := newTestCache(dir)
	if n, ok := c.lookup(keyOf("old 7")); !ok || n != 7 {
		t.Fatalf("old 7: %d, %v", n, ok)
	}
	for i := range 60 {
		c.add(fmt.Sprintf("new %d", i), i)
	}
	if err := c.flush(); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(dir, TokenCacheFile))
	if err != nil {
		t.Fatal(err)
	}
	if got := (info.Size() - int64(len(tokenCacheHeader()))) / tokenRecordSize; got != 100 {
		t.Errorf("%d records, want the bound (100)", got)
	}
	records := newTestCache(dir).read()
	if _, ok := findRecord(records, keyOf("old 7")); !ok {
		t.Error("a count this process used was dropped")
	}
	for i := range 60 {
		if n, ok := findRecord(records, keyOf(fmt.Sprintf("new %d", i))); !ok || n != i {
			t.Errorf("new %d: %d, %v", i, n, ok)
		}
	}
}
