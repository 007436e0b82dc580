package safefs

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReadStamp: a read answers the opened file's own stamp (as stat says
// it), and a rewrite of the same size with its modification time set back
// still moves it (the change time).
func TestReadStamp(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "sub", "a.md")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("first"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	b, st, err := ReadInNoLinks(root, "sub/a.md", 100)
	if err != nil || string(b) != "first" {
		t.Fatalf("read: %q %v", b, err)
	}
	var want syscall.Stat_t
	if err := syscall.Stat(file, &want); err != nil {
		t.Fatal(err)
	}
	if !st.Known() || st != (Stamp{Dev: uint64(want.Dev), Ino: uint64(want.Ino), Size: want.Size, Mtime: want.Mtim.Nano(), Ctime: want.Ctim.Nano()}) {
		t.Fatalf("stamp %+v, stat says %+v", st, want)
	}
	mtime := time.Unix(0, want.Mtim.Nano())
	for range 100 { // until the file system's clock has ticked past the first write
		if err := os.WriteFile(file, []byte("other"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(file, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		var now syscall.Stat_t
		if err := syscall.Stat(file, &now); err != nil {
			t.Fatal(err)
		}
		if now.Ctim.Nano() != want.Ctim.Nano() {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	_, again, err := ReadInNoLinks(root, "sub/a.md", 100)
	if err != nil || again == st || again.Mtime != st.Mtime || again.Size != st.Size {
		t.Fatalf("after a rewrite with its mtime set back: %+v (was %+v) %v", again, st, err)
	}
}
