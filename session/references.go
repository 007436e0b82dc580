package session

import (
	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
)

// References of the note at byte offset off of the snapshot's note (on a link:
// of the note it resolves to): first every version of its key the participant
// can see, most specific first (the chain: the start of each note), then every
// link in a note of the participant's scope that resolves to it (backlinks).
// withSelf false leaves the note itself out of the chain. Notes outside the
// participant's scope are never listed.
func References(snap *Snapshot, off int, withSelf bool) []Place {
	target := snap.Note
	if l, ok := linkAt(snap, off); ok {
		if target = resolveLink(snap.Memory, snap.Participant, snap.Path, l); target == nil {
			return nil
		}
	}
	var out []Place
	for _, x := range snap.Memory.StatusOf(target, snap.Participant).Chain {
		if x.Path == target.Path && !withSelf {
			continue
		}
		if x.Path == snap.Path {
			out = append(out, Place{Path: x.Path, Src: snap.Src()}) // the open buffer
		} else {
			out = append(out, placeIn(x, frontmatter.Span{}))
		}
	}
	return append(out, Backlinks(snap, target)...)
}

// srcOf is e's bytes, the open buffer's when e is the snapshot's note.
func srcOf(snap *Snapshot, e *engine.Note) []byte {
	if e.Path == snap.Path {
		return snap.Src()
	}
	return e.TextOrNil()
}
