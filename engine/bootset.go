package engine

import (
	"sort"
	"time"

	"github.com/magicfrog/mf-lsp/engine/journal"
)

// bootSet decides which journal files the <memory> block takes and in which
// order (SPEC §6, journal.BootRank): today's daily, yesterday's daily, the
// refined days asked for by Earlier, the last completed week's weekly, MEMORY.md,
// then the sticky notes.
type bootSet struct {
	today   journal.Day
	earlier int
}

// newBootSet reads today (YYYY-MM-DD; "" is the local date) and the number of
// earlier refined days to add.
func newBootSet(today string, earlier int) (bootSet, error) {
	day, err := Today(today)
	if err != nil {
		return bootSet{}, err
	}
	if earlier < 0 {
		earlier = 0
	}
	return bootSet{today: day, earlier: earlier}, nil
}

func (b bootSet) rank(e *Note) (int, bool) {
	f, _ := journal.Classify(e.LayerKey())
	return journal.BootRank(f, b.today, b.earlier)
}

// keep reports whether a note of a fractal layer is in the boot set.
func (b bootSet) keep(e *Note) bool {
	_, ok := b.rank(e)
	return ok
}

// order puts the journal notes of one block element (sorted by key) in the
// boot set's order. Each journal layer's notes stay where its first note was
// among the element's other notes; inside it, by rank, then by key.
func (b bootSet) order(notes []*Note) []*Note {
	var out []*Note
	placed := map[string]bool{}
	for _, e := range notes {
		if e.Layer.Kind != KindFractal {
			out = append(out, e)
			continue
		}
		if placed[e.Layer.Name] {
			continue
		}
		placed[e.Layer.Name] = true
		var js []*Note
		for _, f := range notes {
			if f.Layer.Kind == KindFractal && f.Layer.Name == e.Layer.Name {
				js = append(js, f)
			}
		}
		sort.SliceStable(js, func(i, j int) bool {
			ri, _ := b.rank(js[i])
			rj, _ := b.rank(js[j])
			return ri < rj
		})
		out = append(out, js...)
	}
	return out
}

// BootSet returns the journal notes the <memory> block of opts takes, in the
// block's order (opts.Budget aside): what an agent boots with from its journals.
func (m *Memory) BootSet(opts RenderOptions) ([]*Note, error) {
	boot, err := newBootSet(opts.Today, opts.Earlier)
	if err != nil {
		return nil, err
	}
	s := opts.Scope
	s.Machine = m.MachineOf(s)
	groups, _, _ := arrange(m.View(s), boot, "")
	var out []*Note
	for _, g := range groups {
		for _, e := range g.notes {
			if e.Layer.Kind == KindFractal {
				out = append(out, e)
			}
		}
	}
	return out, nil
}

// Today parses a YYYY-MM-DD override, or returns the local date for "".
func Today(s string) (journal.Day, error) {
	if s == "" {
		return journal.DayOf(time.Now()), nil
	}
	return journal.ParseDay(s)
}
