package engine

// What changed between versions of the tree. Every change to the loaded notes
// goes through putLocked and dropLocked, so the tree records there which notes
// came and went, and seals them as one entry of its change log when its
// version moves. An index kept beside the tree (the editor's backlinks and
// completion) asks for the change since the version it was built at
// (Memory.ChangesSince) and applies it: work in the notes changed, not in
// the notes of the tree. A note that changed is a new *Note; one that did
// not keeps its pointer, so a note is added once and removed once at most.

// maxLoggedNotes bounds the change log: the notes its entries name together,
// and its entries (the notes it keeps alive that left the tree).
// An index further behind than that builds itself again from the whole tree,
// which costs what that many changes would, or less.
const maxLoggedNotes = 1024

// change is what one version of the tree added and removed.
type change struct {
	version        uint64
	added, removed []*Note
}

// changeLog is the tree's recent changes, oldest first, and what is being
// recorded for the next version.
type changeLog struct {
	// floor is the oldest version a change can be told since: a reload (or
	// the bound) forgets what came before it.
	floor   uint64
	entries []change
	notes   int // the notes the entries name
	pending change
	off     bool // a reload is putting in every note: nothing to record
}

// Changes is what changed in the tree since an earlier version.
type Changes struct {
	// Version is the tree's version the change brings an index to.
	Version uint64
	// Full says the change is not known (the index was never built, a
	// reload replaced the tree, or the index is too far behind): Added is
	// then every note of the tree, and Removed is empty; the index starts
	// over from Added.
	Full bool
	// Added and Removed are the notes that came and went, each once: a note
	// added and removed again between the two versions is in neither.
	Added, Removed []*Note
}

// ChangesSince is what changed in the tree since version since (0: never
// seen), told at once with the version it brings the caller to.
func (m *Memory) ChangesSince(since uint64) Changes {
	m.mu.RLock()
	defer m.mu.RUnlock()
	c := Changes{Version: m.version}
	if since == m.version {
		return c
	}
	log := &m.changes
	if since == 0 || since < log.floor || since > m.version {
		c.Full = true
		c.Added = make([]*Note, 0, len(m.entries))
		for _, e := range m.entries {
			c.Added = append(c.Added, e)
		}
		return c
	}
	added := map[*Note]bool{}
	for _, ch := range log.entries {
		if ch.version <= since {
			continue
		}
		for _, e := range ch.removed {
			if added[e] {
				delete(added, e) // came and went since: the caller never saw it
				continue
			}
			c.Removed = append(c.Removed, e)
		}
		for _, e := range ch.added {
			added[e] = true
		}
	}
	for _, ch := range log.entries {
		for _, e := range ch.added {
			if ch.version > since && added[e] {
				c.Added = append(c.Added, e)
			}
		}
	}
	return c
}

// noteAddedLocked and noteRemovedLocked record a change to the notes for the
// next version.
func (m *Memory) noteAddedLocked(e *Note) {
	if !m.changes.off {
		m.changes.pending.added = append(m.changes.pending.added, e)
	}
}

func (m *Memory) noteRemovedLocked(e *Note) {
	if !m.changes.off {
		m.changes.pending.removed = append(m.changes.pending.removed, e)
	}
}

// pendingAny reports whether notes came or went since the last version.
func (log *changeLog) pendingAny() bool {
	return len(log.pending.added)+len(log.pending.removed) > 0
}

// bumpLocked moves the tree to its next version, the changes recorded since
// the last one its log entry.
func (m *Memory) bumpLocked() {
	m.version++
	log := &m.changes
	ch := log.pending
	log.pending = change{}
	ch.version = m.version
	log.entries = append(log.entries, ch)
	log.notes += len(ch.added) + len(ch.removed)
	for (log.notes > maxLoggedNotes || len(log.entries) > maxLoggedNotes) && len(log.entries) > 0 {
		first := log.entries[0]
		log.notes -= len(first.added) + len(first.removed)
		log.entries[0] = change{}
		log.entries = log.entries[1:]
		log.floor = first.version // told since first.version, no longer since before it
	}
	if len(log.entries) == 0 {
		log.entries = nil
	}
}

// forgetChangesLocked starts the log over at the tree's version: a reload
// replaced every note, so nothing before it can be told as a change.
func (m *Memory) forgetChangesLocked() {
	m.changes = changeLog{floor: m.version}
}
