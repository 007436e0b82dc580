package participant

import (
	"math"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/journal"
)

// TestBoundSummary: a score's bound read from the postings' summaries
// (upperBound, which decodes no occurrence) is the bound read from the
// decoded occurrences when no term is more than twice on a line, never below
// it otherwise, and never below the note's score in full; and the summary is
// the same whether the analysis, a list entry read back or the stored index's
// check of the occurrences makes it. The proximity read from the encoded
// positions (nearest) is the one counted again from the decoded occurrences,
// and the bound that reads it (nearBound) is never above the summaries' nor
// below the score, and is the one line's score with its pairs on a note of
// one line: a bound too low there fails. Over random notes of short and long
// lines, headings and words said again on a line.
func TestBoundSummary(t *testing.T) {
	vocab := []string{"keep", "answers", "short", "went", "home", "Caroline", "ran", "pottery", "class", "the", "to", "of"}
	rapid.Check(t, func(rt *rapid.T) {
		var lines []string
		for n := rapid.IntRange(1, 8).Draw(rt, "lines"); n > 0; n-- {
			line := strings.Join(rapid.SliceOfN(rapid.SampledFrom(vocab), 0, 12).Draw(rt, "line"), " ")
			if rapid.IntRange(0, 4).Draw(rt, "heading") == 0 {
				line = "# " + line
			}
			lines = append(lines, line)
		}
		e := engine.LooseNote("/n.md", []byte("---\nrevision: 1\n---\n"+strings.Join(lines, "\n")+"\n"))
		e.Key = strings.Join(rapid.SliceOfN(rapid.SampledFrom(vocab), 0, 2).Draw(rt, "key"), "-") + ".md"
		a := analyzeWhole(e, &analysisScratch{})
		text := strings.Join(rapid.SliceOfN(rapid.SampledFrom(vocab), 1, 4).Draw(rt, "query"), " ")
		q := parseQuery(text, journal.Day{})
		if len(q.terms) == 0 {
			return
		}
		c := cand{e: e, a: a.analyzed, hits: make([]*posting, len(q.terms)), inKey: make([]bool, len(q.terms))}
		twice := false // a term more than twice on a line
		for i, term := range q.terms {
			for _, k := range a.keyTerms {
				c.inKey[i] = c.inKey[i] || k == term
			}
			for slot, v := range a.vocab {
				if v != term {
					continue
				}
				p := a.posts[slot]
				got := p.sum
				if want := decodedSummary(p.at, &a.lineLen); got != want {
					rt.Fatalf("%q: summary %+v, counted again %+v", term, got, want)
				}
				if stored, lines, ok := checkOccs(p.occ, int(p.n), &a.lineLen); !ok || int32(lines) != p.lines || stored != got {
					rt.Fatalf("%q: the stored index's check says %+v %d %v, the analysis %+v %d", term, stored, lines, ok, got, p.lines)
				}
				r := ref{id: 3, n: p.n, lines: p.lines, key: c.inKey[i], sum: got, occ: p.occ}
				rr := newRefReader(appendRef(appendRef(nil, -1, ref{id: 1, key: true}), 1, r))
				rr.next()
				if back, _ := rr.next(); back.sum != got || back.n != p.n || back.lines != p.lines || string(back.occ) != string(p.occ) {
					rt.Fatalf("%q: entry %+v read back as %+v", term, r, back)
				}
				twice = twice || got.peak > 2
				c.hits[i] = &posting{lines: p.lines, n: p.n, sum: got, occ: p.occ}
			}
		}
		if !anyTrue(c.inKey) && !anyHit(c.hits) {
			return
		}
		c.matched = true
		st := q.stats(scopeTotals{lines: a.lines() * 3, length: a.terms * 3, minor: make([]int, len(q.minor))}, []*cand{&c})
		bound := q.upperBound(&c, st)
		c.decode()
		decoded := decodedBound(&q, &c, st)
		switch {
		case !twice && bound != decoded:
			rt.Fatalf("%q: bound %v from the summaries, %v from the occurrences", text, bound, decoded)
		case bound < decoded:
			rt.Fatalf("%q: bound %v from the summaries, below %v from the occurrences", text, bound, decoded)
		}
		sc, _ := q.scoreOne(&c, st, math.Inf(-1))
		if sc.score > bound+0.0005 {
			rt.Fatalf("%q: score %v over its bound %v", text, sc.score, bound)
		}
		// The proximity read from the encoded positions is the most any
		// line gives, counted again from the decoded ones; the bound that
		// reads it is never above the summaries' nor below the score, and on
		// a note of one line (not a heading), for a query without stop
		// words, it is what that line scores with every pair its terms
		// allow: a bound under it would leave out a note of the best.
		if got, want := c.nearest(st.idf), decodedNearest(&c, st.idf); math.Abs(got-want) > 1e-9 {
			rt.Fatalf("%q: proximity %v from the positions, %v counted again", text, got, want)
		}
		near := q.nearBound(&c, st)
		switch {
		case near > bound+1e-9:
			rt.Fatalf("%q: bound %v from the positions, over %v from the summaries", text, near, bound)
		case sc.score > near+0.0005:
			rt.Fatalf("%q: score %v over its bound %v from the positions", text, sc.score, near)
		}
		if a.lines() == 1 && len(a.heads) == 0 && (len(q.minor) == 0 || st.minorTotal == 0) {
			_, line, _, _ := bestPassage(c.a, nil, nil, c.hits, st, &q, math.Inf(1))
			for i, k := range c.inKey {
				if k {
					line += keyWeight * st.idf[i]
				}
			}
			if math.Abs(near-line) > 1e-9 {
				rt.Fatalf("%q: bound %v from the positions, the one line scores %v at most", text, near, line)
			}
		}
	})
}

