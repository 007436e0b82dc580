//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// exitedPeakRSS is an exited process's peak resident set in MiB (ru_maxrss is KiB
// on Linux and the BSDs, bytes on Darwin).
func exitedPeakRSS(ps *os.ProcessState) float64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if isDarwin {
		return float64(ru.Maxrss) / (1 << 20)
	}
	return float64(ru.Maxrss) / 1024
}

const isDarwin = runtime.GOOS == "darwin"
