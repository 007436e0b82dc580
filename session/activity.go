package session

import (
	"context"
	"sync/atomic"
	"time"
)

// The front end's messages go before the session's background work. A
// tree's keep pass (keepload.go) reads and logs every large note once after
// the first load of a tree: 0.75 ms of CPU a note, 7.5 s at 10,000 notes of
// 8-64 KB. On two CPUs it took one of them for that long, beside the
// diagnostics worker on the other, and a request sent in that time waited
// for a CPU: the first definition after a write on disk went from a p99 of
// 1.0 to 22 ms (docs/navigation.md). So a front end marks each message it
// handles (Busy), and the pass, before each note, waits until no message is
// in flight and none ended in the last quietAfter (idle).
//
// A client that is never quiet slows the pass but never stops it: the wait
// ends after maxWait whatever happens, and the pass logs one note before it
// waits again.
const (
	quietAfter = 20 * time.Millisecond
	maxWait    = 250 * time.Millisecond
)

// activity is the front end's traffic, as the background passes see it.
type activity struct {
	inFlight atomic.Int32
	last     atomic.Int64 // when the last message ended, in Unix nanoseconds
	quiet    time.Duration
	maxWait  time.Duration
}

func newActivity() *activity {
	return &activity{quiet: quietAfter, maxWait: maxWait}
}

// Busy marks a message the front end handles, until done is called: the
// session's background work waits for it (and for quietAfter after it).
func (s *Session) Busy() (done func()) { return s.activity.busy() }

func (a *activity) busy() func() {
	a.inFlight.Add(1)
	var once atomic.Bool
	return func() {
		if once.CompareAndSwap(false, true) {
			a.last.Store(time.Now().UnixNano())
			a.inFlight.Add(-1)
		}
	}
}

// idle returns when the front end has been quiet for a.quiet, when it has
// waited a.maxWait, or when ctx is done.
func (a *activity) idle(ctx context.Context) {
	start := time.Now()
	for ctx.Err() == nil {
		now := time.Now()
		if now.Sub(start) >= a.maxWait {
			return
		}
		wait := a.quiet
		if a.inFlight.Load() == 0 {
			since := now.Sub(time.Unix(0, a.last.Load()))
			if since >= a.quiet {
				return
			}
			wait = a.quiet - since
		}
		wait = min(wait, a.maxWait-now.Sub(start))
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}
