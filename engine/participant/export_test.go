package participant

import (
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/magicfrog/mf-lsp/engine"
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

// ScratchHolds says what the index's spare search scratch still holds over
// its whole capacity ("" when nothing: every candidate, hit, posting, match,
// score, tie and rest zero), as a search leaves it for the next.
func ScratchHolds(p *Participant) string {
	p.index.mu.Lock()
	defer p.index.mu.Unlock()
	sc := p.index.spare
	if sc == nil {
		return ""
	}
	for _, held := range []struct {
		what     string
		at, n, l int
	}{
		{"candidate", nonZero(sc.cands), cap(sc.cands), len(sc.cands)},
		{"hit", nonZero(sc.hits), cap(sc.hits), len(sc.hits)},
		{"posting", nonZero(sc.posts), cap(sc.posts), len(sc.posts)},
		{"match", nonZero(sc.matched), cap(sc.matched), len(sc.matched)},
		{"score", nonZero(sc.all), cap(sc.all), len(sc.all)},
		{"tie", nonZero(sc.ties), cap(sc.ties), len(sc.ties)},
		{"rest", nonZero(sc.rest), cap(sc.rest), len(sc.rest)},
	} {
		if held.at >= 0 {
			return fmt.Sprintf("%s %d of %d (length %d)", held.what, held.at, held.n, held.l)
		}
	}
	return ""
}

// nonZero is the first element of s's whole capacity that is not zero, -1
// for none.
func nonZero[T any](s []T) int {
	for i, v := range s[:cap(s)] {
		if !reflect.ValueOf(v).IsZero() {
			return i
		}
	}
	return -1
}

// FromStore is how many notes p's first search read from the stored index.
func FromStore(p *Participant) int {
	p.index.mu.Lock()
	defer p.index.mu.Unlock()
	return p.index.fromStore
}

// wholeAnalysis is a note's analysis with its terms and their positions,
// which the index keeps in its lists only.
type wholeAnalysis struct {
	*analyzed
	vocab []string
	posts []posting // per term of vocab
}

func analyzeWhole(e *engine.Note, sc *analysisScratch) wholeAnalysis {
	a := wholeAnalysis{analyzed: analyze(e, sc)}
	for slot, tid := range sc.vids {
		at := sc.all[sc.off[slot] : sc.off[slot]+sc.vs[slot].n]
		a.vocab = append(a.vocab, sc.terms[tid])
		a.posts = append(a.posts, posting{lines: sc.vs[slot].lines, at: slices.Clone(at), n: int32(len(at)), sum: summarize(at, &a.lineLen), occ: appendOccs(nil, at)})
	}
	return a
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
	want := map[string]int{}            // refs to live notes each term should have
	again := map[int32]*wholeAnalysis{} // each live note analyzed again from its body
	sc := &analysisScratch{}
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
		d.a.minor.each(func(w, n int, _ []byte) { minor[stopList()[w]] += n })
		a := analyzeWhole(d.e, sc)
		if a.unread || a.hash != d.a.hash {
			continue // changed on disk since: the next search analyzes it again
		}
		if a.lines() != d.a.lines() || a.terms != d.a.terms || a.bodyLen != d.a.bodyLen || !slices.Equal(a.lineLen.n, d.a.lineLen.n) || !maps.Equal(a.lineLen.big, d.a.lineLen.big) || !slices.Equal(a.heads, d.a.heads) || !slices.Equal(a.minor, d.a.minor) {
			return fmt.Sprintf("%s: lines, headings or stop words differ from the note's", d.e.Path)
		}
		again[int32(id)] = &a
		seen := map[string]bool{}
		for _, t := range append(slices.Clone(a.vocab), a.keyTerms...) {
			if !seen[t] {
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
		n, count, last := 0, int32(0), int32(-1)
		for rr := newRefReader(l.b); ; {
			r, ok := rr.next()
			if !ok {
				break
			}
			if count++; r.id <= last {
				return fmt.Sprintf("%q: ids out of order (%d after %d)", t, r.id, last)
			}
			last = r.id
			a := again[r.id]
			if a == nil {
				continue
			}
			n++
			slot := slices.Index(a.vocab, t)
			if (r.n > 0) != (slot >= 0) {
				return fmt.Sprintf("%q: note %d's posting %+v is wrong", t, r.id, r)
			}
			if slot >= 0 && (r.lines != a.posts[slot].lines || !slices.Equal(decodeOccs(nil, r.occ), a.posts[slot].at)) {
				return fmt.Sprintf("%q: note %d's positions %v, the note's %v", t, r.id, decodeOccs(nil, r.occ), a.posts[slot].at)
			}
			if slot >= 0 && r.sum != a.posts[slot].sum {
				return fmt.Sprintf("%q: note %d's summary %+v, the note's %+v", t, r.id, r.sum, a.posts[slot].sum)
			}
			if r.key != slices.Contains(a.keyTerms, t) {
				return fmt.Sprintf("%q: note %d's key flag is wrong", t, r.id)
			}
		}
		if count != l.refs || last != l.last {
			return fmt.Sprintf("%q: %d notes ending at %d, the list says %d ending at %d", t, count, last, l.refs, l.last)
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
