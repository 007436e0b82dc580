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

// TestReadFileInto: a file that fits the buffer given is read into its
// space; a larger one into a new buffer; each read answers exactly the file,
// and the checks are ReadFile's.
func TestReadFileInto(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"small.md": "hi", "mid.md": "a longer text", "big.md": "a text longer than the buffer is"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("mid.md", filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	root, err := OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	d, err := OpenDirIn(root, ".")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	buf := make([]byte, 0, 20)
	got, _, err := d.ReadFileInto("mid.md", 100, buf)
	if err != nil || string(got) != "a longer text" || &got[:1][0] != &buf[:1][0] {
		t.Fatalf("mid.md into a 20-byte buffer: %q %v (its own space: %v)", got, err, err == nil && &got[:1][0] == &buf[:1][0])
	}
	if got, _, err = d.ReadFileInto("small.md", 100, got); err != nil || string(got) != "hi" || &got[:1][0] != &buf[:1][0] {
		t.Fatalf("small.md read again into the buffer: %q %v", got, err)
	}
	if got, _, err = d.ReadFileInto("big.md", 100, got); err != nil || string(got) != "a text longer than the buffer is" {
		t.Fatalf("big.md: %q %v", got, err)
	}
	if _, _, err := d.ReadFileInto("big.md", 10, buf); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the limit: %v", err)
	}
	if b, _, err := d.ReadFileInto("link.md", 100, buf); err == nil {
		t.Errorf("link.md: followed the link: %q", b)
	}
}
