package session

import (
	"bytes"

	"github.com/magicfrog/mf-lsp/engine/frontmatter"
)

// Definition at byte offset off of the snapshot's note: on a link, the note
// it resolves to (links.go); on the first line of a shadowed note, the note
// that wins its key. Only notes in the participant's scope are answered; nil
// when there is nothing to go to.
func Definition(snap *Snapshot, off int) []Place {
	if l, ok := linkAt(snap, off); ok {
		if t := resolveLink(snap.Memory, snap.Participant, snap.Path, l); t != nil {
			return []Place{placeIn(t, frontmatter.Span{})}
		}
		return nil
	}
	if off <= firstLineEnd(snap.Src()) {
		st := snap.Memory.StatusOf(snap.Note, snap.Participant)
		if st.InScope && !st.Effective && st.Winner != nil {
			return []Place{placeIn(st.Winner, frontmatter.Span{})}
		}
	}
	return nil
}

// firstLineEnd is the offset of the end of src's first line.
func firstLineEnd(src []byte) int {
	if i := bytes.IndexAny(src, "\r\n"); i >= 0 {
		return i
	}
	return len(src)
}
