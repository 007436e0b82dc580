package engine

import "sync"

// seenOrder puts what refreshes of one note saw into the local history in the
// order they read the disk. A refresh takes its turn under the tree's lock,
// where it read the file, and records after letting the lock go (history
// writes are disk I/O, and the tree's lock is the readers'): it waits only
// for the earlier refreshes of the same path, never for other notes. Without
// it, two refreshes of one path (a watcher batch and a save) could log the
// version the tree had after the deletion the other one saw, or judge the
// other one's version.
type seenOrder struct {
	mu    sync.Mutex
	cond  sync.Cond
	paths map[string]*seenTurns // only paths with a refresh still to record
}

type seenTurns struct{ next, done uint64 }

// take is the next turn of path; the caller holds the tree's lock and must
// call record with it, exactly once.
func (o *seenOrder) take(path string) uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.paths == nil {
		o.paths = map[string]*seenTurns{}
		o.cond.L = &o.mu
	}
	t := o.paths[path]
	if t == nil {
		t = &seenTurns{}
		o.paths[path] = t
	}
	turn := t.next
	t.next++
	return turn
}

// record runs fn when every earlier turn of path has recorded.
func (o *seenOrder) record(path string, turn uint64, fn func()) {
	o.mu.Lock()
	for o.paths[path].done != turn {
		o.cond.Wait()
	}
	o.mu.Unlock()
	defer func() {
		o.mu.Lock()
		t := o.paths[path]
		if t.done++; t.done == t.next {
			delete(o.paths, path)
		}
		o.mu.Unlock()
		o.cond.Broadcast()
	}()
	fn()
}
