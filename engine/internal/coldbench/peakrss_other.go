//go:build !unix

package main

import "os"

// exitedPeakRSS is unknown where the process state carries no rusage (Windows,
// Plan 9): the rows print 0 MiB.
func exitedPeakRSS(*os.ProcessState) float64 { return 0 }
