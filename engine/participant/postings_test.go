package participant

import (
	"bytes"
	"testing"

	"pgregory.net/rapid"
)

// TestRefInPlace: an entry whose occurrences are encoded in place (ref.at,
// the index build's) is the entry of the same occurrences encoded first
// (ref.occ), whatever their number: the length takes one byte up to 127
// bytes of them, more past that.
func TestRefInPlace(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var at []uint64
		line, pos := int32(0), int32(0)
		for range rapid.IntRange(1, 400).Draw(rt, "occurrences") {
			if rapid.Bool().Draw(rt, "next line") {
				line, pos = line+rapid.Int32Range(1, 3000).Draw(rt, "line gap"), 0
			}
			pos += rapid.Int32Range(0, 300).Draw(rt, "position gap")
			at = append(at, packAt(line, pos, rapid.Bool().Draw(rt, "after a stop word")))
		}
		prefix := []byte(rapid.StringN(0, 20, -1).Draw(rt, "list so far"))
		r := ref{id: rapid.Int32Range(0, 1<<20).Draw(rt, "id"), n: int32(len(at)), lines: line + 1, key: rapid.Bool().Draw(rt, "key")}
		r.sum = lineSummary{peak: 1, shortest: 2, shortestPeak: 3}
		last := r.id - rapid.Int32Range(1, 100).Draw(rt, "gap")
		encoded := r
		encoded.occ = appendOccs(nil, at)
		want := appendRef(bytes.Clone(prefix), last, encoded)
		r.at = at
		if got := appendRef(bytes.Clone(prefix), last, r); !bytes.Equal(got, want) {
			rt.Fatalf("in place %x, want %x", got, want)
		}
	})
}

// TestLexiconPrefix: a word's first 8 bytes read lower-cased from an ASCII
// run (each byte |0x20) are those of the word lower-cased, whatever its
// length.
func TestLexiconPrefix(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		run := rapid.StringMatching(`[A-Za-z0-9]{1,20}`).Draw(rt, "run")
		lower := []byte(run)
		for k := range lower {
			lower[k] |= 0x20
		}
		if got, want := prefix([]byte(run), true), prefix(string(lower), false); got != want {
			rt.Fatalf("%q: %x, want %x", run, got, want)
		}
	})
}
