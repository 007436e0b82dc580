//go:build unix

package safefs

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestReads(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "ok.md"), []byte("hello"), 0o644))
	must(syscall.Mkfifo(filepath.Join(dir, "fifo.md"), 0o644))
	must(os.Symlink("ok.md", filepath.Join(dir, "link.md")))
	must(os.Symlink("/etc/hostname", filepath.Join(dir, "out.md")))
	f, err := os.Create(filepath.Join(dir, "huge.md"))
	must(err)
	must(f.Truncate(1 << 30))
	f.Close()

	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := ReadFile(filepath.Join(dir, "fifo.md"), 100); !errors.Is(err, ErrNotRegular) {
			t.Errorf("FIFO: %v", err)
		}
		if _, err := ReadNoFollow(filepath.Join(dir, "fifo.md"), 100); !errors.Is(err, ErrNotRegular) {
			t.Errorf("FIFO, no follow: %v", err)
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("reading a FIFO blocked")
	}
	if b, err := ReadFile(filepath.Join(dir, "ok.md"), 5); err != nil || string(b) != "hello" {
		t.Errorf("ok.md: %q %v", b, err)
	}
	if _, err := ReadFile(filepath.Join(dir, "ok.md"), 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the limit: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "huge.md"), 1<<20); !errors.Is(err, ErrTooLarge) {
		t.Errorf("huge: %v", err)
	}
	if _, err := ReadNoFollow(filepath.Join(dir, "link.md"), 100); !errors.Is(err, ErrLink) {
		t.Errorf("link, no follow: %v", err)
	}

	root, err := OpenRoot(dir)
	must(err)
	defer root.Close()
	if _, err := ReadIn(root, "link.md", 100); !errors.Is(err, ErrLink) {
		t.Errorf("ReadIn link: %v", err)
	}
	if b, err := ReadInFollow(root, "link.md", 100); err != nil || string(b) != "hello" {
		t.Errorf("ReadInFollow inside: %q %v", b, err)
	}
	if _, err := ReadInFollow(root, "out.md", 100); err == nil {
		t.Error("ReadInFollow followed a link out of the root")
	}
	if _, err := ReadIn(root, "fifo.md", 100); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadIn FIFO: %v", err)
	}
	linkRoot := filepath.Join(t.TempDir(), "root")
	must(os.Symlink(dir, linkRoot))
	if _, err := OpenRoot(linkRoot); !errors.Is(err, ErrLink) {
		t.Errorf("OpenRoot of a link: %v", err)
	}
}
