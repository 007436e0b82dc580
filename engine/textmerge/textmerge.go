// Package textmerge merges two edits of one text line by line: a three-way
// merge that succeeds only when the two sides changed different lines of the
// base. It is what lets a save conflict offer "Merge" when an agent and the
// editor touched different parts of a note.
package textmerge

import "strings"

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

// Merge returns base with the changes of both a and b, and ok=true, when no
// line of base was changed by both sides differently and no two insertions
// land at the same place. Identical changes on both sides count once.
func Merge(base, a, b string) (string, bool) {
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
		var h hunk
		switch {
		case j >= len(hb) || (i < len(ha) && ha[i].start < hb[j].start):
			h = ha[i]
			i++
		case i >= len(ha) || hb[j].start < ha[i].start:
			h = hb[j]
			j++
		default: // both start at the same base line
			if !same(ha[i], hb[j]) {
				return "", false
			}
			h = ha[i]
			i++
			j++
		}
		// The next hunk of either side must not overlap or touch this one.
		for _, next := range []*hunk{at(ha, i), at(hb, j)} {
			if next != nil && overlaps(h, *next) {
				if same(h, *next) {
					if next == at(ha, i) {
						i++
					} else {
						j++
					}
					continue
				}
				return "", false
			}
		}
		out = append(out, bl[pos:h.start]...)
		out = append(out, h.lines...)
		pos = h.end
	}
	out = append(out, bl[pos:]...)
	return strings.Join(out, ""), true
}

func at(hs []hunk, i int) *hunk {
	if i < len(hs) {
		return &hs[i]
	}
	return nil
}

// overlaps reports whether two hunks change a common base line, or insert at
// the same place, or one inserts right where the other changes.
func overlaps(x, y hunk) bool {
	if x.start == x.end || y.start == y.end { // an insertion
		return x.start <= y.end && y.start <= x.end
	}
	return x.start < y.end && y.start < x.end
}

func same(x, y hunk) bool {
	if x.start != y.start || x.end != y.end || len(x.lines) != len(y.lines) {
		return false
	}
	for k := range x.lines {
		if x.lines[k] != y.lines[k] {
			return false
		}
	}
	return true
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
