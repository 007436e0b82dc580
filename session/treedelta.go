package session

import "github.com/magicfrog/mf-lsp/engine"

// noteSet is the notes of a tree an index has taken in, to tell, at a new
// version of the tree, which notes came and which went: a note that changed
// on disk is a new *engine.Note (and its old one is gone), one that did not
// keeps its pointer. Navigation's indexes (backlinks, completion) follow the
// tree by these deltas instead of being built again at every version.
type noteSet struct {
	seen  map[*engine.Note]uint64 // the last scan that saw each note
	scans uint64
}

// update takes in notes, the tree's notes now, and returns the notes new
// since the last update and those gone.
func (ns *noteSet) update(notes []*engine.Note) (added, removed []*engine.Note) {
	if ns.seen == nil {
		ns.seen = make(map[*engine.Note]uint64, len(notes))
	}
	ns.scans++
	scan := ns.scans
	for _, e := range notes {
		if _, ok := ns.seen[e]; !ok {
			added = append(added, e)
		}
		ns.seen[e] = scan
	}
	if len(ns.seen) == len(notes) {
		return added, nil
	}
	for e, s := range ns.seen {
		if s != scan {
			removed = append(removed, e)
			delete(ns.seen, e)
		}
	}
	return added, removed
}
