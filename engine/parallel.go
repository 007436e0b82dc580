package engine

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// parallel calls f(i) for every i in [0, n) on at most one goroutine per CPU;
// small n runs inline, where starting goroutines would cost more than it saves.
// f must be safe to call concurrently for different i.
func parallel(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n/32)
	if workers < 2 {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				f(i)
			}
		}()
	}
	wg.Wait()
}
