package journal

import (
	"bytes"
	"strings"
	"testing"
)

func TestGenerateHistory(t *testing.T) {
	start := d("2026-12-30")
	h := GenerateHistory(40, start, 3)
	if len(h) != 40 {
		t.Fatalf("%d notes", len(h))
	}
	again := GenerateHistory(40, start, 3)
	other := GenerateHistory(40, start, 4)
	same := 0
	var markers = map[string]int{}
	for i := 0; i < 40; i++ {
		key := start.AddDays(i).String() + ".md"
		body, ok := h[key]
		if !ok {
			t.Fatalf("no %s", key)
		}
		if f, p := Classify(key); p != nil || f.Kind != Daily {
			t.Fatalf("%s classifies as %v %v", key, f.Kind, p)
		}
		if !bytes.Equal(body, again[key]) {
			t.Fatalf("%s differs between runs with the same seed", key)
		}
		if bytes.Equal(body, other[key]) {
			same++
		}
		words := len(strings.Fields(string(body)))
		if words < 150 || words > 1000 {
			t.Errorf("%s has %d words", key, words)
		}
		for _, m := range []string{"Decision", "TODO", "BLOCKED", "[x]", "[ ]", "Error:", "```", "Lesson:", "## "} {
			if strings.Contains(string(body), m) {
				markers[m]++
			}
		}
	}
	if same > 2 {
		t.Errorf("%d of 40 notes equal under another seed", same)
	}
	for _, m := range []string{"Decision", "TODO", "BLOCKED", "[x]", "[ ]", "Error:", "```", "Lesson:", "## "} {
		if markers[m] == 0 {
			t.Errorf("no note has %q", m)
		}
	}
}

// BenchmarkSummarizeHistory summarizes a generated 1,000-day journal: every day
// refined, every complete week rolled up from its refined days, every complete
// month from its weeklies, in the order Due gives.
func BenchmarkSummarizeHistory(b *testing.B) {
	start := d("2026-01-01")
	raw := GenerateHistory(1000, start, 1)
	var files []File
	for k := range raw {
		f, _ := Classify(k)
		files = append(files, f)
	}
	today := start.AddDays(1000)
	plan := Due(files, today)
	rawBytes := 0
	for _, v := range raw {
		rawBytes += len(v)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var outBytes, n int
	for i := 0; i < b.N; i++ {
		docs := make(map[string][]byte, 2*len(raw))
		for k, v := range raw {
			docs[k] = v
		}
		have := append([]File(nil), files...)
		outBytes, n = 0, 0
		for _, r := range plan {
			var srcs []Source
			for _, f := range Sources(r, have) {
				srcs = append(srcs, Source{Key: f.Rel, Body: docs[f.Rel]})
			}
			out := Summarize(r.Kind, r.Period(), srcs)
			docs[r.Output()] = []byte(out)
			f, _ := Classify(r.Output())
			have = append(have, f)
			outBytes += len(out)
			n++
		}
	}
	b.ReportMetric(float64(n), "rollups/op")
	b.ReportMetric(float64(rawBytes)/1e6, "rawMB")
}
