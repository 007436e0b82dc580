package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestExecTraceIsWritten: MF_LSP_EXECTRACE's file is a runtime trace (go
// tool trace reads it: it starts with the trace's header), and a path that
// cannot be created is told, not fatal.
func TestExecTraceIsWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "exec.trace")
	startExecTrace(path)()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("go 1.")) {
		t.Fatalf("the trace starts %q; want a runtime trace's header (go 1.N trace)", b[:min(len(b), 16)])
	}
	startExecTrace(filepath.Join(t.TempDir(), "no", "such", "dir", "x"))()
}
