package engine

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// TestIDSetIsUniqueSet checks newIDSet against what readConfig did before
// it (uniqueSet of the lists one after another, "" dropped), on lists that
// come sorted and lists that do not, with repeats and "" among them.
func TestIDSetIsUniqueSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	id := func() string {
		if rng.IntN(10) == 0 {
			return ""
		}
		return "a-" + strconv.Itoa(rng.IntN(30))
	}
	for range 5000 {
		var lists [][]string
		for range rng.IntN(4) {
			var l []string
			if rng.IntN(3) > 0 {
				l = []string{}
			}
			for range rng.IntN(12) {
				l = append(l, id())
			}
			if rng.IntN(2) == 0 {
				slices.Sort(l)
				l = slices.Compact(l)
			}
			lists = append(lists, l)
		}
		var all []string
		for _, l := range lists {
			all = append(all, l...)
		}
		wantOrder, wantSet := uniqueSet(slices.Clone(all))
		delete(wantSet, "")
		order, s := newIDSet(lists...)
		if !slices.Equal(order, wantOrder) || (order == nil) != (wantOrder == nil) {
			t.Fatalf("%q: order %q, want %q", lists, order, wantOrder)
		}
		for i := range 32 {
			x := "a-" + strconv.Itoa(i)
			if s.has(x) != wantSet[x] {
				t.Fatalf("%q: has(%q) = %v, want %v", lists, x, s.has(x), wantSet[x])
			}
		}
		if s.has("") {
			t.Fatalf("%q: has \"\"", lists)
		}
		s.add("", "new", "a-1")
		if !s.has("new") || s.has("") || !s.has("a-1") {
			t.Fatalf("%q: add", lists)
		}
	}
}
