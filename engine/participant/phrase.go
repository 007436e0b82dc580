package participant

import (
	"strings"
)

// A quoted phrase is its words in order, as search reads words (tokens: runs
// of letters and digits, lower-cased, every word but a stop word stemmed),
// next to each other on one line of the body or in the key. Case,
// punctuation, spacing and word endings aside, it is the text quoted:
// `"keep answers short"` finds "Keep answers short." and "keeping answer
// shorts", not "keep the answers short" nor "keepanswersshort".
//
// It is answered from the index's positions, not by reading the note again:
// its terms at adjacent positions on one line, each after a stop word exactly
// where the phrase has one (packAt records it). Only a phrase holding stop
// words, which the positions do not keep, reads the lines its terms allow
// and compares their words; a phrase of stop words only reads the lines that
// hold its first (analyzed.minor).

// phrase is a quoted phrase of a query.
type phrase struct {
	toks  []phraseTok
	terms []int  // the query's index of each of its terms (toks that are not stop words), in order
	gap   []bool // per term, a stop word between it and the term before it in the phrase
	stops bool   // it holds a stop word
}

type phraseTok struct {
	w    string // a stop word as it is, any other word stemmed
	stop bool
}

// phraseOf reads the quoted text of a query; its terms are set by the
// query (parseQuery).
func phraseOf(text string) phrase {
	var ph phrase
	gap := false
	tokens(text, func(w string, stop bool) {
		ph.toks = append(ph.toks, phraseTok{w, stop})
		if stop {
			ph.stops, gap = true, true
			return
		}
		ph.gap = append(ph.gap, gap && len(ph.gap) > 0)
		gap = false
	})
	return ph
}

// in says whether the phrase is in the candidate's body or key.
func (ph *phrase) in(c *cand) bool {
	if ph.inBody(c) {
		return true
	}
	// The key: only where every term of the phrase is in it (or, for a
	// journal day, in the date the key's terms leave out).
	if len(ph.terms) > 0 && c.a.day.IsZero() {
		for _, i := range ph.terms {
			if c.inKey == nil || !c.inKey[i] {
				return false
			}
		}
	}
	return ph.holds(strings.TrimSuffix(c.e.Key, ".md"))
}

// inBody says whether the phrase is on a line of c's body.
func (ph *phrase) inBody(c *cand) bool {
	var b lineReader
	if len(ph.terms) == 0 { // stop words only: the lines holding the first
		for _, l := range c.a.minor.lines(nil, ph.toks[0].w) {
			if ph.holds(b.line(c, int(l))) {
				return true
			}
		}
		return false
	}
	// The occurrences are read where they are, encoded (occReader), each
	// once: decoding them all would be most of the phrase's search.
	var readSpace [8]occReader // no allocation for most phrases
	var curSpace [8]uint64
	var okSpace [8]bool
	reads, cur, more := readSpace[:0], curSpace[:0], okSpace[:0]
	if len(ph.terms) > len(readSpace) {
		reads, cur, more = make([]occReader, 0, len(ph.terms)), make([]uint64, 0, len(ph.terms)), make([]bool, 0, len(ph.terms))
	}
	reads, cur, more = reads[:len(ph.terms)], cur[:len(ph.terms)], more[:len(ph.terms)]
	for k, i := range ph.terms {
		if c.hits == nil || c.hits[i] == nil {
			return false
		}
		reads[k] = newOccReader(c.hits[i].occ)
		cur[k], more[k] = reads[k].next()
	}
	// Every occurrence of the first term, the others looked for at the
	// positions after it: each list is in order, so each is read once. A
	// phrase that opens with stop words needs one right before its first
	// term, and a line read once and found without the phrase is not read
	// again.
	lead, checked := ph.toks[0].stop, -1
	for x, ok := cur[0], more[0]; ok; x, ok = reads[0].next() {
		line, pos, found := atLine(x), atPos(x), true
		if lead && !atAfterStop(x) || line == checked {
			continue
		}
		for k := 1; k < len(reads) && found; k++ {
			want := packAt(int32(line), int32(pos+k), false) // positions are counted in the line
			for more[k] && cur[k]&^1 < want {
				cur[k], more[k] = reads[k].next()
			}
			found = more[k] && cur[k]&^1 == want && atAfterStop(cur[k]) == ph.gap[k]
		}
		if found {
			if !ph.stops || ph.holds(b.line(c, line)) {
				return true
			}
			checked = line
		}
	}
	return false
}

// lineReader reads lines of a candidate's body, the body read once. A body
// that cannot be read now changed on disk since the analysis (it is being
// refreshed): its lines are empty, and hold no phrase yet.
type lineReader struct {
	body   []byte
	starts []int32
	read   bool
}

// line is line l of c's body.
func (b *lineReader) line(c *cand, l int) string {
	if !b.read {
		b.read = true
		b.body, b.starts, _ = c.readLines()
	}
	if b.body == nil {
		return ""
	}
	return string(b.body[b.starts[l]:b.starts[l+1]])
}

// holds says whether the phrase's words are next to each other in text.
func (ph *phrase) holds(text string) bool {
	var space [8]phraseTok // the last words read, as many as the phrase's
	seen := space[:0]
	found := false
	tokens(text, func(w string, stop bool) {
		if found {
			return
		}
		if len(seen) == len(ph.toks) {
			seen = append(seen[:0], seen[1:]...)
		}
		seen = append(seen, phraseTok{w, stop})
		if len(seen) == len(ph.toks) && equalToks(seen, ph.toks) {
			found = true
		}
	})
	return found
}

func equalToks(a, b []phraseTok) bool {
	for i := range a {
		if a[i].w != b[i].w {
			return false
		}
	}
	return true
}
