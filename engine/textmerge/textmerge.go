// Package textmerge merges two edits of one text line by line: a three-way
// merge (diff3) that succeeds only when the two sides changed different,
// non-adjacent parts of the base, or made the same change. It is the one merge of the project: a save conflict's "Merge" (an
// agent and the editor touched different parts of a note) and roaming's sync
// (two machines changed one note) both use it.
package textmerge

import (
	"math"
	"slices"
	"strings"
)

// MaxLines bounds the texts merged, and maxCells the changed middle of a line
// diff (after the common first and last lines are set aside): the diff is
// quadratic in it, and a merge that large is not one to offer anyway.
const (
	MaxLines = 20000
	maxCells = 4 << 20
)

// hunk replaces base lines [start, end) with lines.
type hunk struct {
	start, end int
	lines      []string
}

// Merge returns base with the changes of both a and b, and ok=true, when the
// two sides changed different, non-adjacent regions of base, as diff3 and git
// merge: a region changed by both sides merges only when both made the same
// change (it counts once). Changes that touch conflict even when they change
// different lines, and so do changes that could touch were the diff to place
// them elsewhere among equal lines (see span): which of equal lines a change
// took is the diff's choice, and merging such changes as different could drop
// a line both sides kept or double one both added. Texts over the size bound
// merge only when one side changed nothing (or both the same): otherwise ok
// is false, and the caller keeps both.
func Merge(base, a, b string) (string, bool) {
	switch {
	case a == b, base == b:
		return a, true
	case base == a:
		return b, true
	}
	bl, al, cl := split(base), split(a), split(b)
	if len(bl) > MaxLines || len(al) > MaxLines || len(cl) > MaxLines {
		return "", false
	}
	ha, okA := diff(bl, al)
	hb, okB := diff(bl, cl)
	if !okA || !okB {
		return "", false
	}
	var out []string
	pos, i, j := 0, 0, 0
	for i < len(ha) || j < len(hb) {
		// A region starts at the earliest next hunk of either side and grows
		// while a hunk of either side overlaps or touches it, each hunk
		// counted with the equal lines its change could slide over.
		start := min(startOf(bl, ha, i), startOf(bl, hb, j))
		end, fromA, fromB := start, i, j
		for {
			if lo, hi := span(bl, ha, i); lo <= end {
				end = max(end, hi)
				i++
			} else if lo, hi := span(bl, hb, j); lo <= end {
				end = max(end, hi)
				j++
			} else {
				break
			}
		}
		out = append(out, bl[pos:start]...)
		va, vb := apply(bl, start, end, ha[fromA:i]), apply(bl, start, end, hb[fromB:j])
		switch {
		case fromA == i:
			out = append(out, vb...)
		case fromB == j, slices.Equal(va, vb):
			out = append(out, va...)
		default:
			return "", false
		}
		pos = end
	}
	out = append(out, bl[pos:]...)
	return strings.Join(out, ""), true
}

// startOf is the first base line hunk i of hs could be placed at, or past
// any line when there is none.
func startOf(base []string, hs []hunk, i int) int {
	lo, _ := span(base, hs, i)
	return lo
}

// span is the base lines [lo, hi) hunk i of hs could be placed over: lines
// deleted or inserted next to lines equal to them can slide over those and be
// diffed as the same change elsewhere ("a" inserted before "a" is "a"
// inserted after it; deleting the first of two equal lines is deleting the
// second). Two changes that could touch are merged as one region, so the
// merge does not hang on where the diff put them. Past the last hunk, lo is
// past any line.
func span(base []string, hs []hunk, i int) (lo, hi int) {
	if i >= len(hs) {
		return math.MaxInt, math.MaxInt
	}
	h := hs[i]
	lo, hi = h.start, h.end
	if d := h.end - h.start; d > 0 {
		for hi < len(base) && base[hi] == base[hi-d] {
			hi++
		}
		for lo > 0 && base[lo-1] == base[lo-1+d] {
			lo--
		}
	}
	if n := len(h.lines); n > 0 {
		for e := h.end; e < len(base) && base[e] == h.lines[(e-h.end)%n]; e++ {
			hi = max(hi, e+1)
		}
		for s := h.start; s > 0 && base[s-1] == h.lines[n-1-(h.start-s)%n]; s-- {
			lo = min(lo, s-1)
		}
	}
	return lo, hi
}

// apply returns base lines [start, end) with hs, all inside that range,
// applied.
func apply(base []string, start, end int, hs []hunk) []string {
	var out []string
	pos := start
	for _, h := range hs {
		out = append(out, base[pos:h.start]...)
		out = append(out, h.lines...)
		pos = h.end
	}
	return append(out, base[pos:end]...)
}

// split cuts s into lines that keep their line ends.
func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.SplitAfter(s, "\n")[:strings.Count(s, "\n")+boolInt(!strings.HasSuffix(s, "\n"))]
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// diff lists the hunks turning base into other, from a longest common
// subsequence of lines; ok is false when the changed middle is too large.
func diff(base, other []string) (hs []hunk, ok bool) {
	pre := 0
	for pre < len(base) && pre < len(other) && base[pre] == other[pre] {
		pre++
	}
	suf := 0
	for suf < len(base)-pre && suf < len(other)-pre && base[len(base)-1-suf] == other[len(other)-1-suf] {
		suf++
	}
	mid, ok := diffLCS(base[pre:len(base)-suf], other[pre:len(other)-suf])
	for i := range mid {
		mid[i].start += pre
		mid[i].end += pre
	}
	return mid, ok
}

// diffLCS is diff without the common first and last lines.
func diffLCS(base, other []string) ([]hunk, bool) {
	n, m := len(base), len(other)
	if n*m > maxCells {
		return nil, false
	}
	// lcs[i][j] is the LCS length of base[i:] and other[j:].
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if base[i] == other[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var hs []hunk
	i, j := 0, 0
	var cur *hunk
	flush := func() {
		if cur != nil {
			hs = append(hs, *cur)
			cur = nil
		}
	}
	for i < n || j < m {
		switch {
		case i < n && j < m && base[i] == other[j]:
			flush()
			i++
			j++
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			if cur == nil {
				cur = &hunk{start: i, end: i}
			}
			cur.lines = append(cur.lines, other[j])
			j++
		default:
			if cur == nil {
				cur = &hunk{start: i, end: i}
			}
			i++
			cur.end = i
		}
	}
	flush()
	return hs, true
}
