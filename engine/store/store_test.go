package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	if role := os.Getenv(workerEnv); role != "" {
		os.Exit(runWorker(role))
	}
	os.Exit(m.Run())
}

// note composes a note as the engine writes it.
func note(rev int, body string) []byte {
	return []byte(fmt.Sprintf("---\nrevision: %d\nupdated: 2026-10-20T09:12:00.000Z\n---\n%s\n", rev, body))
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustWrite(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func wantStale(t *testing.T, err error, exists bool, rev int) *StaleError {
	t.Helper()
	st, ok := IsStale(err)
	if !ok {
		t.Fatalf("want *StaleError, got %v", err)
	}
	if st.Exists != exists || st.Revision != rev {
		t.Fatalf("StaleError exists=%v revision=%d, want %v %d (%v)", st.Exists, st.Revision, exists, rev, err)
	}
	return st
}

func TestHash(t *testing.T) {
	if got := Hash(nil); got != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Fatalf("Hash(nil) = %s", got)
	}
	if Hash([]byte("a")) == Hash([]byte("b")) || Hash([]byte("x")) != Hash([]byte("x")) {
		t.Fatal("Hash is not a stable content hash")
	}
}

func TestRevisionOf(t *testing.T) {
	for _, c := range []struct {
		name, src string
		rev       int
		readable  bool
	}{
		{"no frontmatter", "just a body\n", 0, true},
		{"empty file", "", 0, true},
		{"revision", "---\nrevision: 3\nupdated: 2026-10-20T09:12:00.000Z\n---\nbody\n", 3, true},
		{"crlf and bom", "\uFEFF---\r\nrevision: 7\r\n---\r\nbody\r\n", 7, true},
		{"no revision key", "---\nname: x\n---\nbody\n", 0, true},
		{"unterminated", "---\nrevision: 3\nbody\n", 0, false},
		{"broken yaml", "---\nrevision: 3\ntags: [a, b\n---\nbody\n", 0, false},
		{"not a mapping", "---\n- a\n- b\n---\nbody\n", 0, false},
		{"revision not an integer", "---\nrevision: three\n---\n", 0, false},
		{"revision a float", "---\nrevision: 3.5\n---\n", 0, false},
		{"revision negative", "---\nrevision: -1\n---\n", 0, false},
		{"revision twice", "---\nrevision: 3\nrevision: 4\n---\n", 0, false},
	} {
		rev, ok := RevisionOf([]byte(c.src))
		if rev != c.rev || ok != c.readable {
			t.Errorf("%s: RevisionOf = %d, %v; want %d, %v", c.name, rev, ok, c.rev, c.readable)
		}
	}
}

func TestCreate(t *testing.T) {
	root := t.TempDir()
	if err := Write(root, "a/b/c.md", note(1, "hello"), Expect{}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "a", "b", "c.md")
	if got := mustRead(t, p); !bytes.Equal(got, note(1, "hello")) {
		t.Fatalf("content %q", got)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o644 {
		t.Errorf("new note mode %v, want 0644", fi.Mode().Perm())
	}
	// A second create finds the note and writes nothing.
	err = Write(root, "a/b/c.md", note(1, "other"), Expect{})
	st := wantStale(t, err, true, 1)
	if st.Hash != Hash(note(1, "hello")) || !strings.Contains(err.Error(), "current revision 1") {
		t.Fatalf("stale error %+v: %v", st, err)
	}
	if got := mustRead(t, p); !bytes.Equal(got, note(1, "hello")) {
		t.Fatalf("refused create changed the note: %q", got)
	}
	// An absolute path inside root works as well.
	if err := Write(root, filepath.Join(root, "abs.md"), note(1, "x"), Expect{}); err != nil {
		t.Fatal(err)
	}
}

func TestUpdate(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "n.md")
	mustWrite(t, p, note(1, "one"))
	got, err := Update(root, "n.md", Expect{Revision: 1}, func(cur []byte, exists bool) ([]byte, error) {
		if !exists || !bytes.Equal(cur, note(1, "one")) {
			t.Errorf("fn got %q, %v", cur, exists)
		}
		return note(2, "two"), nil
	})
	if err != nil || !bytes.Equal(got, note(2, "two")) {
		t.Fatalf("Update = %q, %v", got, err)
	}
	if b := mustRead(t, p); !bytes.Equal(b, note(2, "two")) {
		t.Fatalf("disk %q", b)
	}
	// With the hash of what was read.
	if err := Write(root, "n.md", note(3, "three"), Expect{Revision: 2, Hash: Hash(note(2, "two"))}); err != nil {
		t.Fatal(err)
	}
	// fn's error is returned as is, and nothing is written.
	boom := errors.New("boom")
	if _, err := Update(root, "n.md", Expect{Revision: 3}, func([]byte, bool) ([]byte, error) { return note(4, "x"), boom }); err != boom {
		t.Fatalf("err = %v, want boom", err)
	}
	if b := mustRead(t, p); !bytes.Equal(b, note(3, "three")) {
		t.Fatalf("failed fn changed the note: %q", b)
	}
	// fn is not called when the check fails.
	_, err = Update(root, "n.md", Expect{Revision: 1}, func([]byte, bool) ([]byte, error) {
		t.Error("fn called on a stale expectation")
		return nil, nil
	})
	wantStale(t, err, true, 3)
}

func TestModeKept(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes")
	}
	root := t.TempDir()
	p := filepath.Join(root, "n.md")
	mustWrite(t, p, note(1, "one"))
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(root, "n.md", note(2, "two"), Expect{Revision: 1}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600 kept", fi.Mode().Perm())
	}
}

