package lsp

import (
	"slices"
	"strconv"
	"strings"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/engine"
)

// The code lens on line 1 of a memory note says where it stands in the session's
// effective view, in a few words, and opens the note that wins its key:
//
//	effective · shadows user, account      (or "effective" alone)
//	shadowed by task T-7 (rev 3)
//	device · this machine                  device · machine a71b… (not this one)
//	not in scope (agent moe)
//	unregistered folder helpers/: in no block
//
// Its command is magicfrog.showEntry {uri} (commands.go) on the winner: the note
// itself when it is effective or a device note, the session's winner of its key for
// a shadowed or out-of-scope note (itself when the session has none).

// showEntryCommand is the command a lens (and hover links) run to open a note.
const showEntryCommand = "magicfrog.showEntry"

// noteStanding is where one note stands in the session's effective view: what the
// lens says and what hover elaborates on.
type noteStanding struct {
	Status engine.Status
	Scope  engine.Scope
	// Machine is the session's machine id (the scope's, else the tree's).
	Machine string
	// Lens is the one-line summary.
	Lens string
	// Winner is the note the lens opens.
	Winner *engine.Note
}

// standing computes a note's standing in the session scope.
func (s *Server) standing(n *Located) noteStanding {
	sc := s.Participant(n.Memory)
	st := n.Memory.StatusOf(n.Note, sc)
	ns := noteStanding{Status: st, Scope: sc, Machine: n.Memory.MachineOf(sc), Winner: n.Note}
	e := n.Note
	switch {
	case e.Dimension == engine.Device:
		bound := e.Machine()
		if st.InScope {
			ns.Lens = "device · this machine"
		} else {
			ns.Lens = "device · machine " + bound + " (not this one)"
		}
	case !st.InScope && e.Unregistered:
		ns.Lens = "unregistered folder " + e.Owner + "/: in no block"
		if len(st.Chain) > 0 {
			ns.Winner = st.Chain[0]
		}
	case !st.InScope:
		ns.Lens = "not in scope (" + scopeLabel(e) + ")"
		if len(st.Chain) > 0 {
			ns.Winner = st.Chain[0]
		}
	case st.Effective:
		ns.Lens = "effective"
		if dims := shadowedDimensions(st.Shadows); len(dims) > 0 {
			ns.Lens += " · shadows " + strings.Join(dims, ", ")
		}
	case st.Winner != nil:
		ns.Lens = "shadowed by " + scopeLabel(st.Winner) + " (rev " + strconv.Itoa(st.Winner.Revision()) + ")"
		ns.Winner = st.Winner
	default:
		ns.Lens = "not effective"
	}
	return ns
}

// scopeLabel names where a note lives: "task T-7", "agent larry", "user".
func scopeLabel(e *engine.Note) string {
	if e.Owner != "" {
		return e.Dimension.String() + " " + e.Owner
	}
	return e.Dimension.String()
}

// shadowedDimensions lists the dimensions of shadowed notes, most specific first,
// each once.
func shadowedDimensions(es []*engine.Note) []string {
	var out []string
	for _, e := range es {
		d := e.Dimension.String()
		if len(out) == 0 || !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// codeLens answers textDocument/codeLens: one lens on line 1 of a memory note, none
// for other files.
func (s *Server) codeLens(_ *glsp.Context, p *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	n, ok := s.Note(p.TextDocument.URI)
	if !ok {
		return []protocol.CodeLens{}, nil
	}
	ns := s.standing(n)
	winner := p.TextDocument.URI
	if ns.Winner != nil && ns.Winner.Path != n.Path {
		winner = PathToURI(ns.Winner.Path)
	}
	return []protocol.CodeLens{{
		Range: protocol.Range{},
		Command: &protocol.Command{
			Title:     ns.Lens,
			Command:   showEntryCommand,
			Arguments: []any{map[string]any{"uri": winner}},
		},
	}}, nil
}
