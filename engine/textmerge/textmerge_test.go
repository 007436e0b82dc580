package textmerge

import (
	"fmt"
	"strings"
	"testing"
)

func TestMerge(t *testing.T) {
	base := "---\nrevision: 1\n---\nalpha\nbeta\ngamma\ndelta\n"
	for _, c := range []struct {
		name, a, b, want string
		ok               bool
	}{
		{"different lines", "---\nrevision: 5\n---\nalpha\nbeta\ngamma\ndelta\nagent line\n", "---\nrevision: 1\n---\nALPHA\nbeta\ngamma\ndelta\n",
			"---\nrevision: 5\n---\nALPHA\nbeta\ngamma\ndelta\nagent line\n", true},
		{"same line differently", base + "", "", "", false},
		{"both edit beta", "---\nrevision: 1\n---\nalpha\nBETA\ngamma\ndelta\n", "---\nrevision: 1\n---\nalpha\nbeta!\ngamma\ndelta\n", "", false},
		{"identical change", "---\nrevision: 1\n---\nalpha\nBETA\ngamma\ndelta\n", "---\nrevision: 1\n---\nalpha\nBETA\ngamma\ndelta\n",
			"---\nrevision: 1\n---\nalpha\nBETA\ngamma\ndelta\n", true},
		{"both append", base + "a\n", base + "b\n", "", false},
		{"adjacent lines", "---\nrevision: 1\n---\nalpha\nBETA\ngamma\ndelta\n", "---\nrevision: 1\n---\nalpha\nbeta\nGAMMA\ndelta\n",
			"---\nrevision: 1\n---\nalpha\nBETA\nGAMMA\ndelta\n", true},
		{"no final newline", "x\ny", "x\nY", "x\nY", true},
	} {
		a, b := c.a, c.b
		if c.name == "same line differently" {
			a, b = "---\nrevision: 1\n---\nalpha\nX\ngamma\ndelta\n", "---\nrevision: 1\n---\nalpha\nY\ngamma\ndelta\n"
		}
		bs := base
		if c.name == "no final newline" {
			bs = "x\ny"
		}
		got, ok := Merge(bs, a, b)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("%s: Merge = %q, %v; want %q, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestMergeRefusesHugeTexts(t *testing.T) {
	big := ""
	for i := 0; i <= MaxLines; i++ {
		big += "x\n"
	}
	if _, ok := Merge(big, big, big); ok {
		t.Errorf("a text over MaxLines merged")
	}
}

// A long note edited at both ends merges without a quadratic table: the common
// first and last lines are set aside before the line diff.
func TestMergeLongNoteLocalEdits(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 15000; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	base := b.String()
	a := strings.Replace(base, "line 0\n", "LINE 0\n", 1)
	c := strings.Replace(base, "line 14999\n", "LINE 14999\n", 1)
	got, ok := Merge(base, a, c)
	if !ok || !strings.HasPrefix(got, "LINE 0\n") || !strings.HasSuffix(got, "LINE 14999\n") {
		t.Fatalf("Merge of a long note: ok=%v", ok)
	}
	// Edits all over both sides: the changed middle is too large to diff.
	if _, ok := Merge(base, strings.ReplaceAll(base, "line 1", "LINE 1"), strings.ReplaceAll(base, "line 2", "LINE 2")); ok {
		t.Errorf("a merge over a huge changed middle was offered")
	}
}
