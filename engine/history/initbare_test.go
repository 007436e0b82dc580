package history

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// TestInitBareAsGitInit: the history's own initialisation makes the files
// go-git's git.Init(st, nil) makes, byte for byte, and leaves a repository
// that has a HEAD as it is (git.Init refuses it; the history opens it).
func TestInitBareAsGitInit(t *testing.T) {
	open := func(dir string) *os.Root {
		r, err := os.OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		return r
	}
	ours, theirs := t.TempDir(), t.TempDir()
	if err := initBare(open(ours)); err != nil {
		t.Fatal(err)
	}
	st := filesystem.NewStorageWithOptions(osfs.New(theirs, osfs.WithBoundOS()), cache.NewObjectLRU(1<<20), filesystem.Options{})
	if _, err := git.Init(st, nil); err != nil {
		t.Fatal(err)
	}
	if a, b := tree(t, ours), tree(t, theirs); !maps.Equal(a, b) {
		t.Fatalf("initBare made\n%v\ngit.Init made\n%v", a, b)
	}
	head := filepath.Join(ours, "HEAD")
	if err := os.WriteFile(head, []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := initBare(open(ours)); err != nil {
		t.Fatalf("a second initBare: %v", err)
	}
	if b, _ := os.ReadFile(head); string(b) != "ref: refs/heads/main\n" {
		t.Errorf("a second initBare rewrote HEAD: %q", b)
	}
}

// tree maps each file under dir to its bytes, and each folder to "/".
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[rel] = "/"
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
