package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestGCPercentKeepsTheHeadroom(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, 100},
		{20 * mib, 100},            // small: the default
		{heapHeadroom, 100},        // goal 2 × 32 MiB
		{64 * mib, 50},             // goal 96 MiB: live + 32
		{128 * mib, 25},            // goal 160 MiB
		{150 * mib, 25},            // a quarter beyond: not collected every 32 MiB
		{4096 * mib, minGCPercent}, // a huge heap is collected no more often
	} {
		if got := gcPercentFor(c.live); got != c.want {
			t.Errorf("gcPercentFor(%d MiB) = %d, want %d", c.live/mib, got, c.want)
		}
	}
}

// After a collection GOGC is what gcPercentFor says of the live heap (here a
// test's small heap: the default), whatever it was before; a GOGC in the
// environment is the user's, and left alone.
func TestHeapHeadroomSetsGOGCAfterACycle(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "77") // restored after the test
	debug.SetGCPercent(77)
	boundHeapHeadroom()
	runtime.GC()
	time.Sleep(50 * time.Millisecond)
	if got := debug.SetGCPercent(77); got != 77 {
		t.Fatalf("GOGC is set in the environment, yet the bound changed it to %d", got)
	}

	os.Unsetenv("GOGC")
	debug.SetGCPercent(10)
	boundHeapHeadroom()
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		got := debug.SetGCPercent(10)
		if got == 100 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after collections GOGC is still %d, want 100 for a small heap", got)
		}
	}
}

func TestHeapHeadroomArmsAgain(t *testing.T) {
	runs := make(chan struct{}, 8)
	var again func()
	again = func() {
		runs <- struct{}{}
		armAfterNextCycle(again)
	}
	armAfterNextCycle(again)
	for i := range 3 {
		deadline := time.After(10 * time.Second)
		for done := false; !done; {
			runtime.GC()
			select {
			case <-runs:
				done = true
			case <-deadline:
				t.Fatalf("cycle %d: the hook did not run after a collection", i+1)
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
}
