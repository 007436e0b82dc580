package journal

import "testing"

func TestParseSources(t *testing.T) {
	srcs, ok := ParseSources([]any{
		map[string]any{"key": "2026-11-10.md", "revision": 2, "hash": "ab12"},
		map[string]any{"key": "2026-11-11.md", "revision": 1}, // no hash: hand-written
	})
	if !ok || len(srcs) != 2 || srcs[0].Hash != "ab12" || srcs[1].Hash != "" {
		t.Fatalf("ParseSources = %+v, %v", srcs, ok)
	}
	for _, bad := range []any{
		"x",
		[]any{"x"},
		[]any{map[string]any{"revision": 1}},
		[]any{map[string]any{"key": "a.md", "revision": -1}},
		[]any{map[string]any{"key": "a.md", "revision": "1"}},
		[]any{map[string]any{"key": "a.md", "revision": 1, "hash": 5}},
	} {
		if _, ok := ParseSources(bad); ok {
			t.Errorf("ParseSources(%v) accepted", bad)
		}
	}
}

// A source recorded without a hash is compared by revision only: it is not
// stale forever (rollup due once read a missing hash as "<nil>").
func TestSourceChanged(t *testing.T) {
	noHash := RecordedSource{Key: "a.md", Revision: 2}
	withHash := RecordedSource{Key: "a.md", Revision: 2, Hash: "AB"}
	for _, tc := range []struct {
		s      RecordedSource
		exists bool
		rev    int
		hash   string
		stale  bool
	}{
		{noHash, true, 2, "ff", false},
		{noHash, true, 3, "ff", true},
		{noHash, false, 0, "", true},
		{withHash, true, 2, "ab", false}, // hex case does not matter
		{withHash, true, 2, "cd", true},
	} {
		if got := tc.s.Changed(tc.exists, tc.rev, tc.hash); (got != "") != tc.stale {
			t.Errorf("%+v.Changed(%v, %d, %q) = %q, want stale %v", tc.s, tc.exists, tc.rev, tc.hash, got, tc.stale)
		}
	}
}