func TestStaleRevision(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "n.md")
	mustWrite(t, p, note(5, "five"))
	for _, exp := range []Expect{{Revision: 4}, {Revision: 6}, {Revision: 1, Hash: Hash(note(5, "five"))}} {
		err := Write(root, "n.md", note(9, "x"), exp)
		st := wantStale(t, err, true, 5)
		if st.Expected != exp || st.Path != p {
			t.Fatalf("StaleError %+v", st)
		}
		if !strings.Contains(err.Error(), fmt.Sprintf("expected revision %d", exp.Revision)) || !strings.Contains(err.Error(), "current revision 5") {
			t.Fatalf("message does not say what differed: %v", err)
		}
	}
	// The writer expects a note that is not there.
	err := Write(root, "gone.md", note(3, "x"), Expect{Revision: 2})
	wantStale(t, err, false, 0)
	if !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("message: %v", err)
	}
	// Or an existing note without revision, named by its hash.
	err = Write(root, "gone.md", note(1, "x"), Expect{Hash: Hash([]byte("plain"))})
	wantStale(t, err, false, 0)
	if !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("message: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "gone.md")); !os.IsNotExist(err) {
		t.Fatal("refused write created the note")
	}
	// A refused write into a new folder leaves no folder behind.
	wantStale(t, Write(root, "new/dir/n.md", note(2, "x"), Expect{Revision: 1}), false, 0)
	if _, err := os.Stat(filepath.Join(root, "new")); !os.IsNotExist(err) {
		t.Fatal("refused write created parent folders")
	}
	if b := mustRead(t, p); !bytes.Equal(b, note(5, "five")) {
		t.Fatalf("refused writes changed the note: %q", b)
	}
}

func TestStaleHash(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "n.md")
	read := note(2, "as the editor read it")
	mustWrite(t, p, read)
	h := Hash(read)
	// A plain text editor changes the body and leaves the revision alone.
	edited := note(2, "changed by vim")
	mustWrite(t, p, edited)
	err := Write(root, "n.md", note(3, "mine"), Expect{Revision: 2, Hash: h})
	st := wantStale(t, err, true, 2)
	if st.Hash != Hash(edited) || !strings.Contains(err.Error(), "content differs") {
		t.Fatalf("stale error %+v: %v", st, err)
	}
	if b := mustRead(t, p); !bytes.Equal(b, edited) {
		t.Fatalf("refused write changed the note: %q", b)
	}
	// Without a hash the revision alone is checked (the caller chose so).
	if err := Write(root, "n.md", note(3, "mine"), Expect{Revision: 2}); err != nil {
		t.Fatal(err)
	}
}

