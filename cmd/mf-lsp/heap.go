package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// The language server holds a loaded tree for hours, and with the
// collector's default (GOGC=100) its heap may grow to twice what is live
// before the next cycle: at 100,000 notes that was 60-80 MB of garbage on top
// of the tree, most of the server's peak (engine/internal/coldbench). So
// after every cycle the server sets the next heap goal itself: what is live
// plus a fixed headroom, or a quarter of what is live when that is more (a
// very large tree must not collect after every few allocations), and never
// more than the default would allow. A small tree keeps the default; a large
// one pays a cycle every heapHeadroom bytes allocated, which a server at rest
// between keystrokes rarely reaches. A GOGC the user set wins.

// heapHeadroom is the garbage the server lets its heap hold beyond what is live.
const heapHeadroom = 32 << 20

// minGCPercent bounds how often a large heap is collected.
const minGCPercent = 25

// gcPercentFor is the GOGC that puts the next heap goal at live plus the
// headroom: 100 (the default) for a heap of up to heapHeadroom, down to
// minGCPercent for one of four times that or more.
func gcPercentFor(live uint64) int {
	if live <= heapHeadroom {
		return 100
	}
	return max(minGCPercent, int(heapHeadroom*100/live))
}

// boundHeapHeadroom keeps the server's heap goal at live plus heapHeadroom
// from now on, re-deciding after every collection; it does nothing when the
// environment sets GOGC.
func boundHeapHeadroom() {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var afterCycle func()
	afterCycle = func() {
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 {
			debug.SetGCPercent(gcPercentFor(sample[0].Value.Uint64()))
		}
		armAfterNextCycle(afterCycle)
	}
	armAfterNextCycle(afterCycle)
}

// armAfterNextCycle runs f once, soon after the next collection: a cleanup
// of an object nothing keeps runs once a cycle has found it unreachable.
func armAfterNextCycle(f func()) {
	runtime.AddCleanup(new(gcSentinel), func(f func()) { f() }, f)
}

// gcSentinel is allocated only to be collected. It is not zero-sized (those
// share one address and are never freed) nor under 16 bytes without
// pointers: the allocator packs those into a block with others, freed only
// when all of them are, so its cleanup ran late or never, and the heap grew
// to twice what is live with the default GOGC.
type gcSentinel struct{ _ [2]int64 }
