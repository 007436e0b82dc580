package engine

import "sort"

// Scope is who is looking: the task, the agents on the session's roster, and
// this machine (SPEC §3).
type Scope struct {
	Task    string   `json:"task,omitempty"`
	Agents  []string `json:"agents,omitempty"`
	Machine string   `json:"machine,omitempty"`
}

// inScope reports whether e can be seen at all from s: other agents' and other
// tasks' notes, and other machines' device notes, cannot.
func (s Scope) inScope(e *Note, thisMachine string) bool {
	switch e.Dimension {
	case Agent:
		return e.Owner == "" || contains(s.Agents, e.Owner)
	case Task:
		return e.Owner == "" || e.Owner == s.Task
	case Device:
		bound := deviceMachine(e)
		if bound == "" {
			bound = thisMachine
		}
		return bound == s.machine(thisMachine)
	}
	return true
}

// MachineOf is the machine s looks from: the machine it names, else this
// machine's ID ("" when none was made yet). Render, the effective view,
// diagnostics, participants and the editor all fill a scope's machine so.
func (m *Memory) MachineOf(s Scope) string { return s.machine(m.MachineID()) }

// machine is the machine s looks from when thisMachine is this machine's ID
// (MachineOf, for callers that hold the lock).
func (s Scope) machine(thisMachine string) string {
	if s.Machine != "" {
		return s.Machine
	}
	return thisMachine
}