// A note without a trustworthy revision is replaced only by a writer that
// shows, with the hash, that it read exactly those bytes.
func TestBrokenNoteNeedsHash(t *testing.T) {
	for name, src := range map[string]string{
		"no frontmatter": "a note someone typed\n",
		"broken yaml":    "---\nrevision: 3\ntags: [a\n---\nbody\n",
		"unterminated":   "---\nrevision: 3\nbody\n",
		"bad revision":   "---\nrevision: x\n---\nbody\n",
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			p := filepath.Join(root, "n.md")
			mustWrite(t, p, []byte(src))
			for _, exp := range []Expect{{}, {Revision: 3}, {Revision: 1}, {Hash: Hash([]byte("something else"))}} {
				if err := Write(root, "n.md", note(1, "fixed"), exp); err == nil {
					t.Fatalf("%+v: broken note overwritten", exp)
				} else if _, ok := IsStale(err); !ok {
					t.Fatalf("%+v: %v", exp, err)
				}
				if err := Remove(root, "n.md", exp); err == nil {
					t.Fatalf("%+v: broken note removed", exp)
				}
			}
			if b := mustRead(t, p); string(b) != src {
				t.Fatalf("note changed: %q", b)
			}
			if err := Write(root, "n.md", note(1, "fixed"), Expect{Hash: Hash([]byte(src))}); err != nil {
				t.Fatal(err)
			}
			if b := mustRead(t, p); !bytes.Equal(b, note(1, "fixed")) {
				t.Fatalf("note %q", b)
			}
		})
	}
}

func TestEscapeRefused(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	paths := []string{"../outside/x.md", "a/../../outside/x.md", filepath.Join(outside, "x.md"), "..", "."}
	if runtime.GOOS != "windows" {
		if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(root, "d"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("../../outside", filepath.Join(root, "d", "up")); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, "link/x.md", "link/sub/x.md", "d/up/x.md")
	}
	for _, p := range paths {
		err := Write(root, p, note(1, "x"), Expect{})
		if !errors.Is(err, ErrOutsideRoot) {
			t.Errorf("Write %q: err = %v, want ErrOutsideRoot", p, err)
		}
		if err := Remove(root, p, Expect{Revision: 1}); !errors.Is(err, ErrOutsideRoot) {
			t.Errorf("Remove %q: err = %v, want ErrOutsideRoot", p, err)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("something was written outside root: %v", entries)
	}
	// Reserved names: the lock and temporary files are never notes.
	for _, p := range []string{LockFile, "a/.x.md.tmp-123", ".hidden.md"} {
		if err := Write(root, p, note(1, "x"), Expect{}); !errors.Is(err, ErrReservedName) {
			t.Errorf("Write %q: err = %v, want ErrReservedName", p, err)
		}
	}
}

func TestSymlinkedParentInsideRootRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges")
	}
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(root, "alias")); err != nil {
		t.Fatal(err)
	}
	// A folder link inside the root is never written through (it may lead
	// into another owner's folder: agent/larry/moedir -> ../moe).
	if err := Write(root, "alias/n.md", note(1, "x"), Expect{}); !errors.Is(err, ErrSymlink) {
		t.Fatalf("write through a folder link inside the root: %v; want ErrSymlink", err)
	}
	if err := Remove(root, "alias/n.md", Expect{Revision: 1}); !errors.Is(err, ErrSymlink) {
		t.Fatalf("remove through a folder link inside the root: %v; want ErrSymlink", err)
	}
	if _, err := os.Stat(filepath.Join(root, "real", "n.md")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("written through the link: %v", err)
	}
	if err := Write(root, "real/n.md", note(1, "x"), Expect{}); err != nil {
		t.Fatal(err)
	}
	// And a root whose parent is reached through a symbolic link (/tmp on
	// macOS, a home folder moved to another disk).
	link := filepath.Join(t.TempDir(), "parentlink")
	if err := os.Symlink(filepath.Dir(root), link); err != nil {
		t.Fatal(err)
	}
	viaLink := filepath.Join(link, filepath.Base(root))
	if err := Write(viaLink, "real/n.md", note(2, "y"), Expect{Revision: 1}); err != nil {
		t.Fatal(err)
	}
	if err := Write(viaLink, filepath.Join(root, "real", "n.md"), note(3, "z"), Expect{Revision: 2}); err != nil {
		t.Fatal(err)
	}
}

// A memory root that is itself a symbolic link (a cloned project's
// .magicfrog/memory pointing anywhere) is refused for writes, as readers
// refuse it: notes written through it would land outside the tree, unseen.
func TestSymlinkedRootRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges")
	}
	elsewhere := t.TempDir()
	link := filepath.Join(t.TempDir(), "memory")
	if err := os.Symlink(elsewhere, link); err != nil {
		t.Fatal(err)
	}
	err := Write(link, "n.md", note(1, "x"), Expect{})
	if !errors.Is(err, ErrOutsideRoot) || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("write through a linked root: %v; want ErrOutsideRoot naming the link", err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Fatalf("wrote %d entries outside the tree", len(entries))
	}
}

func TestSymlinkAtPathRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges")
	}
	root := t.TempDir()
	real := filepath.Join(root, "real.md")
	mustWrite(t, real, note(1, "real"))
	if err := os.Symlink("real.md", filepath.Join(root, "link.md")); err != nil {
		t.Fatal(err)
	}
	for _, exp := range []Expect{{}, {Revision: 1}, {Revision: 1, Hash: Hash(note(1, "real"))}} {
		if err := Write(root, "link.md", note(2, "x"), exp); !errors.Is(err, ErrSymlink) {
			t.Errorf("Write %+v: err = %v, want ErrSymlink", exp, err)
		}
		if err := Remove(root, "link.md", exp); !errors.Is(err, ErrSymlink) {
			t.Errorf("Remove %+v: err = %v, want ErrSymlink", exp, err)
		}
	}
	if b := mustRead(t, real); !bytes.Equal(b, note(1, "real")) {
		t.Fatalf("written through the link: %q", b)
	}
	if fi, err := os.Lstat(filepath.Join(root, "link.md")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced")
	}
}

func TestRemove(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "a", "b", "c", "n.md")
	mustWrite(t, p, note(2, "x"))
	mustWrite(t, filepath.Join(root, "a", "keep.md"), note(1, "keep"))

	wantStale(t, Remove(root, "a/b/c/n.md", Expect{Revision: 1}), true, 2)
	wantStale(t, Remove(root, "a/b/c/n.md", Expect{}), true, 2)
	wantStale(t, Remove(root, "a/b/c/n.md", Expect{Revision: 2, Hash: Hash(note(2, "y"))}), true, 2)
	if _, err := os.Stat(p); err != nil {
		t.Fatal("refused remove removed the note")
	}
	if err := Remove(root, "a/b/c/n.md", Expect{Revision: 2, Hash: Hash(note(2, "x"))}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatal("note still there")
	}
	// b and c are empty now and gone; a holds keep.md and stays; root stays.
	if _, err := os.Stat(filepath.Join(root, "a", "b")); !os.IsNotExist(err) {
		t.Fatal("empty parent a/b kept")
	}
	if _, err := os.Stat(filepath.Join(root, "a", "keep.md")); err != nil {
		t.Fatal(err)
	}
	// Removing what is already gone: fine when expected gone, stale otherwise.
	if err := Remove(root, "a/b/c/n.md", Expect{}); err != nil {
		t.Fatal(err)
	}
	wantStale(t, Remove(root, "a/b/c/n.md", Expect{Revision: 2}), false, 0)
	// The last note in root: root itself stays.
	if err := Remove(root, "a/keep.md", Expect{Revision: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "a")); !os.IsNotExist(err) {
		t.Fatal("empty a kept")
	}
	if _, err := os.Stat(root); err != nil {
		t.Fatal("root removed")
	}
}

func TestLeftoverTempsCleaned(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "d")
	mustWrite(t, filepath.Join(dir, "n.md"), note(1, "x"))
	old := filepath.Join(dir, ".n.md.tmp-123")
	fresh := filepath.Join(dir, ".other.md.tmp-456")
	keep := filepath.Join(dir, ".keep")
	for _, p := range []string{old, fresh, keep} {
		mustWrite(t, p, []byte("partial"))
	}
	past := time.Now().Add(-2 * time.Minute)
	for _, p := range []string{old, keep} {
		if err := os.Chtimes(p, past, past); err != nil {
			t.Fatal(err)
		}
	}
	if err := Write(root, "d/n.md", note(2, "y"), Expect{Revision: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Error("old temporary file kept")
	}
	for _, p := range []string{fresh, keep} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", filepath.Base(p), err)
		}
	}
	// A successful write leaves no temporary file of its own.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".n.md") {
			t.Errorf("leftover %s", e.Name())
		}
	}
}

func setLockTimeout(t *testing.T, d time.Duration) {
	old := lockTimeout
	lockTimeout = d
	t.Cleanup(func() { lockTimeout = old })
}

