package roam

import "testing"

func TestMergeLines(t *testing.T) {
	base := "a\nb\nc\nd\ne\n"
	for _, tc := range []struct {
		name, ours, theirs, want string
		ok                       bool
	}{
		{"disjoint edits", "A\nb\nc\nd\ne\n", "a\nb\nc\nd\nE\n", "A\nb\nc\nd\nE\n", true},
		{"same edit", "a\nB\nc\nd\ne\n", "a\nB\nc\nd\ne\n", "a\nB\nc\nd\ne\n", true},
		{"one side only", base, "a\nb\nX\nd\ne\n", "a\nb\nX\nd\ne\n", true},
		{"appends at both ends", "top\n" + base, base + "bottom\n", "top\n" + base + "bottom\n", true},
		{"same line differently", "a\nB1\nc\nd\ne\n", "a\nB2\nc\nd\ne\n", "", false},
		{"adjacent lines", "a\nB\nc\nd\ne\n", "a\nb\nC\nd\ne\n", "", false},
		{"both append differently", base + "x\n", base + "y\n", "", false},
		{"delete vs edit elsewhere", "a\nc\nd\ne\n", "a\nb\nc\nd\nE\n", "a\nc\nd\nE\n", true},
		{"no final newline", "A\nb\nc\nd\ne", "a\nb\nc\nd\ne", "A\nb\nc\nd\ne", true},
	} {
		got, ok := mergeLines([]byte(base), []byte(tc.ours), []byte(tc.theirs))
		if ok != tc.ok || (ok && string(got) != tc.want) {
			t.Errorf("%s: mergeLines = %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
