//go:build unix

package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A note's folder swapped for a link after the write looked at it (to
// another owner's folder inside the root, which os.Root would follow) is
// refused: the write works in the folder it resolved, or not at all. The
// other owner's note is neither read as this one nor replaced.
func TestFolderSwappedForLinkRefused(t *testing.T) {
	root := t.TempDir()
	mine := filepath.Join(root, "agent", "larry", "n.md")
	theirs := filepath.Join(root, "agent", "moe", "n.md")
	mustWrite(t, mine, note(1, "larry's"))
	mustWrite(t, theirs, note(1, "moe's"))
	real, err := filepath.EvalSymlinks(root) // as lockRoot resolves it
	if err != nil {
		t.Fatal(err)
	}
	tg, err := resolve(root, real, mine)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Dir(mine), filepath.Join(root, "agent", "larry.old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("moe", filepath.Dir(mine)); err != nil {
		t.Fatal(err)
	}
	if err := tg.open(); err != nil {
		t.Fatal(err)
	}
	defer tg.close()
	got, _, _, err := tg.read()
	if !errors.Is(err, ErrSymlink) {
		t.Fatalf("read through the swapped folder: %q, %v; want ErrSymlink", got, err)
	}
	if err := writeAtomic(tg, note(2, "larry's, written"), 0o644); err == nil {
		t.Fatal("a write through the swapped folder went through")
	}
	if b := mustRead(t, theirs); string(b) != string(note(1, "moe's")) {
		t.Fatalf("moe's note changed:\n%s", b)
	}
}
