package textmerge

import (
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// The laws of the merge, over texts drawn from a few lines so that the two
// sides' changes collide, touch, insert at the same place, delete, and are
// sometimes the same: lines end in "\n" or "\r\n", and the last may end in
// neither.

var lineAlphabet = []string{"a\n", "b\n", "c\n", "a\r\n"}

// text draws a short text of lines from lineAlphabet, sometimes without the
// last line end.
func text(t *rapid.T, label string) string {
	s := strings.Join(rapid.SliceOfN(rapid.SampledFrom(lineAlphabet), 0, 8).Draw(t, label), "")
	if s != "" && rapid.Bool().Draw(t, label+" without final line end") {
		s = strings.TrimRight(s, "\r\n")
	}
	return s
}

// edited draws a version of base with up to three lines inserted, deleted or
// replaced (with "x\n" among the new lines, which base never holds).
func edited(t *rapid.T, base, label string) string {
	ls := split(base)
	news := rapid.SampledFrom(append([]string{"x\n"}, lineAlphabet...))
	for range rapid.IntRange(0, 3).Draw(t, label+" edits") {
		switch op := rapid.IntRange(0, 2).Draw(t, label+" op"); {
		case op == 0 || len(ls) == 0:
			i := rapid.IntRange(0, len(ls)).Draw(t, label+" insert at")
			ls = slices.Insert(ls, i, news.Draw(t, label+" line"))
		case op == 1:
			i := rapid.IntRange(0, len(ls)-1).Draw(t, label+" delete at")
			ls = slices.Delete(ls, i, i+1)
		default:
			i := rapid.IntRange(0, len(ls)-1).Draw(t, label+" replace at")
			ls[i] = news.Draw(t, label+" line")
		}
	}
	return strings.Join(ls, "")
}

// sides draws a base and two versions of it, sometimes equal.
func sides(t *rapid.T) (base, a, b string) {
	base = text(t, "base")
	a = edited(t, base, "a")
	if rapid.Bool().Draw(t, "both the same") {
		return base, a, a
	}
	return base, a, edited(t, base, "b")
}

func TestLawOneSideUnchanged(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base, x := text(t, "base"), text(t, "x")
		if got, ok := Merge(base, x, base); !ok || got != x {
			t.Fatalf("Merge(base, x, base) = %q, %v; want x = %q", got, ok, x)
		}
		if got, ok := Merge(base, base, x); !ok || got != x {
			t.Fatalf("Merge(base, base, x) = %q, %v; want x = %q", got, ok, x)
		}
	})
}

func TestLawSameChangeOnBothSides(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base := text(t, "base")
		x := edited(t, base, "x")
		if got, ok := Merge(base, x, x); !ok || got != x {
			t.Fatalf("Merge(base, x, x) = %q, %v; want x = %q", got, ok, x)
		}
	})
}

func TestLawSymmetric(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base, a, b := sides(t)
		ab, okAB := Merge(base, a, b)
		ba, okBA := Merge(base, b, a)
		if okAB != okBA || ab != ba {
			t.Fatalf("Merge(base, a, b) = %q, %v but Merge(base, b, a) = %q, %v", ab, okAB, ba, okBA)
		}
	})
}

// A clean merge, compared with one side, changes only lines the other side
// changed: a line occurs in it as many times as in that side, give or take
// the times the other side's changes (as the merge diffed them) removed or
// added it. Counting keeps the law free of where a diff of the two texts
// would align equal lines.
func TestLawCleanMergeChangesOnlyTheOtherSidesLines(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base, a, b := sides(t)
		merged, ok := Merge(base, a, b)
		if !ok {
			return
		}
		for _, s := range [][2]string{{a, b}, {b, a}} {
			side, other := s[0], s[1]
			changed := counts(changedLines(base, other))
			have, want := counts(split(merged)), counts(split(side))
			for l := range union(have, want) {
				if d := have[l] - want[l]; max(d, -d) > changed[l] {
					t.Fatalf("base %q: merged %q has %d more %q than side %q; the other side %q changed it %d times", base, merged, d, l, side, other, changed[l])
				}
			}
		}
	})
}

