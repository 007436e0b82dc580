package lsp

import (
	"strings"
	"testing"
	"unicode/utf8"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

func pos(line, char int) protocol.Position {
	return protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(char)}
}

func TestMapperOffsetPosition(t *testing.T) {
	tests := []struct {
		name    string
		content string
		offset  int
		want    protocol.Position
		wantErr string
	}{
		{"empty", "", 0, pos(0, 0), ""},
		{"start", "abc", 0, pos(0, 0), ""},
		{"end", "abc", 3, pos(0, 3), ""},
		{"second line LF", "ab\ncd", 4, pos(1, 1), ""},
		{"second line CRLF", "ab\r\ncd", 5, pos(1, 1), ""},
		{"lone CR", "ab\rcd", 3, pos(1, 0), ""},
		{"at CR of CRLF", "ab\r\ncd", 2, pos(0, 2), ""},
		{"between CR and LF", "ab\r\ncd", 3, pos(0, 2), ""},
		{"after trailing newline", "ab\n", 3, pos(1, 0), ""},
		{"two-byte rune", "é=x", 2, pos(0, 1), ""},
		{"three-byte rune", "€x", 3, pos(0, 1), ""},
		{"surrogate pair", "😀x", 4, pos(0, 2), ""},
		{"after surrogate pair", "a😀b", 6, pos(0, 4), ""},
		{"invalid byte counts one", "\xffx", 1, pos(0, 1), ""},
		{"inside rune", "€x", 1, protocol.Position{}, "inside a UTF-8 sequence"},
		{"negative", "abc", -1, protocol.Position{}, "outside the document"},
		{"past end", "abc", 4, protocol.Position{}, "outside the document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NewMapper([]byte(tt.content)).OffsetPosition(tt.offset)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("OffsetPosition(%d) error = %v, want %q", tt.offset, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("OffsetPosition(%d) = %v, %v; want %v", tt.offset, got, err, tt.want)
			}
		})
	}
}

func TestMapperPositionOffset(t *testing.T) {
	tests := []struct {
		name    string
		content string
		pos     protocol.Position
		want    int
		wantErr string
	}{
		{"empty", "", pos(0, 0), 0, ""},
		{"middle", "abc", pos(0, 2), 2, ""},
		{"clamp past line end", "ab\ncd", pos(0, 9), 2, ""},
		{"clamp past CRLF line end", "ab\r\ncd", pos(0, 9), 2, ""},
		{"clamp last line", "ab\ncd", pos(1, 9), 5, ""},
		{"CRLF second line", "ab\r\ncd", pos(1, 1), 5, ""},
		{"lone CR second line", "ab\rcd", pos(1, 1), 4, ""},
		{"after surrogate pair", "😀x", pos(0, 2), 4, ""},
		{"inside surrogate pair rounds down", "a😀x", pos(0, 2), 1, ""},
		{"two-byte rune", "éx", pos(0, 1), 2, ""},
		{"EOF as line count", "ab\n", pos(2, 0), 3, ""},
		{"EOF as line count, no trailing newline", "ab", pos(1, 0), 2, ""},
		{"past EOF", "ab\n", pos(2, 1), 0, "beyond the end"},
		{"far past EOF", "ab", pos(7, 0), 0, "beyond the end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NewMapper([]byte(tt.content)).PositionOffset(tt.pos)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("PositionOffset(%v) error = %v, want %q", tt.pos, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("PositionOffset(%v) = %d, %v; want %d", tt.pos, got, err, tt.want)
			}
		})
	}
}

func TestMapperRanges(t *testing.T) {
	m := NewMapper([]byte("---\r\nname: ü😀\r\n---\r\n"))
	r, err := m.OffsetRange(11, 17) // "ü😀"
	if err != nil {
		t.Fatal(err)
	}
	if want := (protocol.Range{Start: pos(1, 6), End: pos(1, 9)}); r != want {
		t.Fatalf("OffsetRange = %v, want %v", r, want)
	}
	s, e, err := m.RangeOffsets(r)
	if err != nil || s != 11 || e != 17 {
		t.Fatalf("RangeOffsets = %d, %d, %v; want 11, 17", s, e, err)
	}
	if _, err := m.OffsetRange(5, 4); err == nil {
		t.Error("OffsetRange(5, 4) succeeded; want error")
	}
	if _, _, err := m.RangeOffsets(protocol.Range{Start: pos(1, 0), End: pos(0, 0)}); err == nil {
		t.Error("RangeOffsets with start after end succeeded; want error")
	}
	if _, _, err := m.RangeOffsets(protocol.Range{Start: pos(0, 0), End: pos(9, 0)}); err == nil {
		t.Error("RangeOffsets past EOF succeeded; want error")
	}
}

