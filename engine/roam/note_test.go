package roam

import (
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/engine/textmerge"
)

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

// Over textmerge's size bound only a change made on one side, or the same on
// both, merges; two different changes are a conflict (sync keeps both).
func TestMergeLinesOverTheBound(t *testing.T) {
	big := []byte(strings.Repeat("x\n", textmerge.MaxLines+1))
	top, bottom := append([]byte("top\n"), big...), append(append([]byte(nil), big...), "bottom\n"...)
	for _, tc := range []struct {
		name         string
		ours, theirs []byte
		ok           bool
	}{
		{"one side", top, big, true},
		{"the same change", top, top, true},
		{"different changes", top, bottom, false},
	} {
		got, ok := mergeLines(big, tc.ours, tc.theirs)
		if ok != tc.ok || (ok && string(got) != string(top)) {
			t.Errorf("%s: ok=%v, want %v", tc.name, ok, tc.ok)
		}
	}
}
