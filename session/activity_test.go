package session

import (
	"context"
	"testing"
	"time"
)

func testActivity(quiet, wait time.Duration) *activity {
	a := newActivity()
	a.quiet, a.maxWait = quiet, wait
	return a
}

// returnsWithin runs idle and reports whether it returned within d.
func returnsWithin(ctx context.Context, a *activity, d time.Duration) bool {
	done := make(chan struct{})
	go func() { a.idle(ctx); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// TestIdleWaitsForTheFrontEnd: a background pass waits while a message is
// in flight and for the quiet time after it, goes on at once when nothing
// came, and never waits past maxWait or a cancelled context.
func TestIdleWaitsForTheFrontEnd(t *testing.T) {
	t.Run("nothing came", func(t *testing.T) {
		if !returnsWithin(context.Background(), testActivity(time.Hour, time.Hour), 5*time.Second) {
			t.Fatal("idle waited with no message ever handled")
		}
	})
	t.Run("a message in flight", func(t *testing.T) {
		a := testActivity(10*time.Millisecond, time.Hour)
		done := a.busy()
		if returnsWithin(context.Background(), a, 200*time.Millisecond) {
			t.Fatal("idle returned while a message was in flight")
		}
		done()
		done() // twice is once
		if a.inFlight.Load() != 0 {
			t.Fatalf("in flight after done: %d", a.inFlight.Load())
		}
		if !returnsWithin(context.Background(), a, 5*time.Second) {
			t.Fatal("idle still waiting after the message ended")
		}
	})
	t.Run("quiet after a message", func(t *testing.T) {
		a := testActivity(time.Hour, time.Hour)
		a.busy()()
		if returnsWithin(context.Background(), a, 100*time.Millisecond) {
			t.Fatal("idle returned right after a message ended, before the quiet time")
		}
	})
	t.Run("never quiet", func(t *testing.T) {
		a := testActivity(time.Hour, 50*time.Millisecond)
		a.busy() // never done
		if !returnsWithin(context.Background(), a, 5*time.Second) {
			t.Fatal("idle waited past maxWait")
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		a := testActivity(time.Hour, time.Hour)
		a.busy()
		ctx, cancel := context.WithCancel(context.Background())
		go func() { time.Sleep(20 * time.Millisecond); cancel() }()
		if !returnsWithin(ctx, a, 5*time.Second) {
			t.Fatal("idle kept waiting after its context was cancelled")
		}
	})
}
