package session

// InlayHint is the hint at the end of a note's first line: its standing, as
// the code lens titles it (NoteStanding), for clients that show hints rather
// than lenses. A note that is plainly effective gets none: the hint is for
// what the user should notice (shadowed, shadowing, out of scope,
// unregistered, another machine's).
type InlayHint struct {
	Offset int // where the hint stands: the end of the first line
	Label  string
}

// NoteInlayHints are the inlay hints of the snapshot's note.
func NoteInlayHints(snap *Snapshot) []InlayHint {
	ns := NoteStanding(snap)
	if ns.Summary == "effective" || ns.Summary == "device · this machine" {
		return nil
	}
	return []InlayHint{{Offset: firstLineEnd(snap.Src()), Label: ns.Summary}}
}
