//go:build unix

package lsp

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A pipe, as an editor starts the server with, comes back through the
// runtime's poller: a read that must wait parks (so a deadline can end it)
// instead of holding a thread in a blocking system call.
func TestPollablePipeIsPolled(t *testing.T) {
	// syscall.Pipe's ends are blocking and nobody's yet, as an inherited
	// stdin is (os.Pipe's would already be in the poller).
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		t.Fatal(err)
	}
	raw := os.NewFile(uintptr(fds[0]), "stdin")
	w := os.NewFile(uintptr(fds[1]), "client")
	defer w.Close()
	if err := raw.SetReadDeadline(time.Now()); !errors.Is(err, os.ErrNoDeadline) {
		t.Fatalf("precondition: a blocking pipe takes no deadline, got %v", err)
	}

	in := Pollable(raw)
	if err := in.SetReadDeadline(time.Now().Add(20 * time.Millisecond)); err != nil {
		t.Fatalf("pollable pipe refuses a deadline (not in the poller): %v", err)
	}
	if _, err := in.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read on an empty polled pipe: got %v, want the deadline", err)
	}
	in.SetReadDeadline(time.Time{})
	if _, err := w.Write([]byte("Content-Length: 2\r\n\r\n{}")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, err := in.Read(buf)
	if err != nil || string(buf[:n]) != "Content-Length: 2\r\n\r\n{}" {
		t.Fatalf("read through the polled pipe: %q, %v", buf[:n], err)
	}
}

// A regular file (stdin redirected from one) is returned as it is: its open
// file's flags are not ours to change.
func TestPollableLeavesFilesAlone(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "in"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := Pollable(f); got != f {
		t.Fatalf("Pollable(regular file) = %p, want the file itself %p", got, f)
	}
}
