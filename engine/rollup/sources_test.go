package rollup

import "testing"

// rollup due and the rollup-stale diagnostic read `sources:` the same way: a
// source without a hash is fresh while its revision holds (it used to read
// as hash "<nil>" here, stale forever, while the diagnostic called it fresh).
func TestDiffSourcesWithoutHash(t *testing.T) {
	recorded := []Source{{Key: "2026-11-10.md", Revision: 1}}
	current := []Source{{Key: "2026-11-10.md", Revision: 1, Hash: "0123abcd"}}
	if d := diffSources(recorded, current); d != "" {
		t.Errorf("diffSources = %q, want fresh", d)
	}
	current[0].Revision = 2
	if d := diffSources(recorded, current); d == "" {
		t.Error("a new revision is not seen")
	}
}
