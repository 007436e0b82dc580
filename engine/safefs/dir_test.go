//go:build unix

package safefs

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// TestDir: a Dir lists its folder sorted, opens its entries by name, and
// never follows a link, reads a FIFO, or opens anything but one element.
func TestDir(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "mem")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "a", "sub"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "a", "ok.md"), []byte("hello"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "a", "sub", "deep.md"), []byte("deep"), 0o644))
	must(os.WriteFile(filepath.Join(base, "outside.md"), []byte("secret"), 0o644))
	must(syscall.Mkfifo(filepath.Join(dir, "a", "fifo.md"), 0o644))
	must(os.Symlink("ok.md", filepath.Join(dir, "a", "link.md")))
	must(os.Symlink("../../outside.md", filepath.Join(dir, "a", "out.md")))
	must(os.Symlink("sub", filepath.Join(dir, "a", "sublink")))

	root, err := OpenRoot(dir)
	must(err)
	defer root.Close()
	d, err := OpenDirIn(root, "a")
	must(err)
	defer d.Close()

	entries, err := d.ReadDir()
	must(err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"fifo.md", "link.md", "ok.md", "out.md", "sub", "sublink"}; !slices.Equal(names, want) {
		t.Errorf("ReadDir: %v, want %v", names, want)
	}
	if b, err := d.ReadFile("ok.md", 5); err != nil || string(b) != "hello" {
		t.Errorf("ok.md: %q %v", b, err)
	}
	if _, err := d.ReadFile("ok.md", 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the limit: %v", err)
	}
	for _, link := range []string{"link.md", "out.md"} {
		if b, err := d.ReadFile(link, 100); err == nil {
			t.Errorf("%s: followed the link: %q", link, b)
		}
	}
	for _, name := range []string{"sub/deep.md", "..", ".", ""} {
		if _, err := d.ReadFile(name, 100); err == nil {
			t.Errorf("%q: read, want only one element", name)
		}
	}
	if _, err := d.OpenDir("sublink"); err == nil {
		t.Error("sublink: opened a link to a folder")
	}
	done := make(chan error)
	go func() { _, err := d.ReadFile("fifo.md", 100); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("FIFO: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("reading a FIFO blocked")
	}
	sub, err := d.OpenDir("sub")
	must(err)
	defer sub.Close()
	if b, err := sub.ReadFile("deep.md", 100); err != nil || string(b) != "deep" {
		t.Errorf("sub/deep.md: %q %v", b, err)
	}
}