func TestLockTimeoutInProcess(t *testing.T) {
	setLockTimeout(t, 150*time.Millisecond)
	root := filepath.Join(t.TempDir(), "new-root")
	unlock, err := Lock(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, LockFile)); err != nil {
		t.Fatal("lock file not created:", err)
	}
	start := time.Now()
	err = Write(root, "n.md", note(1, "x"), Expect{})
	if !errors.Is(err, ErrLockTimeout) {
		t.Fatalf("err = %v, want ErrLockTimeout", err)
	}
	if d := time.Since(start); d < 100*time.Millisecond || d > 3*time.Second {
		t.Fatalf("gave up after %v", d)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if err := unlock(); err != nil { // a second unlock is a no-op
		t.Fatal(err)
	}
	if err := Write(root, "n.md", note(1, "x"), Expect{}); err != nil {
		t.Fatal(err)
	}
}

func TestGoroutinesSerialized(t *testing.T) {
	root := t.TempDir()
	const workers, each = 8, 25
	if err := Write(root, "counter.md", note(0, "n"), Expect{}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				// Retry on stale until the increment lands: none may be lost
				// and none counted twice.
				for {
					cur, err := os.ReadFile(filepath.Join(root, "counter.md"))
					if err != nil {
						errs <- err
						return
					}
					rev, _ := RevisionOf(cur)
					_, err = Update(root, "counter.md", Expect{Revision: rev, Hash: Hash(cur)}, func(b []byte, _ bool) ([]byte, error) {
						if !bytes.Equal(b, cur) {
							return nil, fmt.Errorf("fn saw other bytes than the check")
						}
						return note(rev+1, "n"), nil
					})
					if err == nil {
						break
					}
					if _, ok := IsStale(err); !ok {
						errs <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if rev, _ := RevisionOf(mustRead(t, filepath.Join(root, "counter.md"))); rev != workers*each {
		t.Fatalf("revision %d, want %d: increments were lost", rev, workers*each)
	}
}

func BenchmarkUpdateSmall(b *testing.B) {
	root := b.TempDir()
	if err := Write(root, "notes/n.md", note(1, "Prefer functional array methods over for loops."), Expect{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	rev := 1
	for b.Loop() {
		_, err := Update(root, "notes/n.md", Expect{Revision: rev}, func(cur []byte, _ bool) ([]byte, error) {
			return note(rev+1, "Prefer functional array methods over for loops."), nil
		})
		if err != nil {
			b.Fatal(err)
		}
		rev++
	}
}

// Issue 14: the lock showed up in the project's git status. It lives in
// <root>/.mf-lsp/ beside a .gitignore of "*"; a link where the lock folder or
// file should be is refused, and nothing is created through it.
func TestLockIsIgnoredByGit(t *testing.T) {
	repo := t.TempDir()
	root := filepath.Join(repo, ".magicfrog", "memory")
	if err := Write(root, "n.md", note(1, "x"), Expect{}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(root, LockDir, ".gitignore")); err != nil || !strings.Contains(string(b), "\n*\n") {
		t.Fatalf(".gitignore beside the lock: %q, %v", b, err)
	}
	if _, err := exec.LookPath("git"); err == nil {
		if out, err := exec.Command("git", "-C", repo, "init", "-q").CombinedOutput(); err != nil {
			t.Fatalf("git init: %v %s", err, out)
		}
		out, err := exec.Command("git", "-C", repo, "status", "--porcelain", "--untracked-files=all").Output()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(out), "lock") || strings.Contains(string(out), LockDir) {
			t.Errorf("git status shows the lock:\n%s", out)
		}
		if !strings.Contains(string(out), "n.md") {
			t.Errorf("git status does not show the note:\n%s", out)
		}
	}
	if runtime.GOOS == "windows" {
		return
	}
	// Hostile lock folders.
	outside := t.TempDir()
	for i, setup := range []func(root string) error{
		func(root string) error { return os.Symlink(outside, filepath.Join(root, LockDir)) },
		func(root string) error {
			if err := os.MkdirAll(filepath.Join(root, LockDir), 0o755); err != nil {
				return err
			}
			return os.Symlink(filepath.Join(outside, "lockfile"), filepath.Join(root, LockDir, "lock"))
		},
	} {
		root := filepath.Join(t.TempDir(), fmt.Sprint(i))
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := setup(root); err != nil {
			t.Fatal(err)
		}
		if err := Write(root, "n.md", note(1, "x"), Expect{}); err == nil {
			t.Errorf("case %d: wrote through a linked lock", i)
		}
		if entries, _ := os.ReadDir(outside); len(entries) != 0 {
			t.Errorf("case %d: created %v outside the tree", i, entries)
		}
	}
}
