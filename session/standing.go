package session

import (
	"slices"
	"strconv"
	"strings"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/errcode"
)

// Where a note stands in the session's effective view, in a few words (the code
// lens on line 1 of a memory note), and the note that wins its key:
//
//	effective · shadows user, account      (or "effective" alone)
//	shadowed by task T-7 (rev 3)
//	device · this machine                  device · machine a71b… (not this one)
//	not in scope (agent moe)
//	unregistered folder helpers/: in no block
//
// The winner is the note itself when it is effective or a device note, the
// session's winner of its key for a shadowed or out-of-scope note (itself when
// the session has none).

// ShowNoteCommand is the command a lens (and hover links) run to open a note.
const ShowNoteCommand = "magicfrog.showEntry"

// Standing is where one note stands in the session's effective view.
type Standing struct {
	Status engine.Status
	Scope  engine.Scope
	// Machine is the session's machine id (the scope's, else the tree's).
	Machine string
	// Summary is the one-line summary.
	Summary string
	// Winner is the note the lens opens.
	Winner *engine.Note
}

// Lens is the code lens of a note: at its first byte, titled with its
// standing, running Command with Args.
type Lens struct {
	Title   string
	Command string
	// Path is the note the command opens (its one argument is {"uri": Path's URI}).
	Path string
}

// NoteLens is the lens of the snapshot's note.
func NoteLens(snap *Snapshot) Lens {
	ns := NoteStanding(snap)
	winner := snap.Path
	if ns.Winner != nil {
		winner = ns.Winner.Path
	}
	return Lens{Title: ns.Summary, Command: ShowNoteCommand, Path: winner}
}

// NoteStanding computes the snapshot's note's standing for the participant.
func NoteStanding(snap *Snapshot) Standing {
	sc := snap.Participant
	e := snap.Note
	st := snap.Memory.StatusOf(e, sc)
	ns := Standing{Status: st, Scope: sc, Machine: snap.Memory.MachineOf(sc), Winner: e}
	if _, ok := crossingLink(snap); ok {
		ns.Summary = "link out of its owner's scope: not followed, in no block"
		return ns
	}
	switch {
	case e.Dimension == engine.Device:
		if st.InScope {
			ns.Summary = "device · this machine"
		} else {
			ns.Summary = "device · machine " + e.Machine() + " (not this one)"
		}
	case !st.InScope && e.Unregistered:
		ns.Summary = "unregistered folder " + e.Owner + "/: in no block"
		if len(st.Chain) > 0 {
			ns.Winner = st.Chain[0]
		}
	case !st.InScope:
		ns.Summary = "not in scope (" + OwnerLabel(e) + ")"
		if len(st.Chain) > 0 {
			ns.Winner = st.Chain[0]
		}
	case st.Effective:
		ns.Summary = "effective"
		if dims := shadowedDimensions(st.Shadows); len(dims) > 0 {
			ns.Summary += " · shadows " + strings.Join(dims, ", ")
		}
	case st.Winner != nil:
		ns.Summary = "shadowed by " + OwnerLabel(st.Winner) + " (rev " + strconv.Itoa(st.Winner.Revision()) + ")"
		ns.Winner = st.Winner
	default:
		ns.Summary = "not effective"
	}
	if d, ok := errcode.DataOf(snap.Refused); ok && d.Code == errcode.SeveralAgents {
		// Which agent's view it is is not decided: the editor asks (SPEC §5).
		ns.Summary = "no agent chosen (" + strings.Join(d.Choices, ", ") + ")"
	}
	return ns
}

// crossingLink is the problem of the snapshot's note when its path is a
// symbolic link the engine does not follow because it leaves its owner's
// scope: the editor read the buffer through the link, no block holds it.
func crossingLink(snap *Snapshot) (engine.Problem, bool) {
	return snap.Memory.CrossingLink(snap.Note.Path)
}

// OwnerLabel names where a note lives: "task T-7", "agent larry", "user".
func OwnerLabel(e *engine.Note) string {
	if e.Owner != "" {
		return e.Dimension.String() + " " + e.Owner
	}
	return e.Dimension.String()
}

// shadowedDimensions lists the dimensions of shadowed notes, most specific
// first, each once.
func shadowedDimensions(es []*engine.Note) []string {
	var out []string
	for _, e := range es {
		d := e.Dimension.String()
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}
