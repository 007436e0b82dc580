package engine

import (
	"slices"
	"strings"
)

// idSet is a set of IDs (the agents, the tasks) as readConfig builds it once
// per load: the first list it was made of when that list came sorted and
// without repeats, looked up by halves, and a map of the rest. A generated
// roster of 1,000 agents and a binding of 1,000 tasks are sorted: hashing
// them into two maps cost a one-note CLI call more than the floor's whole
// program (engine/internal/coldbench's eighteenth pass); any other list
// goes into the map as before. The zero idSet is empty.
type idSet struct {
	sorted []string        // strictly increasing, no ""
	more   map[string]bool // the IDs not in sorted
}

// newIDSet is the set of the lists' IDs but "", and the IDs in the order
// they first came (unique's, of the lists one after another).
func newIDSet(lists ...[]string) (order []string, s idSet) {
	total := 0
	for _, l := range lists {
		total += len(l)
	}
	defer func() {
		if order == nil && total > 0 {
			order = []string{} // unique's: nil only when no list held anything
		}
	}()
	if len(lists) > 0 && strictlySorted(lists[0]) {
		s.sorted = lists[0]
		order = slices.Clone(lists[0])
		lists = lists[1:]
	}
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	if n > 0 {
		s.more = make(map[string]bool, n)
	}
	for _, l := range lists {
		for _, x := range l {
			if x != "" && !s.has(x) {
				s.more[x] = true
				order = append(order, x)
			}
		}
	}
	return order, s
}

// strictlySorted reports whether xs is increasing, each ID after the one
// before it (so no repeats), and has no "".
func strictlySorted(xs []string) bool {
	if len(xs) == 0 || xs[0] == "" {
		return false
	}
	for i := 1; i < len(xs); i++ {
		if xs[i-1] >= xs[i] {
			return false
		}
	}
	return true
}

// has reports whether id is in the set.
func (s idSet) has(id string) bool {
	if s.more[id] {
		return true
	}
	if len(s.sorted) == 0 {
		return false
	}
	_, found := slices.BinarySearchFunc(s.sorted, id, strings.Compare)
	return found
}

// add puts ids in the set ("" never).
func (s *idSet) add(ids ...string) {
	for _, id := range ids {
		if id == "" || s.has(id) {
			continue
		}
		if s.more == nil {
			s.more = make(map[string]bool)
		}
		s.more[id] = true
	}
}
