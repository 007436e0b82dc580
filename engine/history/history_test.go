package history

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func note(rev int, body string) []byte {
	return fmt.Appendf(nil, "---\nrevision: %d\nupdated: 2026-11-30T09:00:00.000Z\n---\n%s\n", rev, body)
}

func blobs(t *testing.T, s *Store, rel string) map[string]bool {
	t.Helper()
	log, err := s.Log(rel)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, e := range log {
		if e.Blob != "" {
			out[e.Blob] = true
		}
	}
	return out
}

// The history's bound (docs/cli.md#the-local-history): versions older than
// MaxAge go, then the oldest until the objects fit MaxBytes; the newest
// version of every note never goes, however old, nor a version an open
// overwrite names. What goes is gone from the object store too.
func TestPruneByPolicy(t *testing.T) {
	root := t.TempDir()
	s := For(root)
	day := 24 * time.Hour
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// a.md: revisions 1–5, one every 30 days; b.md: one version, 200 days old.
	for rev := 1; rev <= 5; rev++ {
		if err := s.Record("a.md", note(rev, fmt.Sprint("a", rev)), Written, t0.Add(time.Duration(rev-1)*30*day)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Record("b.md", note(1, "b only"), Written, t0); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(200 * day) // a1 200 days old, a2 170, a3 140, a4 110, a5 80
	got, err := s.Prune(Policy{MaxAge: 115 * day, MaxBytes: 1 << 30}, now)
	if err != nil {
		t.Fatal(err)
	}
	if got.Entries != 3 {
		t.Errorf("pruned %d entries, want 3 (a1, a2, a3: older than 115 days)", got.Entries)
	}
	a := blobs(t, s, "a.md")
	for rev := 1; rev <= 5; rev++ {
		id := BlobID(note(rev, fmt.Sprint("a", rev)))
		kept := rev >= 4
		if a[id] != kept {
			t.Errorf("a.md revision %d kept %v, want %v", rev, a[id], kept)
		}
		if _, err := s.Get(id); (err == nil) != kept {
			t.Errorf("a.md revision %d in the object store: %v, want kept %v", rev, err, kept)
		}
	}
	if b := blobs(t, s, "b.md"); !b[BlobID(note(1, "b only"))] {
		t.Error("b.md's only (newest) version was pruned for its age")
	}

	// The size bound: the oldest go until the rest fit; newest versions stay
	// even when they alone are over it.
	if _, err := s.Prune(Policy{MaxAge: 1000 * day, MaxBytes: 1}, now); err != nil {
		t.Fatal(err)
	}
	if a := blobs(t, s, "a.md"); len(a) != 1 || !a[BlobID(note(5, "a5"))] {
		t.Errorf("after the size bound a.md holds %v; want only revision 5 (its newest)", a)
	}
	if _, err := s.Get(BlobID(note(5, "a5"))); err != nil {
		t.Errorf("the newest version of a.md: %v", err)
	}
	if _, err := s.Get(BlobID(note(1, "b only"))); err != nil {
		t.Errorf("the newest version of b.md: %v", err)
	}

	// A version an open overwrite names stays whatever its age.
	lost := note(6, "a6")
	if err := s.Record("a.md", lost, Written, now); err != nil {
		t.Fatal(err)
	}
	over := note(1, "a stale copy")
	o, err := s.Seen("a.md", nil, over, func() []byte { return over }, now)
	if err != nil || o == nil || o.LostRevision != 6 {
		t.Fatalf("overwrite of revision 6: %+v, %v", o, err)
	}
	if err := s.Record("a.md", note(1, "a stale copy, edited"), Observed, now.Add(day)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prune(Policy{MaxAge: time.Hour, MaxBytes: 1}, now.Add(400*day)); err != nil {
		t.Fatal(err)
	}
	if b, err := s.Get(BlobID(lost)); err != nil || string(b) != string(lost) {
		t.Errorf("the version an open overwrite lost was pruned: %v", err)
	}

	// PruneDue applies the store's policy at most once a day.
	s.SetPolicy(Policy{MaxAge: time.Hour, MaxBytes: 1})
	if err := s.PruneDue(now); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), "pruned")); err != nil {
		t.Error("PruneDue left no stamp")
	}
}