// decodedNearest is the proximity of each line counted from the decoded
// occurrences, each line's sorted by position, the most of the lines.
func decodedNearest(c *cand, idf []float64) float64 {
	type at struct{ pos, term int }
	byLine := map[int][]at{}
	for i, h := range c.hits {
		if h != nil {
			for _, x := range h.at {
				byLine[atLine(x)] = append(byLine[atLine(x)], at{atPos(x), i})
			}
		}
	}
	best := 0.0
	for _, ats := range byLine {
		slices.SortStableFunc(ats, func(x, y at) int { return x.pos - y.pos })
		s := 0.0
		for k := 1; k < len(ats); k++ {
			if ats[k].term != ats[k-1].term {
				s += nearWeight * min(idf[ats[k].term], idf[ats[k-1].term]) / max(1, float64(ats[k].pos-ats[k-1].pos))
			}
		}
		best = max(best, s)
	}
	return best
}

func anyTrue(bs []bool) bool {
	for _, b := range bs {
		if b {
			return true
		}
	}
	return false
}

func anyHit(hs []*posting) bool {
	for _, h := range hs {
		if h != nil {
			return true
		}
	}
	return false
}

// decodedSummary counts a summary from the occurrences, line by line.
func decodedSummary(at []uint64, ll *lineLens) lineSummary {
	count := map[int]int32{}
	for _, x := range at {
		count[atLine(x)]++
	}
	var s lineSummary
	for l, n := range count {
		length := ll.at(l)
		if s.peak == 0 || length < s.shortest {
			s.shortest = length
		}
		if n > s.peak || n == s.peak && length < s.shortestPeak {
			s.peak, s.shortestPeak = n, length
		}
	}
	return s
}

// decodedBound is upperBound as it was read from the decoded occurrences,
// before the postings kept their summaries: per term, its saturation on each
// line holding it.
func decodedBound(q *query, c *cand, st lineStats) float64 {
	var b boundSum
	for i, h := range c.hits {
		if h == nil || len(h.at) == 0 {
			continue
		}
		best, peak := 0.0, 0
		for k := 0; k < len(h.at); {
			l := atLine(h.at[k])
			n := 1
			for k+n < len(h.at) && atLine(h.at[k+n]) == l {
				n++
			}
			k += n
			best = max(best, st.sat(float64(n), float64(c.a.lineLen.at(l))))
			peak = max(peak, n)
		}
		b.term(i, st.idf[i], best, peak)
	}
	return q.boundOf(c, st, b)
}
