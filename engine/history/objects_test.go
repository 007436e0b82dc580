package history

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestGitReadsTheStore: git itself reads the versions the store writes, loose
// and after a prune packed them (with deltas), and finds the repository
// sound.
func TestGitReadsTheStore(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	s := For(t.TempDir())
	var ids []string
	var contents [][]byte
	for rev := 1; rev <= 5; rev++ {
		c := note(rev, fmt.Sprint("body of version ", rev, "\n"))
		if err := s.Record("a.md", c, Written, time.Now()); err != nil {
			t.Fatal(err)
		}
		ids, contents = append(ids, BlobID(c)), append(contents, c)
	}
	catFile := func(when string) {
		t.Helper()
		for i, id := range ids {
			out, err := exec.Command("git", "--git-dir", s.Dir(), "cat-file", "-p", id).Output()
			if err != nil || string(out) != string(contents[i]) {
				t.Fatalf("%s: git cat-file -p %s = %q, %v; want %q", when, id[:7], out, err, contents[i])
			}
		}
	}
	catFile("loose")
	if _, err := s.Prune(DefaultPolicy, time.Now()); err != nil {
		t.Fatal(err)
	}
	if loose, packs := looseObjects(t, s); loose != 0 || packs != 1 {
		t.Fatalf("%d loose objects and %d packs after the prune, want 0 and 1", loose, packs)
	}
	catFile("packed")
	packs, _ := filepath.Glob(filepath.Join(s.Dir(), "objects/pack/*.idx"))
	if out, err := exec.Command("git", "verify-pack", packs[0]).CombinedOutput(); err != nil {
		t.Fatalf("git verify-pack: %v\n%s", err, out)
	}
	if out, err := exec.Command("git", "--git-dir", s.Dir(), "fsck", "--no-dangling").CombinedOutput(); err != nil {
		t.Fatalf("git fsck: %v\n%s", err, out)
	}
}
