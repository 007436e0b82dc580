package lsp

import (
	"fmt"
	"sort"
	"unicode/utf8"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/session"
)

// Mapper converts between byte offsets (what the engine and diagnostics speak) and LSP
// positions (zero-based line, UTF-16 code units within the line; LSP 3.16 has no
// position encoding negotiation, so UTF-16 it is). It is the only place in mf-lsp that
// does this conversion: feature code converts at the LSP edge through a Mapper and
// never counts characters itself. Modeled on gopls's protocol.Mapper.
//
// Lines end at "\n", "\r\n" or a lone "\r", as the LSP specification says. A Mapper is
// immutable and safe for concurrent use; build a new one when the content changes.
//
// Byte sequences that are not valid UTF-8 count as one UTF-16 unit per byte (each
// decodes to U+FFFD), in both directions, so conversions stay consistent.
type Mapper struct {
	content []byte
	lines   []lineSpan // one per line; never empty
}

// lineSpan is the byte extent of one line's content, without its line terminator.
type lineSpan struct {
	start, end int
}

// NewMapper indexes content's line starts. It keeps content (no copy), which must not be
// modified afterwards.
func NewMapper(content []byte) *Mapper {
	m := &Mapper{content: content}
	start := 0
	for i := 0; i < len(content); i++ {
		switch content[i] {
		case '\n':
			m.lines = append(m.lines, lineSpan{start, i})
			start = i + 1
		case '\r':
			m.lines = append(m.lines, lineSpan{start, i})
			if i+1 < len(content) && content[i+1] == '\n' {
				i++
			}
			start = i + 1
		}
	}
	m.lines = append(m.lines, lineSpan{start, len(content)})
	return m
}

// Content returns the bytes the Mapper was built on.
func (m *Mapper) Content() []byte { return m.content }

// LineCount is the number of lines; content ending in a line terminator has a last,
// empty line after it (as editors show it).
func (m *Mapper) LineCount() int { return len(m.lines) }

// OffsetPosition converts a byte offset in [0, len(content)] to an LSP position.
// An offset inside a line terminator (between "\r" and "\n") maps to the end of that
// line. An offset inside a multi-byte UTF-8 sequence is an error: it can only come from
// a bug, and silently rounding would hide it.
func (m *Mapper) OffsetPosition(offset int) (protocol.Position, error) {
	if offset < 0 || offset > len(m.content) {
		return protocol.Position{}, fmt.Errorf("offset %d is outside the document (0..%d)", offset, len(m.content))
	}
	// The line is the last one starting at or before offset.
	line := sort.Search(len(m.lines), func(i int) bool { return m.lines[i].start > offset }) - 1
	span := m.lines[line]
	if offset > span.end {
		offset = span.end // inside "\r\n"
	}
	col := 0
	for i := span.start; i < offset; {
		r, size := utf8.DecodeRune(m.content[i:span.end])
		if i+size > offset {
			return protocol.Position{}, fmt.Errorf("offset %d is inside a UTF-8 sequence", offset)
		}
		col += utf16Len(r)
		i += size
	}
	return protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(col)}, nil
}

// PositionOffset converts an LSP position to a byte offset.
//
// A character past the end of its line is clamped to the line end, as the LSP
// specification asks. A character that falls between the two UTF-16 halves of a
// surrogate pair rounds down to the start of that rune. The position one line past the
// last line with character 0 is accepted as the end of the document, because clients
// express "replace everything" that way. Any other line past the end is an error.
func (m *Mapper) PositionOffset(p protocol.Position) (int, error) {
	line, char := int(p.Line), int(p.Character)
	if line >= len(m.lines) {
		if line == len(m.lines) && char == 0 {
			return len(m.content), nil
		}
		return 0, fmt.Errorf("position %d:%d is beyond the end of the document (%d lines)", p.Line, p.Character, len(m.lines))
	}
	span := m.lines[line]
	col := 0
	for i := span.start; i < span.end; {
		if col >= char {
			return i, nil
		}
		r, size := utf8.DecodeRune(m.content[i:span.end])
		w := utf16Len(r)
		if col+w > char {
			return i, nil // char splits a surrogate pair
		}
		col += w
		i += size
	}
	return span.end, nil
}

