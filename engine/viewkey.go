package engine

import "sort"

// ViewOfKey is View(s) for one key: the key's rows of View(s).Keys (none when
// no chain version of it is in scope) and its device notes, in View's order.
// An index of the view kept across versions of the tree (the editor's
// completion) recomputes only the keys whose notes changed with it.
func (m *Memory) ViewOfKey(s Scope, key string) (keys []KeyView, device []*Note) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	s.Machine = s.machine(m.machine)
	var chain []*Note
	for _, e := range m.versionsLocked(key) {
		if !m.visibleLocked1(s, e) {
			continue
		}
		if e.Dimension == Device {
			device = append(device, e)
		} else {
			chain = append(chain, e)
		}
	}
	if len(chain) > 0 {
		keys = resolve(key, chain)
	}
	sort.SliceStable(device, func(i, j int) bool { return !device[i].Legacy && device[j].Legacy })
	return keys, device
}

// visibleLocked1 reports whether visibleLocked(s) lists e.
func (m *Memory) visibleLocked1(s Scope, e *Note) bool {
	g := groupOf(e)
	ok := false
	switch {
	case g.id == "" && g.dim != Device:
		ok = true
	case g.dim == Device:
		ok = g.machine == s.Machine || (g.machine == "" && s.Machine == m.machine && s.Machine != "")
	case g.dim == Agent:
		ok = contains(s.Agents, g.id)
	case g.dim == Task:
		ok = s.Task != "" && g.id == s.Task
	}
	return ok && s.inScope(e, m.machine)
}
