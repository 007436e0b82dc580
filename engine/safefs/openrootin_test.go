//go:build unix

package safefs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// OpenRootIn opens a real folder; refuses a link, a file, and a folder
// swapped for a link (to a sibling, which the parent's os.Root would follow)
// between its check and its open.
func TestOpenRootIn(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"history", "other"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "other", "mark"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("other", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	parent, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer parent.Close()

	r, err := OpenRootIn(parent, "history")
	if err != nil {
		t.Fatalf("a real folder: %v", err)
	}
	r.Close()
	if _, err := OpenRootIn(parent, "link"); !errors.Is(err, ErrLink) {
		t.Errorf("a link: %v, want ErrLink", err)
	}
	if _, err := OpenRootIn(parent, "file"); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a file: %v, want ErrNotRegular", err)
	}
	if _, err := OpenRootIn(parent, "missing"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing folder: %v, want ErrNotExist", err)
	}

	// The swap, between the check and the open.
	lst, err := lstatFolder(parent, "history")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "history")
	if err := os.Rename(p, p+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("other", p); err != nil {
		t.Fatal(err)
	}
	r, err = openRootAs(parent, "history", lst)
	if !errors.Is(err, ErrLink) {
		if r != nil {
			if _, serr := r.Stat("mark"); serr == nil {
				t.Fatalf("the folder swapped for a link was opened: it is the sibling (%v)", err)
			}
			r.Close()
		}
		t.Fatalf("a folder swapped for a link: %v, want ErrLink", err)
	}
}