// A disk version below the highest revision the history holds is an
// overwrite, unless the disk moved on when read again; one at the same
// revision (an edit in place) is not.
func TestSeenJudges(t *testing.T) {
	s := For(t.TempDir())
	now := time.Now()
	for rev := 1; rev <= 7; rev++ {
		if err := s.Record("n.md", note(rev, fmt.Sprint(rev)), Written, now); err != nil {
			t.Fatal(err)
		}
	}
	inPlace := note(7, "edited in place")
	if o, err := s.Seen("n.md", nil, inPlace, func() []byte { return inPlace }, now); o != nil || err != nil {
		t.Fatalf("an edit in place at revision 7 was judged an overwrite: %+v %v", o, err)
	}
	stale := note(3, "stale")
	if o, _ := s.Seen("n.md", nil, stale, func() []byte { return note(8, "moved on") }, now); o != nil {
		t.Fatalf("a stale read of a disk that moved on was judged an overwrite: %+v", o)
	}
	o, err := s.Seen("n.md", nil, stale, func() []byte { return stale }, now)
	if err != nil || o == nil || o.LostRevision != 7 || o.Lost != BlobID(inPlace) || o.Base != BlobID(note(3, "3")) {
		t.Fatalf("overwrite: %+v, %v; want revision 7 (the edit in place) lost, based on revision 3", o, err)
	}
	if _, ok := s.OverwriteAt("n.md"); !ok {
		t.Fatal("the overwrite is not open")
	}
	// The lost version back closes it.
	if err := s.Record("n.md", inPlace, Written, now); err != nil {
		t.Fatal(err)
	}
	if o, ok := s.OverwriteAt("n.md"); ok {
		t.Fatalf("still open after the lost version came back: %+v", o)
	}
}

// A tree that plants links in the history (a cloned project) never has a
// file written outside it: the links are not followed.
func TestLinksInTheHistoryLeadNowhere(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	s := For(root)
	if err := s.Record("a.md", note(1, "first"), Written, time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"log", "objects"} {
		if err := os.RemoveAll(filepath.Join(s.Dir(), name)); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, filepath.Join(s.Dir(), name)); err != nil {
			t.Fatal(err)
		}
	}
	_ = s.Record("a.md", note(2, "second"), Written, time.Now())
	_ = s.Record("b/c.md", note(1, "third"), Written, time.Now())
	if _, err := s.Prune(Policy{MaxAge: time.Nanosecond, MaxBytes: 1}, time.Now().Add(time.Hour)); err != nil {
		t.Log(err)
	}
	if es, _ := os.ReadDir(outside); len(es) != 0 {
		t.Fatalf("the history wrote outside itself through a link: %v", es)
	}
}

