package session

import (
	"context"
	"sync"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
)

// DefaultKeepLoadedAfter is how long after a tree loaded its keep pass
// starts: the requests a load held (an editor's first symbols, hovers and
// the open documents' diagnostics) are answered first.
const DefaultKeepLoadedAfter = 2 * time.Second

// keepPass is a tree's run of engine.Memory.KeepLoaded: started once after
// the load, stopped (cancelled, and waited for) when the tree is closed or
// the session shut down, before or after it started.
type keepPass struct {
	mu      sync.Mutex
	stopped bool
	cancel  context.CancelFunc
	done    chan struct{}
}

func (k *keepPass) start(run func(ctx context.Context)) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.stopped || k.done != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	k.cancel, k.done = cancel, done
	go func() {
		defer close(done)
		run(ctx)
	}()
}

func (k *keepPass) stop() {
	k.mu.Lock()
	k.stopped = true
	cancel, done := k.cancel, k.done
	k.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// keepLoaded starts t's keep pass over m, the tree it loaded: the local
// history gets the loaded version of every note the tree reads on demand
// (docs/architecture.md, "The servers do not keep the notes' text"). What a
// bound left out is logged.
func (s *Session) keepLoaded(t *tree, m *engine.Memory) {
	after := s.opts.KeepLoadedAfter
	if after == 0 {
		after = DefaultKeepLoadedAfter
	}
	t.keep.start(func(ctx context.Context) {
		if after > 0 {
			timer := time.NewTimer(after)
			select {
			case <-ctx.Done():
				timer.Stop()
			case <-timer.C:
			}
		}
		k, err := engine.KeptLoaded{}, ctx.Err()
		start := time.Now()
		if err == nil {
			k, err = m.KeepLoaded(ctx, s.activity.idle) // the front end's messages first (activity.go)
		}
		if k.Kept > 0 {
			s.opts.Logf("local history: kept %d versions seen at load (%d notes read) in %v", k.Kept, k.Read, time.Since(start).Round(time.Millisecond))
		}
		if k.Left > 0 {
			s.opts.Logf("local history: %d notes seen at load (%.1f MB) not kept: their versions would take the history past its bound (magicfrog.json \"history\" maxMegabytes); kept %d, the newest first", k.Left, float64(k.LeftBytes)/1e6, k.Kept)
		}
		if s.opts.KeptLoaded != nil {
			s.opts.KeptLoaded(m, k, err)
		}
	})
}