// referencePositions computes the position of every byte offset the slow, obvious way:
// one pass over the content. ok[i] is false for offsets inside a UTF-8 sequence.
// Offsets between "\r" and "\n" get the end of their line, as Mapper documents.
func referencePositions(content []byte) (positions []protocol.Position, ok []bool) {
	positions = make([]protocol.Position, len(content)+1)
	ok = make([]bool, len(content)+1)
	line, col := 0, 0
	for i := 0; i < len(content); {
		positions[i], ok[i] = pos(line, col), true
		switch {
		case content[i] == '\r' && i+1 < len(content) && content[i+1] == '\n':
			positions[i+1], ok[i+1] = pos(line, col), true
			line, col = line+1, 0
			i += 2
		case content[i] == '\r' || content[i] == '\n':
			line, col = line+1, 0
			i++
		default:
			r, size := utf8.DecodeRune(content[i:])
			if r >= 0x10000 {
				col += 2
			} else {
				col++
			}
			i += size
		}
	}
	positions[len(content)], ok[len(content)] = pos(line, col), true
	return positions, ok
}

// FuzzMapper checks the Mapper against referencePositions for every offset of the
// input, that positions map back to the same offsets, and that arbitrary positions
// map to offsets on a rune boundary of the right line (or a clear error).
// Run: go test ./lsp -run=^$ -fuzz=FuzzMapper -fuzztime=30s
func FuzzMapper(f *testing.F) {
	for _, seed := range []string{
		"", "a", "\n", "\r", "\r\n", "\n\r", "ab\r\ncd\ref\ngh",
		"---\nrevision: 3\n---\nBody ü€😀\n",
		"😀😀\r\n😀", "\xff\xfe\xed\xa0\x80x", "€\r\n\r\n\n", "a\xe2\x82\n",
	} {
		f.Add([]byte(seed), uint32(0), uint32(0))
	}
	f.Add([]byte("line\nline"), uint32(1), uint32(99))
	f.Add([]byte("😀"), uint32(0), uint32(1))
	f.Fuzz(func(t *testing.T, content []byte, line, char uint32) {
		m := NewMapper(content)
		want, ok := referencePositions(content)
		for off := range want {
			got, err := m.OffsetPosition(off)
			if !ok[off] {
				if err == nil {
					t.Fatalf("OffsetPosition(%d) = %v inside a UTF-8 sequence of %q; want error", off, got, content)
				}
				continue
			}
			if err != nil || got != want[off] {
				t.Fatalf("OffsetPosition(%d) of %q = %v, %v; want %v", off, content, got, err, want[off])
			}
			back, err := m.PositionOffset(got)
			inTerminator := off > 0 && content[off-1] == '\r' && off < len(content) && content[off] == '\n'
			if err != nil || (back != off && !(inTerminator && back == off-1)) {
				t.Fatalf("PositionOffset(OffsetPosition(%d)) of %q = %d, %v", off, content, back, err)
			}
		}
		// Arbitrary positions: either a clear error past the last line, or an offset
		// on a rune boundary whose position is on that line and not after the request.
		p := protocol.Position{Line: line % 8, Character: char % 16}
		off, err := m.PositionOffset(p)
		if err != nil {
			if int(p.Line) < m.LineCount() {
				t.Fatalf("PositionOffset(%v) of %q: unexpected error %v", p, content, err)
			}
			return
		}
		if off < 0 || off > len(content) || !ok[off] {
			t.Fatalf("PositionOffset(%v) of %q = %d: not a rune boundary", p, content, off)
		}
		if int(p.Line) < m.LineCount() {
			got, _ := m.OffsetPosition(off)
			if got.Line != p.Line || got.Character > p.Character {
				t.Fatalf("PositionOffset(%v) of %q = %d, which maps back to %v", p, content, off, got)
			}
		}
	})
}
