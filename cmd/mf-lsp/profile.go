package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startProfile writes a CPU profile of the whole process to path ("" does
// nothing): MF_LSP_CPUPROFILE=cpu.out mf-lsp render, then go tool pprof. Cold
// paths are whole processes, and an in-process benchmark misses what they pay
// for (start-up, first use of the tokenizer, reading the tree once). The
// returned func stops the profile; call it before exiting.
func startProfile(path string) (stop func()) {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mf-lsp: MF_LSP_CPUPROFILE:", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintln(os.Stderr, "mf-lsp: MF_LSP_CPUPROFILE:", err)
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
