package session

import (
	"sync"

	"github.com/magicfrog/mf-lsp/engine"
)

// warmer runs a tree's navigation warm-up beside the requests, one run at a
// time: a kick while one runs asks for one more run after it, so a burst of
// changes costs at most two.
type warmer struct {
	mu             sync.Mutex
	running, again bool
}

func (w *warmer) kick(run func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.running {
		w.again = true
		return
	}
	w.running = true
	go func() {
		for {
			run()
			w.mu.Lock()
			if !w.again {
				w.running = false
				w.mu.Unlock()
				return
			}
			w.again = false
			w.mu.Unlock()
		}
	}()
}

// warmNavigation brings t's backlink index and the participant's completion
// candidates to the tree's version off the request path: after the load, so
// that the first references or completion does not pay for a pass over every
// note (50-80 ms at 100,000 notes, the slowest sample of the latency run),
// and after each change the watcher took, so that the first request after a
// write pays for nothing the tree already told. A request that comes while
// it runs waits on the index's lock for what it would have built itself.
func (s *Session) warmNavigation(t *tree) {
	if !t.loaded() || t.memory == nil {
		return
	}
	t.warm.kick(func() {
		s.mu.Lock()
		down := s.shutdown
		s.mu.Unlock()
		if down {
			return
		}
		m := t.memory
		t.links.warm(m)
		who, _ := resolveParticipant(m, s.Settings())
		t.candidates.lists(&Snapshot{Memory: m, Participant: who, tree: t, session: s})
	})
}

// warm brings the index to m's version.
func (c *linkIndexCache) warm(m *engine.Memory) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updateLocked(m)
}
