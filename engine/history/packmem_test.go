package history

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// text is n bytes of pseudo-random words: compresses as notes do, and no two
// seeds give versions that delta against each other.
func text(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	words := []string{"memory", "note", "agent", "task", "the", "a", "of", "decision", "keeps", "version", "root", "write", "because", "revision", "history"}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[rng.IntN(len(words))])
		if rng.IntN(9) == 0 {
			fmt.Fprintf(&b, " %d\n", rng.Uint32())
		} else {
			b.WriteByte(' ')
		}
	}
	return []byte(b.String()[:n])
}

// heapPeak runs fn and returns how far the heap in use grew above what it
// was before fn, sampled every few milliseconds.
func heapPeak(fn func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapInuse, ms.HeapInuse
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	fn()
	close(stop)
	wg.Wait()
	return peak - base
}

// Lean at any note size: a prune packs its loose versions in bounded
// batches, so the heap it takes does not grow with what it packs. 48 MB of
// distinct 8-64 KB versions (32 MB with -short) must pack within 48 MB of
// heap; one pack of everything held it all. Under the race detector, which
// is there for the prune's locking rather than its heap, 20 MB: still three
// batches, at well under half the cost.
func TestPackingKeepsTheHeapBounded(t *testing.T) {
	total := 48 << 20
	switch {
	case raceEnabled:
		total = 2*PackBatch + PackBatch/2
	case testing.Short():
		total = 32 << 20
	}
	root := t.TempDir()
	s := For(root)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var ids []string
	for i, n := 0, 0; n < total; i++ {
		size := 8<<10 + int(uint64(i)*7919%(56<<10))
		c := append(note(1, ""), text(uint64(i), size)...)
		if err := s.Record(fmt.Sprintf("n%05d.md", i), c, Observed, t0); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, BlobID(c))
		n += len(c)
	}
	const bound = 48 << 20
	var err error
	grew := heapPeak(func() { _, err = s.Prune(DefaultPolicy, t0.Add(time.Hour)) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d versions, %d MB: the prune's heap grew %.1f MB", len(ids), total>>20, float64(grew)/(1<<20))
	if grew > bound {
		t.Errorf("packing %d MB of versions grew the heap by %.1f MB, want at most %d MB", total>>20, float64(grew)/(1<<20), bound>>20)
	}
	if loose, _ := looseObjects(t, s); loose != 0 {
		t.Errorf("%d loose objects after the prune, want 0", loose)
	}
	for _, id := range ids {
		if _, err := s.Get(id); err != nil {
			t.Fatalf("version %s after the prune: %v", id[:7], err)
		}
	}
}

func packFiles(t *testing.T, s *Store) map[string]bool {
	t.Helper()
	es, err := os.ReadDir(filepath.Join(s.Dir(), "objects", "pack"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, e := range es {
		if filepath.Ext(e.Name()) == ".pack" {
			out[e.Name()] = true
		}
	}
	return out
}

// A prune packs only the loose versions: a pack made before stays as it is
// until at least half of it (by size) is dropped by the policy; then what it
// keeps is packed again and it goes, with the versions dropped.
func TestPruneKeepsOldPacksUntilHalfIsDropped(t *testing.T) {
	s := For(t.TempDir())
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	record := func(rel string, rev int, at time.Duration) string {
		t.Helper()
		c := append(note(rev, ""), text(uint64(rev)<<8|uint64(len(rel)), 4<<10)...)
		if err := s.Record(rel, c, Written, t0.Add(at)); err != nil {
			t.Fatal(err)
		}
		return BlobID(c)
	}
	// Ten versions of a.md (hours 1-10), then a.md's newest and b.md.
	var a []string
	for rev := 1; rev <= 10; rev++ {
		a = append(a, record("a.md", rev, time.Duration(rev)*time.Hour))
	}
	loose := Policy{MaxAge: 1000 * time.Hour, MaxBytes: 1 << 30}
	if _, err := s.Prune(loose, t0.Add(11*time.Hour)); err != nil {
		t.Fatal(err)
	}
	first := packFiles(t, s)
	if len(first) != 1 {
		t.Fatalf("%d packs after the first prune, want 1", len(first))
	}
	b := record("bb.md", 1, 12*time.Hour)
	got, err := s.Prune(loose, t0.Add(12*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	second := packFiles(t, s)
	if got.Packed != 1 || len(second) != 2 {
		t.Errorf("second prune packed %d versions into %d packs in all, want 1 and 2", got.Packed, len(second))
	}
	for p := range first {
		if !second[p] {
			t.Errorf("the first pack was rewritten for one more version")
		}
	}
	// Three of a.md's ten versions dropped: under half, the pack stays and
	// they still read.
	if _, err := s.Prune(Policy{MaxAge: 1000*time.Hour - 4*time.Hour + time.Minute, MaxBytes: 1 << 30}, t0.Add(1000*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if third := packFiles(t, s); len(third) != 2 {
		t.Errorf("%d packs after dropping 3 of 10 versions, want the 2 there", len(third))
	}
	// Seven of ten dropped: the pack is rewritten without them.
	got, err = s.Prune(Policy{MaxAge: 1000*time.Hour - 8*time.Hour + time.Minute, MaxBytes: 1 << 30}, t0.Add(1000*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if got.Packed != 3 {
		t.Errorf("packed %d versions when 7 of 10 went, want the 3 kept", got.Packed)
	}
	fourth := packFiles(t, s)
	for p := range first {
		if fourth[p] {
			t.Errorf("the pack that lost 7 of 10 versions is still there")
		}
	}
	other := &Store{root: s.root, dir: s.dir, policy: DefaultPolicy}
	for i, id := range a {
		_, err := other.Get(id)
		if kept := i >= 7; (err == nil) != kept {
			t.Errorf("a.md version %d: read error %v, want kept %v", i+1, err, kept)
		}
	}
	if _, err := other.Get(b); err != nil {
		t.Errorf("bb.md: %v", err)
	}
}

// A prune a day makes a pack a day: beyond MaxPacks the small ones are
// merged, so a year of prunes does not leave a year of packs.
func TestSmallPacksAreMerged(t *testing.T) {
	s := For(t.TempDir())
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var ids []string
	for day := range 3 * MaxPacks {
		c := append(note(1, ""), text(uint64(day), 2<<10)...)
		if err := s.Record(fmt.Sprintf("d%d.md", day), c, Written, t0.Add(time.Duration(day)*24*time.Hour)); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, BlobID(c))
		if _, err := s.Prune(DefaultPolicy, t0.Add(time.Duration(day)*24*time.Hour)); err != nil {
			t.Fatal(err)
		}
		if n := len(packFiles(t, s)); n > MaxPacks+1 {
			t.Fatalf("day %d: %d packs, want at most %d", day, n, MaxPacks+1)
		}
	}
	for _, id := range ids {
		if _, err := s.Get(id); err != nil {
			t.Fatalf("version %s: %v", id[:7], err)
		}
	}
}

// BenchmarkGetAmongPacks: what a version's read costs when the history
// holds it among 50 packs rather than in one (go-git looks a version up in
// each pack's index in turn).
func BenchmarkGetAmongPacks(b *testing.B) {
	for _, packs := range []int{1, 50} {
		b.Run(fmt.Sprint(packs, " packs"), func(b *testing.B) {
			s := For(b.TempDir())
			var ids []plumbing.Hash
			for i := range 50 {
				c := append(note(1, ""), text(uint64(i), 4<<10)...)
				if err := s.Record(fmt.Sprintf("n%d.md", i), c, Written, time.Now()); err != nil {
					b.Fatal(err)
				}
				ids = append(ids, plumbing.NewHash(BlobID(c)))
			}
			r, done, err := s.openRoot()
			if err != nil {
				b.Fatal(err)
			}
			defer done()
			per := len(ids) / packs
			for i := 0; i < len(ids); i += per {
				if _, err := s.packBatch(r, ids[i:i+per]); err != nil {
					b.Fatal(err)
				}
			}
			for _, h := range ids {
				_ = r.Remove(looseName(h))
			}
			s.obj.reindex()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if _, err := s.Get(ids[i%len(ids)].String()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
