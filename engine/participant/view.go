package participant

import (
	"strings"

	"github.com/magicfrog/mf-lsp/engine"
)

// ViewKey is one key of the effective view.
type ViewKey struct {
	Key      string     `json:"key"`
	Winner   NoteInfo   `json:"winner" jsonschema:"the note that is in effect for this key"`
	Shadowed []NoteInfo `json:"shadowed" jsonschema:"less specific notes of the key, hidden by the winner, most specific first"`
}

// View is the participant's effective view (SPEC §3).
type View struct {
	Task    string     `json:"task" jsonschema:"the participant's task (\"\": none)"`
	Agent   string     `json:"agent" jsonschema:"the participant's agent (\"\": none)"`
	Machine string     `json:"machine" jsonschema:"this machine's id, whose device notes are in scope"`
	Keys    []ViewKey  `json:"keys" jsonschema:"every key in scope, sorted, with its winner"`
	Device  []NoteInfo `json:"device" jsonschema:"this machine's device notes (never shadowed)"`
}

// View lists every key the participant sees, the note that wins it and the
// notes it shadows; then this machine's device notes.
func (p *Participant) View() *View {
	v := p.m.View(p.Scope())
	out := &View{Task: p.scope.Task, Agent: p.Agent(), Machine: v.Scope.Machine, Keys: make([]ViewKey, 0, len(v.Keys)), Device: make([]NoteInfo, 0, len(v.Device))}
	for _, kv := range v.Keys {
		k := ViewKey{Key: kv.Key, Winner: NoteOf(kv.Winner), Shadowed: make([]NoteInfo, 0, len(kv.Shadowed))}
		for _, s := range kv.Shadowed {
			k.Shadowed = append(k.Shadowed, NoteOf(s))
		}
		out.Keys = append(out.Keys, k)
	}
	for _, e := range v.Device {
		out.Device = append(out.Device, NoteOf(e))
	}
	return out
}

// Notes lists every note in the participant's scope: winners, the notes they
// shadow, and this machine's device notes, in the view's order.
func (p *Participant) Notes() []*engine.Note {
	v := p.m.View(p.Scope())
	var out []*engine.Note
	for _, kv := range v.Keys {
		out = append(out, kv.Winner)
		out = append(out, kv.Shadowed...)
	}
	return append(out, v.Device...)
}

// NoteAt finds the note of a resource URI's portable path in scope:
// "agent/larry/notes/style.md". The engine's own classification says which
// first folder is an ID. It re-reads the file first.
func (p *Participant) NoteAt(ref string) (*engine.Note, error) {
	dim, rest, _ := strings.Cut(ref, "/")
	d, err := engine.ParseDimension(dim)
	if err != nil || rest == "" {
		return nil, refuse("%q: want DIMENSION/[ID/]KEY", ref)
	}
	if err := engine.CheckKey(rest); err != nil {
		return nil, refuse("%q: %v", ref, err)
	}
	path, err := p.m.PathOf(d, "", rest)
	if err != nil {
		return nil, refuse("%q: %v", ref, err)
	}
	loc, ok := p.m.Locate(path)
	if !ok {
		return nil, refuse("%q is outside every memory root", ref)
	}
	pl, err := p.ParsePlace(Place{loc.Dimension, loc.Owner}.String())
	if err != nil {
		return nil, err
	}
	e, err := p.noteFor(pl, loc.Key)
	if err != nil {
		return nil, err
	}
	if e == nil {
		return nil, p.notFound(pl, loc.Key)
	}
	return e, nil
}

// TextAt is the text of the note at ref (NoteAt): the file's bytes, whole.
// A note the tree reads on demand that changed on disk since the load is
// refused as stale (engine.ChangedError), never answered as it was.
func (p *Participant) TextAt(ref string) ([]byte, error) {
	e, err := p.NoteAt(ref)
	if err != nil {
		return nil, err
	}
	return e.Text()
}
