package main

import (
	"fmt"
	"os"
	"runtime/trace"
)

// startExecTrace writes the runtime's execution trace to path until the
// returned func is called (MF_LSP_EXECTRACE): which goroutine ran when, the
// collector's cycles and the scheduler's waits. A latency run's slow sample
// is found by its time (coldbench -trace) and explained by what else ran
// then, which a CPU profile, summed over the run, cannot tell.
func startExecTrace(path string) (stop func()) {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mf-lsp: MF_LSP_EXECTRACE:", err)
		return func() {}
	}
	if err := trace.Start(f); err != nil {
		fmt.Fprintln(os.Stderr, "mf-lsp: MF_LSP_EXECTRACE:", err)
		f.Close()
		return func() {}
	}
	return func() {
		trace.Stop()
		f.Close()
	}
}
