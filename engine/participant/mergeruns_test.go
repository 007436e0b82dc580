package participant

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestMergeRuns: the occurrences of a passage's centre line, each term's in
// order, come out in order of position, every one once, whatever the number
// of runs and the spare buffer's size.
func TestMergeRuns(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		positions := rapid.Permutation(rapid.SliceOfNDistinct(rapid.IntRange(0, 200), 0, 80, rapid.ID[int]).Draw(rt, "positions")).Draw(rt, "order")
		runs := rapid.IntRange(1, 33).Draw(rt, "runs")
		var in []occ
		var starts []int
		for r := 0; r < runs; r++ {
			starts = append(starts, len(in))
			var run []int
			for k := r; k < len(positions); k += runs {
				run = append(run, positions[k])
			}
			slices.Sort(run)
			for _, p := range run {
				in = append(in, occ{p, r})
			}
		}
		want := slices.Clone(in)
		slices.SortFunc(want, func(x, y occ) int { return x.pos - y.pos })
		spare := make([]occ, 0, rapid.IntRange(0, 100).Draw(rt, "spare"))
		got, free := mergeRuns(in, starts, spare)
		if !slices.Equal(got, want) {
			rt.Fatalf("merged %v, want %v", got, want)
		}
		if len(got) > 0 && cap(free) > 0 && &got[:1][0] == &free[:1][0] {
			rt.Fatal("the free buffer is the merged one")
		}
	})
}
