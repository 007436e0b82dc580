//go:build unix

package lsp

import (
	"os"
	"syscall"
)

// Pollable returns f's descriptor as a file the runtime's poller waits on,
// when it is a pipe or a socket (what an editor starts a server with), and f
// itself otherwise. An editor's pipes come blocking, and Go reads and writes a
// blocking descriptor in a system call that holds its thread and, for a while,
// the scheduler's P (a Go processor) with it. A reply queued for the writer
// goroutine then waits for that P: up to 10 ms (the runtime's monitor retakes
// a P stuck in a call on its slowest tick) whenever the other Ps are busy, as
// they are while the collector marks a large tree on a machine of two cores,
// where it was the slowest requests of the latency benchmark
// (engine/internal/coldbench, the twenty-sixth pass). Through the poller a
// read that must wait parks its goroutine and frees the P at once.
//
// Both front ends that serve on stdio use it: the language server (Stdio)
// and the MCP server (cmd/mf-lsp's mcp).
//
// A terminal or a file is left alone: O_NONBLOCK belongs to the open file,
// which a terminal shares with the shell that started us.
func Pollable(f *os.File) *os.File {
	fd := int(f.Fd())
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return f
	}
	if mode := st.Mode & syscall.S_IFMT; mode != syscall.S_IFIFO && mode != syscall.S_IFSOCK {
		return f
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		return f
	}
	// os.NewFile registers a non-blocking descriptor with the poller.
	return os.NewFile(uintptr(fd), f.Name())
}