// Recording from many goroutines at once (appends retrying, the watcher)
// keeps every version.
func TestRecordConcurrently(t *testing.T) {
	s := For(t.TempDir())
	done := make(chan error)
	for g := range 8 {
		go func() {
			var err error
			for i := range 5 {
				if e := s.Record("a.md", note(g*10+i, fmt.Sprint(g, i)), Written, time.Now()); e != nil {
					err = e
				}
			}
			done <- err
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	for g := range 8 {
		for i := range 5 {
			if _, err := s.Get(BlobID(note(g*10+i, fmt.Sprint(g, i)))); err != nil {
				t.Fatal(err)
			}
		}
	}
	if log, _ := s.Log("a.md"); len(log) != 40 {
		t.Errorf("%d log entries, want 40", len(log))
	}
}

// looseObjects counts the history's loose objects and packs.
func looseObjects(t *testing.T, s *Store) (loose, packs int) {
	t.Helper()
	filepath.WalkDir(filepath.Join(s.Dir(), "objects"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		switch {
		case filepath.Base(filepath.Dir(p)) == "pack":
			if filepath.Ext(p) == ".pack" {
				packs++
			}
		default:
			loose++
		}
		return nil
	})
	return loose, packs
}

// A prune packs the versions it keeps into one pack and removes their
// loose objects and the older packs: every version kept still reads, the
// newest of each note included, from this store and from another process's
// that indexed the packs before; what the policy dropped is gone.
func TestPrunePacksWhatItKeeps(t *testing.T) {
	root := t.TempDir()
	s := For(root)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var ids []string
	body := ""
	for rev := 1; rev <= 40; rev++ {
		body += fmt.Sprintf("line %d of a note that grows\n", rev)
		c := note(rev, body)
		if err := s.Record("a.md", c, Written, t0.Add(time.Duration(rev)*time.Hour)); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, BlobID(c))
	}
	other := &Store{root: s.root, dir: s.dir, policy: DefaultPolicy} // another process
	if _, err := other.Get(ids[0]); err != nil {
		t.Fatal(err)
	}
	got, err := s.Prune(DefaultPolicy, t0.Add(50*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if got.Packed != 40 {
		t.Errorf("packed %d versions, want 40", got.Packed)
	}
	if loose, packs := looseObjects(t, s); loose != 0 || packs != 1 {
		t.Errorf("%d loose objects and %d packs after the prune, want 0 and 1", loose, packs)
	}
	for _, st := range []*Store{s, other} {
		for _, id := range ids {
			if _, err := st.Get(id); err != nil {
				t.Fatalf("version %s after the pack: %v", id[:7], err)
			}
		}
	}
	// More versions, and a policy that drops the oldest: the next prune
	// makes one pack of what is kept, without the versions dropped.
	for rev := 41; rev <= 45; rev++ {
		c := note(rev, body+fmt.Sprint("more ", rev))
		if err := s.Record("a.md", c, Written, t0.Add(time.Duration(rev)*time.Hour)); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, BlobID(c))
	}
	if _, err := s.Prune(Policy{MaxAge: 10 * time.Hour, MaxBytes: 1 << 30}, t0.Add(50*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if loose, packs := looseObjects(t, s); loose != 0 || packs != 1 {
		t.Errorf("%d loose objects and %d packs after the second prune, want 0 and 1", loose, packs)
	}
	for i, id := range ids {
		_, err := other.Get(id)
		if kept := i >= 39; (err == nil) != kept {
			t.Errorf("version %d: read error %v, want kept %v", i+1, err, kept)
		}
	}
	if _, err := s.Get(ids[len(ids)-1]); err != nil {
		t.Errorf("the newest version is gone: %v", err)
	}
	// A version recorded again after it was packed is stored (loose) again:
	// recording never trusts a pack a prune may replace.
	if err := s.Record("b.md", note(1, "b"), Written, t0); err != nil {
		t.Fatal(err)
	}
	if loose, _ := looseObjects(t, s); loose != 1 {
		t.Errorf("%d loose objects after one more version, want 1", loose)
	}
}

// TestRecordWhilePruning: a version is stored, then logged; a prune (another
// process's, or this one's PruneDue) between the two found a blob no entry
// named and deleted it. Every version recorded while prunes run must read
// back.
func TestRecordWhilePruning(t *testing.T) {
	dir := t.TempDir()
	writer := For(dir)
	pruner := &Store{root: writer.root, dir: writer.dir} // another process's
	stop := make(chan struct{})
	pruned := make(chan error)
	go func() {
		var err error
		for {
			select {
			case <-stop:
				pruned <- err
				return
			default:
			}
			if _, e := pruner.Prune(Policy{MaxAge: 24 * time.Hour, MaxBytes: 1 << 30}, time.Now()); e != nil {
				err = e
			}
		}
	}()
	for i := range 100 {
		if err := writer.Record(fmt.Sprintf("n%d.md", i%7), note(i+1, fmt.Sprint("v", i)), Written, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	if err := <-pruned; err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if _, err := writer.Get(BlobID(note(i+1, fmt.Sprint("v", i)))); err != nil {
			t.Fatalf("version %d recorded while pruning: %v", i, err)
		}
	}
}

// A version the log names already is there (its blob was stored under the
// same shared lock as the entry, and a prune deletes a blob only with the
// last entry naming it): judging it again takes no lock and stores nothing,
// so a refresh after a write, which sees the two versions the write just
// recorded, costs a read of the log. A version the log does not name still
// needs the lock.
func TestSeenOfLoggedVersionsTakesNoLock(t *testing.T) {
	s := For(t.TempDir())
	now := time.Now()
	v1, v2 := note(1, "one"), note(2, "two")
	for _, v := range [][]byte{v1, v2} {
		if err := s.Record("n.md", v, Written, now); err != nil {
			t.Fatal(err)
		}
	}
	lock := filepath.Join(s.Dir(), "lock")
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(lock, 0o755); err != nil { // any lock taken fails
		t.Fatal(err)
	}
	if o, err := s.Seen("n.md", v1, v2, func() []byte { return v2 }, now); o != nil || err != nil {
		t.Fatalf("Seen of two logged versions = %+v, %v; want nothing to do", o, err)
	}
	if err := s.Record("n.md", v2, Observed, now); err != nil {
		t.Fatalf("Record of a logged version: %v", err)
	}
	if err := s.Record("n.md", note(3, "three"), Written, now); err == nil {
		t.Fatal("a version the log does not name was recorded without the lock")
	}
}

// A history folder, or the .mf-lsp folder holding it, that is a link (a
// cloned tree that planted one) is refused: no version is written through it.
func TestHistoryFolderThatIsALinkIsRefused(t *testing.T) {
	for _, which := range []string{"history", ".mf-lsp"} {
		t.Run(which, func(t *testing.T) {
			root := t.TempDir()
			s := For(root)
			if err := s.Record("a.md", note(1, "first"), Written, time.Now()); err != nil {
				t.Fatal(err)
			}
			d := s.Dir()
			if which == ".mf-lsp" {
				d = filepath.Dir(d)
			}
			elsewhere := filepath.Join(root, "elsewhere")
			if err := os.Rename(d, elsewhere); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(elsewhere, d); err != nil {
				t.Fatal(err)
			}
			fresh := &Store{root: root, dir: DirOf(root), policy: DefaultPolicy}
			if err := fresh.Record("a.md", note(2, "second"), Written, time.Now()); err == nil {
				t.Fatal("a version was recorded through a link")
			}
			if vs, err := fresh.Versions("a.md"); err == nil && len(vs) > 0 {
				t.Fatalf("versions read through a link: %v", vs)
			}
		})
	}
}
