package participant

import (
	"fmt"
	"slices"
)

// CompactEagerly makes p's search index drop its dead ids at every change of
// the tree, so that a test reaches the compaction with a few notes.
func CompactEagerly(p *Participant) {
	p.index.mu.Lock()
	defer p.index.mu.Unlock()
	p.index.eager = true
}

// Exhaustive makes p's searches score every note that matches, as the
// embeddings' fusion does, none left out by its score's bound.
func Exhaustive(p *Participant) {
	p.index.mu.Lock()
	defer p.index.mu.Unlock()
	p.index.exhaustive = true
}

// FromStore is how many notes p's first search read from the stored index.
func FromStore(p *Participant) int {
	p.index.mu.Lock()
	defer p.index.mu.Unlock()
	return p.index.fromStore
}

// IndexCheck counts again, from the analyses of the live notes, what p's
// search index keeps (its running totals, ids, term lists and journal days)
// and says where they differ; "" when they agree or nothing is built yet.
func IndexCheck(p *Participant) string {
	ix := &p.index
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if !ix.built {
		return ""
	}
	lines, length, dead, live := 0, 0, 0, 0
	minor := map[string]int{}
	want := map[string]int{} // refs to live notes each term should have
	for id, d := range ix.docs {
		if d.a == nil {
			dead++
			continue
		}
		live++
		if got, ok := ix.ids[d.e.Path]; !ok || got != int32(id) {
			return fmt.Sprintf("%s: id %d, the path map says %d (%v)", d.e.Path, id, got, ok)
		}
		lines += d.a.lines()
		length += d.a.terms
		for w, ls := range d.a.minor {
			minor[w] += len(ls)
		}
		seen := map[string]bool{}
		for _, t := range append(slices.Clone(d.a.vocab), d.a.keyTerms...) {
			if !seen[t] && !d.a.stored { // a stored note's terms are in the lists only
				seen[t] = true
				want[t]++
			}
		}
		if !d.a.day.IsZero() && !slices.Contains(ix.days, int32(id)) {
			return fmt.Sprintf("%s: a journal day not in the days list", d.e.Path)
		}
	}
	switch {
	case live != len(ix.ids):
		return fmt.Sprintf("%d live notes, %d paths", live, len(ix.ids))
	case dead != ix.dead:
		return fmt.Sprintf("%d dead ids, the index counts %d", dead, ix.dead)
	case lines != ix.lines || length != ix.length:
		return fmt.Sprintf("lines %d terms %d, the totals say %d %d", lines, length, ix.lines, ix.length)
	case fmt.Sprint(minor) != fmt.Sprint(ix.minor):
		return fmt.Sprintf("stop-word lines %v, the totals say %v", minor, ix.minor)
	}
	for t, l := range ix.terms {
		n := 0
		for i, r := range l.refs {
			if i > 0 && r.id <= l.refs[i-1].id {
				return fmt.Sprintf("%q: ids out of order (%d after %d)", t, r.id, l.refs[i-1].id)
			}
			a := ix.docs[r.id].a
			if a == nil {
				continue
			}
			if a.stored {
				if int(r.lo+r.n) > len(l.at) || r.lines > r.n {
					return fmt.Sprintf("%q: stored note %d's posting %+v is wrong", t, r.id, r)
				}
				continue
			}
			n++
			if (r.n > 0) != slices.Contains(a.vocab, t) || int(r.lo+r.n) > len(l.at) || r.lines > r.n {
				return fmt.Sprintf("%q: note %d's posting %+v is wrong", t, r.id, r)
			}
			p := l.posting(r)
			for k, x := range p.at {
				if int(x>>32) >= a.lines() || k > 0 && x <= p.at[k-1] {
					return fmt.Sprintf("%q: note %d's positions %v are wrong", t, r.id, p.at)
				}
			}
			if r.key != slices.Contains(a.keyTerms, t) {
				return fmt.Sprintf("%q: note %d's key flag is wrong", t, r.id)
			}
		}
		if n != want[t] {
			return fmt.Sprintf("%q: listed in %d live notes, held by %d", t, n, want[t])
		}
		delete(want, t)
	}
	for t, n := range want {
		return fmt.Sprintf("%q: held by %d notes, not listed", t, n)
	}
	return ""
}
