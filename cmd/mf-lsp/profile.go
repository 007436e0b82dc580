package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// startProfile writes a CPU profile of the whole process to cpuPath, and a
// heap profile at exit to memPath ("" does nothing):
// MF_LSP_CPUPROFILE=cpu.out mf-lsp render, then go tool pprof. Cold paths are
// whole processes, and an in-process benchmark misses what they pay for
// (start-up, first use of the tokenizer, reading the tree once). The heap
// profile (MF_LSP_MEMPROFILE) is a command's memory at exit, and the
// server's when the client asks it to shut down, while its memory is still
// loaded: go tool pprof -sample_index=inuse_space for what it holds, or
// alloc_space for what made the collector run. The returned func stops the
// profiles; call it before exiting.
func startProfile(cpuPath, memPath string) (stop func()) {
	stopCPU := func() {}
	if cpuPath != "" {
		stopCPU = startCPUProfile(cpuPath)
	}
	heapProfileAtShutdown = memPath
	stopTrace := startExecTrace(os.Getenv("MF_LSP_EXECTRACE"))
	return func() {
		stopTrace()
		stopCPU()
		if memPath != "" && !heapProfileWritten {
			writeHeapProfile(memPath)
		}
	}
}

// heapProfileWritten: the server wrote its profile at shutdown, which is the
// one worth keeping.
var heapProfileWritten bool

func startCPUProfile(path string) (stop func()) {
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

func writeHeapProfile(path string) {
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mf-lsp: MF_LSP_MEMPROFILE:", err)
		return
	}
	defer f.Close()
	runtime.GC() // the live heap as of now, not of the last cycle
	heapProfileWritten = true
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		fmt.Fprintln(os.Stderr, "mf-lsp: MF_LSP_MEMPROFILE:", err)
	}
}
