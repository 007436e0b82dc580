package session

import "github.com/magicfrog/mf-lsp/engine"

// noteSet follows a tree for an index kept beside it (backlinks,
// completion): at a new version of the tree it asks the tree what changed
// since the version the index last took in (engine.Memory.ChangesSince), so
// the index applies only the notes that came and went, never a pass over
// every note of the tree. A note that changed on disk is a new *engine.Note
// (and its old one is gone); one that did not keeps its pointer.
type noteSet struct {
	memory  *engine.Memory // the tree followed
	version uint64         // its version the index holds; 0: none yet
}

// update is what changed in m since the last update. Full says the index
// starts over: Added is every note of the tree (its first update, a reload,
// an index too far behind).
func (ns *noteSet) update(m *engine.Memory) engine.Changes {
	if ns.memory != m {
		ns.memory, ns.version = m, 0 // another tree: start over
	}
	c := m.ChangesSince(ns.version)
	ns.version = c.Version
	return c
}

// current reports whether the index holds m's version.
func (ns *noteSet) current(m *engine.Memory) bool {
	return ns.memory == m && ns.version != 0 && ns.version == m.Version()
}