// deviceMachine is the machine a device note is bound to. A note without the
// binding (a legacy machine/ note predates it) lives only on this disk, so
// inScope binds it to this machine.
func deviceMachine(e *Note) string {
	return e.Machine()
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// rank orders competing versions of a key: a more specific dimension wins, and
// inside a dimension an ID-scoped note beats a shared one; a canonical note beats
// a legacy one in the same place.
func rank(e *Note) int {
	r := e.Dimension.Specificity() * 4
	if e.Owner != "" {
		r += 2
	}
	if !e.Legacy {
		r++
	}
	return r
}

// KeyView is one key of the effective view: the winning note and the notes it
// shadows, most specific first.
type KeyView struct {
	Key      string
	Winner   *Note
	Shadowed []*Note
}

// View is the effective view for a scope (SPEC §3).
type View struct {
	Scope Scope
	// Keys holds the chain's winners, sorted by key. With several agents in scope
	// a key can appear once per agent that has its own version: agents' own notes
	// never shadow each other.
	Keys []KeyView
	// Device holds this machine's device notes, each its own row, sorted by key.
	Device []*Note
	// Unregistered holds the notes under unregistered first folders (SPEC §2)
	// that the scope does not name, sorted by portable path: no one's notes, so
	// in no block, but listed so that the block says what it left out.
	Unregistered []*Note
}

// group is where a note applies: its dimension, its ID prefix, and for device
// notes the machine they are bound to ("" unbound). A scope sees a handful of
// groups, so the view never walks the notes it cannot see.
type group struct {
	dim     Dimension
	id      string
	machine string
}

func groupOf(e *Note) group {
	if e.Dimension == Device {
		return group{dim: Device, machine: deviceMachine(e)}
	}
	return group{dim: e.Dimension, id: e.Owner}
}

// visibleLocked lists the notes scope s can see, from the groups it covers.
func (m *Memory) visibleLocked(s Scope) []*Note {
	gs := []group{{dim: Account}, {dim: User}, {dim: Agent}, {dim: Task}, {dim: Device, machine: s.Machine}}
	for _, a := range s.Agents {
		if a != "" {
			gs = append(gs, group{dim: Agent, id: a})
		}
	}
	if s.Task != "" {
		gs = append(gs, group{dim: Task, id: s.Task})
	}
	if s.Machine == m.machine && s.Machine != "" {
		gs = append(gs, group{dim: Device}) // unbound device notes are this machine's
	}
	n := 0
	for _, g := range gs {
		n += len(m.groups[g])
	}
	out := make([]*Note, 0, n)
	for _, g := range gs {
		for e := range m.groups[g] {
			if s.inScope(e, m.machine) {
				out = append(out, e)
			}
		}
	}
	return out
}

// View computes the effective view for a scope.
func (m *Memory) View(s Scope) *View {
	m.mu.RLock()
	defer m.mu.RUnlock()
	s.Machine = s.machine(m.machine)
	v := &View{Scope: s}
	// Sorting the visible notes by key and walking runs of one key is cheaper
	// than a map of keys: a scope at 100,000 notes sees thousands.
	visible := m.visibleLocked(s)
	chain := visible[:0:0]
	for _, e := range visible {
		if e.Dimension == Device {
			v.Device = append(v.Device, e)
		} else {
			chain = append(chain, e)
		}
	}
	sort.Slice(chain, func(i, j int) bool { return chain[i].Key < chain[j].Key })
	v.Keys = make([]KeyView, 0, len(chain))
	for i := 0; i < len(chain); {
		j := i + 1
		for j < len(chain) && chain[j].Key == chain[i].Key {
			j++
		}
		if j == i+1 {
			v.Keys = append(v.Keys, KeyView{Key: chain[i].Key, Winner: chain[i]}) // most keys: one version
		} else {
			v.Keys = append(v.Keys, resolve(chain[i].Key, chain[i:j])...)
		}
		i = j
	}
	for g, es := range m.groups {
		if g.id == "" || (g.dim == Agent && contains(s.Agents, g.id)) || (g.dim == Task && g.id == s.Task) {
			continue
		}
		for e := range es {
			if e.Unregistered {
				v.Unregistered = append(v.Unregistered, e)
			}
		}
	}
	sort.Slice(v.Unregistered, func(i, j int) bool {
		a, b := v.Unregistered[i], v.Unregistered[j]
		if a.Ref() != b.Ref() {
			return a.Ref() < b.Ref()
		}
		return !a.Legacy && b.Legacy
	})
	sort.SliceStable(v.Device, func(i, j int) bool {
		if v.Device[i].Key != v.Device[j].Key {
			return v.Device[i].Key < v.Device[j].Key
		}
		return !v.Device[i].Legacy && v.Device[j].Legacy
	})
	return v
}

// resolve picks the winners among a key's in-scope versions.
func resolve(key string, cands []*Note) []KeyView {
	sorted := sortByRank(append([]*Note(nil), cands...))
	top := rank(sorted[0])
	// Several agents' own notes tie at the top: each is a winner for its agent,
	// and all of them shadow the rest.
	n := 1
	for n < len(sorted) && rank(sorted[n]) == top && sorted[n].Dimension == Agent && sorted[n].Owner != sorted[0].Owner {
		n++
	}
	out := make([]KeyView, 0, n)
	for i := 0; i < n; i++ {
		kv := KeyView{Key: key, Winner: sorted[i]}
		for _, e := range sorted[n:] {
			kv.Shadowed = append(kv.Shadowed, e)
		}
		out = append(out, kv)
	}
	return out
}

// Status is where one note stands in the effective view of a scope.
type Status struct {
	InScope   bool    // the scope can see this note at all
	Effective bool    // it is (one of) the winner(s) of its key
	Winner    *Note   // the note that shadows it, when not effective
	Shadows   []*Note // what it shadows, when effective
	Chain     []*Note // every in-scope version of its key, most specific first
}

// StatusOf says whether e wins its key in scope s and what it shadows or is
// shadowed by. Device notes are never shadowed.
func (m *Memory) StatusOf(e *Note, s Scope) Status {
	m.mu.RLock()
	thisMachine := m.machine
	versions := m.versionsLocked(e.Key)
	m.mu.RUnlock()
	if e.Dimension == Device {
		in := s.inScope(e, thisMachine)
		return Status{InScope: in, Effective: in, Chain: []*Note{e}}
	}
	found := false
	var cands []*Note
	for _, x := range versions {
		if x.Path == e.Path {
			x, found = e, true // the caller's version may be an unsaved buffer
		}
		if x.Dimension != Device && s.inScope(x, thisMachine) {
			cands = append(cands, x)
		}
	}
	if !found && e.Dimension != Device && s.inScope(e, thisMachine) {
		cands = append(cands, e)
	}
	if !s.inScope(e, thisMachine) {
		return Status{Chain: sortByRank(cands)}
	}
	st := Status{InScope: true, Chain: sortByRank(cands)}
	kvs := resolve(e.Key, cands)
	for _, kv := range kvs {
		if kv.Winner.Path == e.Path {
			st.Effective, st.Shadows = true, kv.Shadowed
			return st
		}
	}
	st.Winner = kvs[0].Winner
	return st
}

// sortByRank orders versions most specific first; ties (several agents' own
// notes) by portable path, so that the order never depends on map iteration.
func sortByRank(es []*Note) []*Note {
	sort.Slice(es, func(i, j int) bool {
		if ri, rj := rank(es[i]), rank(es[j]); ri != rj {
			return ri > rj
		}
		if a, b := es[i].Ref(), es[j].Ref(); a != b {
			return a < b
		}
		return es[i].Path < es[j].Path
	})
	return es
}
