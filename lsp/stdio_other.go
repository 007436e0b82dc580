//go:build !unix

package lsp

import "os"

// pollable returns f: only unix descriptors are handed to the poller (see
// stdio_unix.go).
func pollable(f *os.File) *os.File { return f }
