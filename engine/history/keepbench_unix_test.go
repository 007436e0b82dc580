//go:build unix

package history

import (
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"
)

// BenchmarkObserveNew is the keep pass on a tree whose history is new: the
// first version of 1,000 notes of 8 KB, in 50 folders, observed into a new
// store (the language server's KeepLoaded; mostly system calls: the
// objects, the log folders and lines, the sums). cpu-ms/op is the
// process's user and system CPU over the timed part (getrusage), steadier
// than the wall on a shared machine.
func BenchmarkObserveNew(b *testing.B) {
	const notes = 1000
	texts := make([][]byte, notes)
	for i := range texts {
		texts[i] = append(note(1, ""), text(uint64(i), 8<<10)...)
	}
	still := func() (bool, func()) { return true, func() {} }
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		root, err := os.MkdirTemp(b.TempDir(), "root")
		if err != nil {
			b.Fatal(err)
		}
		s := For(root)
		before := cpuTime(b)
		b.StartTimer()
		for i, c := range texts {
			if _, err := s.Observe(fmt.Sprintf("agent/a/topics/t%02d/n%04d.md", i%50, i), c, time.Now(), still); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		cpu += cpuTime(b) - before
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}

// cpuTime is the process's user and system CPU so far.
func cpuTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