// When one side made some of the other side's changes and nothing else, a
// clean merge is the other side: the changes made on both count once, even
// when the other side's further changes make its diff place them elsewhere
// among equal lines.
func TestLawSubsetOfChangesMergesToTheWhole(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base, some, all := subsetAndWhole(t)
		if got, ok := Merge(base, all, some); ok && got != all {
			t.Fatalf("Merge(%q, %q, %q) = %q; want the side with all the changes", base, all, some, got)
		}
		if got, ok := Merge(base, some, all); ok && got != all {
			t.Fatalf("Merge(%q, %q, %q) = %q; want the side with all the changes", base, some, all, got)
		}
	})
}

// subsetAndWhole draws a base and changes to it (lines inserted, deleted or
// replaced), made on both sides, and lines inserted on the whole side only.
// Those bring a line found nowhere else: the whole side must not be
// readable as other changes by the shortest diff (a line deleted and the
// same line inserted elsewhere is also an insertion in between, and the merge
// rightly follows the diff).
func subsetAndWhole(t *rapid.T) (base, some, all string) {
	base = text(t, "base")
	bl := split(base)
	news := rapid.SampledFrom(append([]string{"x\n"}, lineAlphabet...))
	const fresh = "y\n"
	var sl, al []string
	for i := 0; i <= len(bl); i++ {
		switch rapid.SampledFrom([]string{"none", "none", "both", "whole"}).Draw(t, "insert") {
		case "both":
			l := news.Draw(t, "inserted line")
			sl, al = append(sl, l), append(al, l)
		case "whole":
			al = append(al, fresh)
		}
		if i == len(bl) {
			break
		}
		switch rapid.SampledFrom([]string{"keep", "keep", "delete", "replace"}).Draw(t, "change") {
		case "keep":
			sl, al = append(sl, bl[i]), append(al, bl[i])
		case "replace":
			l := news.Filter(func(l string) bool { return l != bl[i] }).Draw(t, "replacing line")
			sl, al = append(sl, l), append(al, l)
		}
	}
	return base, strings.Join(sl, ""), strings.Join(al, "")
}

// changedLines lists the lines removed from from or added in to by the line
// diff between them, the diff Merge uses.
func changedLines(from, to string) []string {
	fl, tl := split(from), split(to)
	hs, ok := diff(fl, tl)
	if !ok {
		panic("diff of short texts refused")
	}
	var out []string
	for _, h := range hs {
		out = append(out, fl[h.start:h.end]...)
		out = append(out, h.lines...)
	}
	return out
}

func counts(ls []string) map[string]int {
	m := map[string]int{}
	for _, l := range ls {
		m[l]++
	}
	return m
}

func union(x, y map[string]int) map[string]bool {
	m := map[string]bool{}
	for l := range x {
		m[l] = true
	}
	for l := range y {
		m[l] = true
	}
	return m
}

// Changes on either side of a line that neither side touched merge to exactly
// both changes, byte for byte, whatever the line ends.
func TestLawApartChangesMergeExactly(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		top, bottom := text(t, "top"), text(t, "bottom")
		if top != "" && !strings.HasSuffix(top, "\n") {
			top += "\n"
		}
		const mid = "untouched\n"
		topA, bottomB := edited(t, top, "a"), edited(t, bottom, "b")
		if topA != "" && !strings.HasSuffix(topA, "\n") {
			topA += "\r\n"
		}
		got, ok := Merge(top+mid+bottom, topA+mid+bottom, top+mid+bottomB)
		if want := topA + mid + bottomB; !ok || got != want {
			t.Fatalf("Merge = %q, %v; want %q", got, ok, want)
		}
	})
}
