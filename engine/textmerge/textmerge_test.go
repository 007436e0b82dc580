package textmerge

import (
	"fmt"
	"strings"
	"testing"
)

func TestMerge(t *testing.T) {
	const base = "---\nrevision: 1\n---\nalpha\nbeta\ngamma\ndelta\n"
	for _, c := range []struct {
		name, base, a, b, want string
		ok                     bool
	}{
		{"different lines", base, "---\nrevision: 5\n---\nalpha\nbeta\ngamma\ndelta\nagent line\n", "---\nrevision: 1\n---\nALPHA\nbeta\ngamma\ndelta\n",
			"---\nrevision: 5\n---\nALPHA\nbeta\ngamma\ndelta\nagent line\n", true},
		{"same line differently", base, "---\nrevision: 1\n---\nalpha\nX\ngamma\ndelta\n", "---\nrevision: 1\n---\nalpha\nY\ngamma\ndelta\n", "", false},
		{"identical change", base, "---\nrevision: 1\n---\nalpha\nBETA\ngamma\ndelta\n", "---\nrevision: 1\n---\nalpha\nBETA\ngamma\ndelta\n",
			"---\nrevision: 1\n---\nalpha\nBETA\ngamma\ndelta\n", true},
		{"both append", base, base + "a\n", base + "b\n", "", false},
		{"adjacent lines", base, "---\nrevision: 1\n---\nalpha\nBETA\ngamma\ndelta\n", "---\nrevision: 1\n---\nalpha\nbeta\nGAMMA\ndelta\n", "", false},
		{"delete and edit apart", base, "---\nrevision: 1\n---\nbeta\ngamma\ndelta\n", "---\nrevision: 1\n---\nalpha\nbeta\ngamma\nDELTA\n",
			"---\nrevision: 1\n---\nbeta\ngamma\nDELTA\n", true},
		{"appends at both ends", "a\nb\nc\n", "top\na\nb\nc\n", "a\nb\nc\nbottom\n", "top\na\nb\nc\nbottom\n", true},
		{"no final newline", "x\ny\nz", "X\ny\nz", "x\ny\nZ", "X\ny\nZ", true},
		{"CRLF lines", "x\r\ny\r\nz\r\n", "X\r\ny\r\nz\r\n", "x\r\ny\r\nZ\r\n", "X\r\ny\r\nZ\r\n", true},
		// Each side deleted one of the two c lines, a also changed the b
		// before them. Its diff may place the deletion on either c; merging
		// the touching deletions as different changes would drop both c, a
		// line each side kept. Where a's inserted a could slide, the two
		// changes touch: a conflict.
		{"the same deletion placed on different equal lines", "b\na\nc\nc\nb\nb\n", "a\na\nc\nb\nb\n", "b\na\nc\nb\nb\n", "", false},
		// a made the first b a y, inserted x after it and y at the end; its
		// diff reads this as y, x inserted at the top and the last b made a y.
		// b inserted x after the first b: the same x, or another? A conflict,
		// not a merge with two x lines.
		{"a replacement whose deleted line could be another", "b\nb\nb\n", "y\nx\nb\nb\ny\n", "b\nx\nb\nb\n", "", false},
		// Both sides inserted an a next to the a of base; one diff puts it
		// before that a, the other after. It is one change, counted once.
		{"the same insertion placed on either side of an equal line", "b\na\n", "c\nb\na\na\n", "b\na\na\n", "c\nb\na\na\n", true},
		// Both sides deleted one b of three, the diffs two b lines apart.
		{"the same deletion from a run of equal lines", "b\na\nc\nb\nb\nb\nc\n", "b\na\nc\nb\nb\nc\n", "b\nx\na\nc\nb\nb\nc\n", "b\nx\na\nc\nb\nb\nc\n", true},
		// An insertion before a run of b lines touches the deletion of any of them.
		{"an insertion touching a deletion it could slide to", "c\nb\nb\nc\n", "c\na\nb\nb\nc\n", "c\nb\nc\n", "", false},
	} {
		got, ok := Merge(c.base, c.a, c.b)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("%s: Merge = %q, %v; want %q, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestMergeOverMaxLines(t *testing.T) {
	big := strings.Repeat("x\n", MaxLines+1)
	if _, ok := Merge(big, "top\n"+big, big+"bottom\n"); ok {
		t.Errorf("two edits of a text over MaxLines merged")
	}
	// One side alone, or both the same way: the merge is that side, without a diff.
	for _, c := range [][3]string{{big, big + "y\n", big}, {big, big, big + "y\n"}, {big, big + "y\n", big + "y\n"}} {
		if got, ok := Merge(c[0], c[1], c[2]); !ok || got != big+"y\n" {
			t.Errorf("a one-sided change of a text over MaxLines: ok=%v", ok)
		}
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
