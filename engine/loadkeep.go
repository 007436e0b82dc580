package engine

import (
	"context"
	"os"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/magicfrog/mf-lsp/engine/history"
)

// KeptLoaded says what KeepLoaded did.
type KeptLoaded struct {
	Kept    int // versions logged as observed
	Known   int // notes whose loaded version the history held already
	Read    int // notes read from disk for it
	Changed int // changed on disk since the load: left to the watcher
	// Left is how many notes (LeftBytes their size) were not kept: the
	// versions kept would have taken their root's history past its
	// policy's MaxBytes.
	Left      int
	LeftBytes int64
}

// keepWorkers is how many notes KeepLoaded reads at once: one on a machine
// of up to 7 CPUs, two above. The pass runs beside the server's requests and
// is not in a hurry.
// KeepLookUpsPerWait is how many notes KeepLoaded looks up in the history's sums
// between two calls of its before hook.
const KeepLookUpsPerWait = 128

func keepWorkers() int { return min(2, max(1, runtime.GOMAXPROCS(0)/4)) }

// KeepLoaded records in the local history, as observed, the version of
// every note that the load did not keep in memory (Options.BodiesOnDemand:
// a note over ResidentMax) and whose content its root's history does not
// hold yet (looked up by the note's SHA-256 in the history's sums file: a
// second load reads no note). A resident note needs none of this: Refresh
// keeps the text it holds when something replaces it. Without the pass, a
// large note changed by another program would leave no trace of the
// version the tree loaded (SPEC §7, issue 21).
//
// Each note is read through the load's checked read (Note.Text): one whose
// bytes no longer hash to what the load took changed meanwhile and is left
// to the watcher (Changed). A note is logged only while the tree still holds
// the version read, so a refresh logging what replaced it comes after it.
// Device notes bound to another machine are never kept; task notes go to
// the project's history. Notes are taken newest first (by the file's
// modification time) while the versions kept, at their full size, and the
// objects already in the root's history fit the policy's MaxBytes: a first
// pass over a large foreign tree never pushes out the versions the history
// kept before (the rest is Left, for the caller to say). It stops when ctx
// is done. A tree loaded with ScopeOnly is not passed over (it records
// nothing it sees, as Refresh).
//
// before, when set, is called before each note is read, and every
// KeepLookUpsPerWait notes the pass looks up: a caller's foreground work
// goes first (the session waits there while its editor is busy). It returns
// when the pass may go on; the pass checks ctx after it. A note left out by
// the bound is not read and waits for nothing.
func (m *Memory) KeepLoaded(ctx context.Context, before func(context.Context)) (KeptLoaded, error) {
	var out KeptLoaded
	if m.scopeOnly {
		return out, nil
	}
	type cand struct {
		n   *Note
		rel string
		mod time.Time
	}
	byStore := map[*history.Store][]cand{}
	var stores []*history.Store
	// Unordered: the pass sorts what it reads by modification time, and a
	// sort of every note (100 ms of CPU at 100,000 notes, beside the
	// requests) buys nothing on a tree whose notes are all resident.
	// Looking the notes up is work too (their roots, the sums: 0.8 s of CPU
	// at 100,000 notes of 8-64 KB, which took a CPU from the editor's
	// requests in one go): the caller's work goes first every
	// KeepLookUpsPerWait notes.
	looked := 0
	pace := func() error {
		if looked++; before != nil && looked%KeepLookUpsPerWait == 0 {
			before(ctx)
		}
		return ctx.Err()
	}
	for _, n := range m.NotesUnordered() {
		if err := pace(); err != nil {
			return out, err
		}
		if n.Resident() || !m.keepsNote(n) {
			continue
		}
		h, rel, ok := m.History(n.Path)
		if !ok {
			continue
		}
		if byStore[h] == nil {
			stores = append(stores, h)
		}
		byStore[h] = append(byStore[h], cand{n: n, rel: rel})
	}
	for _, h := range stores {
		sums, err := h.Sums()
		if err != nil {
			return out, err
		}
		// The room is known before the look-ups: at its bound the history
		// takes none of the notes it does not hold, and those need no
		// modification time to be ordered by (an Lstat each).
		var room atomic.Int64
		room.Store(h.Policy().MaxBytes - h.ObjectBytes())
		full := room.Load() <= 0
		var todo []cand
		for _, c := range byStore[h] {
			if err := pace(); err != nil {
				return out, err
			}
			if sums.Known(c.rel, c.n.Sum()) {
				out.Known++
				continue
			}
			if full {
				out.Left++
				out.LeftBytes += int64(c.n.Size())
				continue
			}
			if fi, err := os.Lstat(c.n.Path); err == nil {
				c.mod = fi.ModTime()
			}
			todo = append(todo, c)
		}
		sums = nil
		sort.SliceStable(todo, func(a, b int) bool { return todo[a].mod.After(todo[b].mod) })
		// One open of the history's folder for the whole pass: each note's
		// Observe opened it (its checked open, two folders) two or three times.
		release := h.Hold()
		var mu sync.Mutex // out
		var next atomic.Int64
		var wg sync.WaitGroup
		for range keepWorkers() {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					i := int(next.Add(1)) - 1
					if i >= len(todo) {
						return
					}
					c := todo[i]
					size := int64(c.n.Size())
					if room.Add(-size) < 0 { // left out: nothing read, nothing to wait for
						room.Add(size)
						mu.Lock()
						out.Left++
						out.LeftBytes += size
						mu.Unlock()
						continue
					}
					if before != nil {
						if before(ctx); ctx.Err() != nil {
							room.Add(size)
							return
						}
					}
					kept, read, changed := m.keepLoaded(h, c.rel, c.n)
					if !kept {
						room.Add(size)
					}
					mu.Lock()
					out.Read += read
					if changed {
						out.Changed++
					} else if kept {
						out.Kept++
					} else {
						out.Known++
					}
					mu.Unlock()
					runtime.Gosched()
				}
			}()
		}
		wg.Wait()
		release()
		if err := ctx.Err(); err != nil {
			return out, err
		}
	}
	return out, nil
}

// keepLoaded reads the note n (loaded, not resident) and logs its text in
// h, the history of its root, as the note rel, while the tree holds it.
func (m *Memory) keepLoaded(h *history.Store, rel string, n *Note) (kept bool, read int, changed bool) {
	src, err := n.Text() // checked against the load's hash; a change is told
	if err != nil {
		return false, 1, true
	}
	kept, err = h.Observe(rel, src, time.Now(), func() (bool, func()) {
		m.mu.RLock()
		cur := m.entries[n.Path]
		return cur != nil && cur.Sum() == n.Sum(), m.mu.RUnlock
	})
	return kept && err == nil, 1, false
}

// keepsNote reports whether the history may hold versions of n: not a
// device note bound to another machine (keeps, from the frontmatter the
// note keeps resident).
func (m *Memory) keepsNote(n *Note) bool {
	if loc, ok := m.Locate(n.Path); !ok || loc.Root.Dimension != Device {
		return ok
	}
	bound := n.Machine()
	return bound == "" || bound == m.MachineID()
}
