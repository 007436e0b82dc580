package roam

import (
	"bytes"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// hunk is one change of a side against the base: base lines [start, end)
// replaced by lines.
type hunk struct {
	start, end int
	lines      []string
}

// splitLines splits b after every "\n"; the last line may lack one. Joining
// the result gives b back byte for byte.
func splitLines(b []byte) []string {
	var out []string
	s := string(b)
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// hunks diffs base against side, line by line, and returns the changed
// regions in base order.
func hunks(base, side []string) []hunk {
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0 // an exact diff: a heuristic one may make a clean merge look conflicting
	// Lines become runes: one rune per distinct line.
	ids := map[string]rune{}
	enc := func(ls []string) []rune {
		r := make([]rune, len(ls))
		for i, l := range ls {
			id, ok := ids[l]
			if !ok {
				id = rune(len(ids) + 1)
				if id >= 0xD800 { // skip the surrogate range, which is not a valid rune
					id += 0x800
				}
				ids[l] = id
			}
			r[i] = id
		}
		return r
	}
	a, b := enc(base), enc(side)
	var out []hunk
	i, j := 0, 0
	var cur *hunk
	flush := func() {
		if cur != nil {
			out = append(out, *cur)
			cur = nil
		}
	}
	for _, d := range dmp.DiffMainRunes(a, b, false) {
		n := len([]rune(d.Text))
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			flush()
			i += n
			j += n
		case diffmatchpatch.DiffDelete:
			if cur == nil {
				cur = &hunk{start: i, end: i}
			}
			i += n
			cur.end = i
		case diffmatchpatch.DiffInsert:
			if cur == nil {
				cur = &hunk{start: i, end: i}
			}
			cur.lines = append(cur.lines, side[j:j+n]...)
			j += n
		}
	}
	flush()
	return out
}

// merge3 merges the changes base→ours and base→theirs, line by line, as diff3
// does. ok is false when both sides changed the same or adjacent lines
// differently: then there is no clean merge and the result is nil. Two sides
// that made the same change merge cleanly.
func merge3(base, ours, theirs []byte) (merged []byte, ok bool) {
	if bytes.Equal(ours, theirs) {
		return ours, true
	}
	if bytes.Equal(base, ours) {
		return theirs, true
	}
	if bytes.Equal(base, theirs) {
		return ours, true
	}
	bl := splitLines(base)
	a, b := hunks(bl, splitLines(ours)), hunks(bl, splitLines(theirs))
	var out strings.Builder
	pos, ia, ib := 0, 0, 0
	for ia < len(a) || ib < len(b) {
		// The next region starts at the earliest hunk of either side and grows
		// while a hunk of either side overlaps or touches it.
		var ra, rb []hunk
		start, end := -1, -1
		take := func(h []hunk, k *int, into *[]hunk) bool {
			if *k < len(h) && (start < 0 || h[*k].start <= end) {
				x := h[*k]
				if start < 0 || x.start < start {
					start = x.start
				}
				if x.end > end {
					end = x.end
				}
				*into = append(*into, x)
				*k++
				return true
			}
			return false
		}
		switch {
		case ib >= len(b) || (ia < len(a) && a[ia].start <= b[ib].start):
			take(a, &ia, &ra)
		default:
			take(b, &ib, &rb)
		}
		for take(a, &ia, &ra) || take(b, &ib, &rb) {
		}
		for _, l := range bl[pos:start] {
			out.WriteString(l)
		}
		va, vb := apply(bl, start, end, ra), apply(bl, start, end, rb)
		switch {
		case len(ra) == 0:
			out.WriteString(vb)
		case len(rb) == 0:
			out.WriteString(va)
		case va == vb:
			out.WriteString(va)
		default:
			return nil, false
		}
		pos = end
	}
	for _, l := range bl[pos:] {
		out.WriteString(l)
	}
	return []byte(out.String()), true
}

// apply returns base lines [start, end) with hs (all inside that range)
// applied.
func apply(base []string, start, end int, hs []hunk) string {
	var out strings.Builder
	pos := start
	for _, h := range hs {
		for _, l := range base[pos:h.start] {
			out.WriteString(l)
		}
		for _, l := range h.lines {
			out.WriteString(l)
		}
		pos = h.end
	}
	for _, l := range base[pos:end] {
		out.WriteString(l)
	}
	return out.String()
}
