package lsp

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"
)

// TestOffsetRangeInAgreesWithTheMapper: counting the lines up to a span gives
// the range the line index gives, or the same error, for every span of any
// text made of line ends of every kind, wide and invalid UTF-8, offsets
// inside a "\r\n" or a sequence, and outside the text.
func TestOffsetRangeInAgreesWithTheMapper(t *testing.T) {
	pieces := []string{"a", "bc", "é", "日本", "😀", "\n", "\r", "\r\n", "\xff", "\xe2\x82", " "}
	rapid.Check(t, func(t *rapid.T) {
		var text []byte
		for _, i := range rapid.SliceOfN(rapid.IntRange(0, len(pieces)-1), 0, 40).Draw(t, "pieces") {
			text = append(text, pieces[i]...)
		}
		m := NewMapper(text)
		end := rapid.IntRange(-1, len(text)+1).Draw(t, "end")
		for start := -1; start <= len(text)+1; start++ { // every offset, alone and to end
			for _, end := range []int{start, end} {
				want, werr := m.OffsetRange(start, end)
				got, gerr := OffsetRangeIn(text, start, end)
				if fmt.Sprint(werr) != fmt.Sprint(gerr) || (werr == nil && got != want) {
					t.Fatalf("%q %d..%d: OffsetRangeIn %v, %v; the Mapper %v, %v", text, start, end, got, gerr, want, werr)
				}
			}
		}
	})
}
