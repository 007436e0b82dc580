//go:build !unix

package lsp

import "os"

// Pollable returns f: only unix descriptors are handed to the poller (see
// stdio_unix.go).
func Pollable(f *os.File) *os.File { return f }
