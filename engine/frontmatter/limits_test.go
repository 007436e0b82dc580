package frontmatter

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Issue 14, row 1: frontmatter nested 30,000 deep took `check` 8 s and 2.3 GB
// (100,000 deep: killed past 6.8 GB). Past the limits it is a Syntax error at
// its position, found before the YAML parser runs.
func TestFrontmatterLimits(t *testing.T) {
	deepFlow := "x: " + strings.Repeat("[", 30000) + strings.Repeat("]", 30000) + "\n"
	var deepBlock strings.Builder
	for i := range 70 {
		deepBlock.WriteString(strings.Repeat(" ", i) + "k:\n")
	}
	for name, tc := range map[string]struct {
		yaml string
		want string // in the message
		line int    // the error is on this line of the note (1 = the opening ---)
	}{
		"deep flow":     {deepFlow, "nested more than 64", 2},
		"deep block":    {deepBlock.String(), "nested more than 64", 2 + 64},
		"deep dashes":   {"x:\n" + strings.Repeat("- ", 80) + "1\n", "nested more than 64", 3},
		"huge":          {"a: " + strings.Repeat("b", MaxYAMLSize) + "\nc: [1]\n", "more than the 64 KiB", 2},
		"huge and flat": {strings.Repeat("a: b\n", MaxYAMLSize/5+1), "more than the 64 KiB", 2},
		"deep and wide": {strings.Repeat("x: "+strings.Repeat("{a: ", 70)+"1"+strings.Repeat("}", 70)+"\n", 100), "nested more than 64", 2},
	} {
		t.Run(name, func(t *testing.T) {
			src := []byte("---\n" + tc.yaml + "---\nbody\n")
			start := time.Now()
			d := Parse(src)
			if el := time.Since(start); el > 2*time.Second {
				t.Errorf("took %v", el)
			}
			if len(d.Errors) != 1 || d.Errors[0].Kind != Syntax || !strings.Contains(d.Errors[0].Message, tc.want) {
				t.Fatalf("errors %+v; want one syntax error saying %q", d.Errors, tc.want)
			}
			sp := d.Errors[0].Span
			if sp.Start < 4 || sp.End > len(src) || sp.Start >= sp.End {
				t.Fatalf("span %+v outside the frontmatter", sp)
			}
			if line := bytes.Count(src[:sp.Start], []byte("\n")) + 1; line != tc.line {
				t.Errorf("error on line %d; want line %d", line, tc.line)
			}
		})
	}
	// Realistic frontmatter, quoted brackets included, still parses.
	ok := "---\ntags: [a, b, [c, d]]\ndescription: \"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"\nnested:\n  a:\n    b: {c: [1, 2]}\n---\n"
	if d := Parse([]byte(ok)); len(d.Errors) != 0 || d.Field("nested") == nil {
		t.Errorf("ordinary frontmatter: errors %+v", d.Errors)
	}
}

// FuzzBounded: whatever a note's frontmatter is made of — a fuzzed unit
// repeated up to 40,000 times, wrapped in fuzzed openers and closers, the
// shapes that blew up goccy/go-yaml — Parse allocates at most a small
// multiple of the note's size and never goes past the limits' worth of work.
func FuzzBounded(f *testing.F) {
	f.Add("[", "]", "x: ", uint16(30000))
	f.Add("{a: ", "}", "", uint16(20000))
	f.Add("- ", "", "x:\n", uint16(5000))
	f.Add(" k:\n", "", "a:\n", uint16(300))
	f.Add("&a [*a, ", "]", "x: ", uint16(1000))
	f.Add("'[", "'", "x: ", uint16(10000))
	f.Add("\"\\\"[", "\"", "x: ", uint16(10000))
	f.Fuzz(func(t *testing.T, open, close, lead string, n uint16) {
		reps := int(n) % 40001
		src := "---\n" + lead + strings.Repeat(open, reps) + strings.Repeat(close, reps) + "\n---\nbody\n"
		if len(src) > 1<<20 {
			t.Skip()
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		d := Parse([]byte(src))
		el := time.Since(start)
		runtime.ReadMemStats(&after)
		// The parser's own cost is bounded by MaxYAMLSize and MaxYAMLDepth,
		// whatever the input: 64 MiB and 2 s are far above what that allows
		// and far below what the unbounded parser took (GBs, seconds).
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20+uint64(100*len(src)) {
			t.Errorf("Parse of %d bytes allocated %d MiB", len(src), alloc>>20)
		}
		if el > 2*time.Second && !testing.Short() {
			t.Errorf("Parse of %d bytes took %v", len(src), el)
		}
		for _, e := range d.Errors {
			if e.Span.Start < 0 || e.Span.End > len(src) || e.Span.Start > e.Span.End {
				t.Errorf("error %+v outside the note", e)
			}
		}
	})
}