// OffsetRange converts the byte range [start, end) to an LSP range.
func (m *Mapper) OffsetRange(start, end int) (protocol.Range, error) {
	if start > end {
		return protocol.Range{}, fmt.Errorf("invalid byte range %d..%d: start after end", start, end)
	}
	s, err := m.OffsetPosition(start)
	if err != nil {
		return protocol.Range{}, err
	}
	e, err := m.OffsetPosition(end)
	if err != nil {
		return protocol.Range{}, err
	}
	return protocol.Range{Start: s, End: e}, nil
}

// OffsetRangeIn is NewMapper(content).OffsetRange(start, end), the same
// range or error, without indexing content's lines: it counts them up to
// end. For one span in a note read for it alone (a definition's target, a
// backlink's source), the index of every line was most of what converting it
// cost and allocated (a line a 16-byte entry: 16 KB for a note of 1,000
// lines), of a note the answer then drops.
func OffsetRangeIn(content []byte, start, end int) (protocol.Range, error) {
	if start > end {
		return protocol.Range{}, fmt.Errorf("invalid byte range %d..%d: start after end", start, end)
	}
	s, err := offsetPositionIn(content, start)
	if err != nil {
		return protocol.Range{}, err
	}
	e, err := offsetPositionIn(content, end)
	if err != nil {
		return protocol.Range{}, err
	}
	return protocol.Range{Start: s, End: e}, nil
}

// offsetPositionIn is Mapper.OffsetPosition, counting the lines before
// offset instead of looking them up.
func offsetPositionIn(content []byte, offset int) (protocol.Position, error) {
	if offset < 0 || offset > len(content) {
		return protocol.Position{}, fmt.Errorf("offset %d is outside the document (0..%d)", offset, len(content))
	}
	line, start := 0, 0
	for i := 0; i < offset; i++ {
		switch content[i] {
		case '\n':
			line, start = line+1, i+1
		case '\r':
			if i+1 < len(content) && content[i+1] == '\n' {
				if i+1 == offset {
					offset = i // inside "\r\n": the end of this line
					break
				}
				i++
			}
			line, start = line+1, i+1
		}
	}
	col := 0
	for i := start; i < offset; {
		// A line ends at an ASCII byte, which no UTF-8 sequence holds: its
		// runes decode the same with or without what follows the line.
		r, size := utf8.DecodeRune(content[i:])
		if i+size > offset {
			return protocol.Position{}, fmt.Errorf("offset %d is inside a UTF-8 sequence", offset)
		}
		col += utf16Len(r)
		i += size
	}
	return protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(col)}, nil
}

// RangeOffsets converts an LSP range to byte offsets [start, end).
func (m *Mapper) RangeOffsets(r protocol.Range) (start, end int, err error) {
	if start, err = m.PositionOffset(r.Start); err != nil {
		return 0, 0, err
	}
	if end, err = m.PositionOffset(r.End); err != nil {
		return 0, 0, err
	}
	if start > end {
		return 0, 0, fmt.Errorf("invalid range %d:%d-%d:%d: start after end", r.Start.Line, r.Start.Character, r.End.Line, r.End.Character)
	}
	return start, end, nil
}

// utf16Len is the number of UTF-16 code units r takes. utf8.RuneError (also what an
// invalid byte decodes to) takes one.
func utf16Len(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// TextEdits converts byte edits of the mapped text to LSP edits; an error when
// one does not map.
func (m *Mapper) TextEdits(edits []session.Edit) ([]protocol.TextEdit, error) {
	out := make([]protocol.TextEdit, 0, len(edits))
	for _, e := range edits {
		r, err := m.OffsetRange(e.Span.Start, e.Span.End)
		if err != nil {
			return nil, err
		}
		out = append(out, protocol.TextEdit{Range: r, NewText: e.Text})
	}
	return out, nil
}
