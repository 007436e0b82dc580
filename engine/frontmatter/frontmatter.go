// Package frontmatter splits a memory note into its YAML frontmatter and its body
// and parses the YAML with a byte range for every key, value and error.
//
// It is deliberately not built on a generic frontmatter library: the editor needs
// the offset of every delimiter, key and value, and must see an unterminated block,
// a byte order mark or CRLF line ends instead of having them read silently as "no
// frontmatter". The YAML itself is parsed by goccy/go-yaml, which reports exact
// positions. Flat "key: scalar" frontmatter — what the engine writes, and nearly
// every note on disk — takes a fast path that the fuzz tests hold to the same
// answers as the full parser.
package frontmatter

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Span is a half-open byte range [Start, End) in the note's source.
type Span struct{ Start, End int }

// Len is the number of bytes in the span.
func (s Span) Len() int { return s.End - s.Start }

// Of is the span's bytes in src.
func (s Span) Of(src []byte) []byte { return src[s.Start:s.End] }

// ErrorKind classifies what is wrong with a frontmatter block.
type ErrorKind string

const (
	// Unterminated: the opening "---" has no closing line.
	Unterminated ErrorKind = "unterminated"
	// Syntax: the YAML does not parse.
	Syntax ErrorKind = "syntax"
	// NotMapping: the YAML parses but is not a mapping of keys to values.
	NotMapping ErrorKind = "not-mapping"
	// DuplicateKey: a top-level key appears more than once.
	DuplicateKey ErrorKind = "duplicate-key"
)

// Error is one problem found in the frontmatter, with the bytes it is about.
type Error struct {
	Kind    ErrorKind
	Span    Span
	Message string
}

func (e Error) Error() string { return e.Message }

// Field is one top-level key of the frontmatter.
type Field struct {
	Key       string
	KeySpan   Span
	ValueSpan Span // the value's bytes, trimmed; empty (Start == End) for a null value
	// Value is the decoded value: int for integers, string, bool, float64, nil,
	// []any or map[string]any.
	Value any
	// Duplicate marks a later occurrence of a key already seen; the first wins.
	Duplicate bool
}

// Document is a parsed note.
type Document struct {
	BOM bool // the source starts with a UTF-8 byte order mark (skipped)
	// Present: the note opens with a "---" line. Terminated: a closing "---" (or
	// "...") line follows. Only a present and terminated block is frontmatter.
	Present, Terminated bool
	Open, Close         Span // the delimiter lines, without their line ends
	YAML                Span // the bytes between the delimiter lines
	Body                int  // offset of the first body byte
	CRLF                bool // the opening line ends in "\r\n"
	Fields              []Field
	Errors              []Error
}

// Has reports whether the note has a terminated frontmatter block.
func (d *Document) Has() bool { return d.Present && d.Terminated }

// Field returns the first occurrence of key, or nil.
func (d *Document) Field(key string) *Field {
	for i := range d.Fields {
		if d.Fields[i].Key == key && !d.Fields[i].Duplicate {
			return &d.Fields[i]
		}
	}
	return nil
}

// Int returns key's value as an integer; ok is false when the key is missing or
// its value is not an integer.
func (d *Document) Int(key string) (n int, ok bool) {
	f := d.Field(key)
	if f == nil {
		return 0, false
	}
	n, ok = f.Value.(int)
	return n, ok
}

// String returns key's value when it is a string (or a plain scalar read as one).
func (d *Document) String(key string) (s string, ok bool) {
	f := d.Field(key)
	if f == nil {
		return "", false
	}
	s, ok = f.Value.(string)
	return s, ok
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// Parse splits src and parses its frontmatter. It never fails: what is wrong is in
// Errors, and whatever could be read is in Fields.
func Parse(src []byte) *Document {
	d := &Document{}
	if split(src, d) {
		parseYAML(d, src)
	}
	return d
}

// split finds src's frontmatter block: d's BOM, Present, Terminated, CRLF,
// delimiters, YAML and Body, and the error of an unterminated block. It
// reports whether there is YAML to parse.
func split(src []byte, d *Document) bool {
	start := 0
	if bytes.HasPrefix(src, bom) {
		d.BOM = true
		start = len(bom)
	}
	line, next, crlf := lineAt(src, start)
	if !isDelimiter(src[start:line], false) {
		d.Body = start
		return false
	}
	d.Present, d.CRLF = true, crlf
	d.Open = Span{start, line}
	yamlStart := next
	for pos := next; pos < len(src); {
		end, after, _ := lineAt(src, pos)
		if isDelimiter(src[pos:end], true) {
			d.Terminated = true
			d.Close = Span{pos, end}
			d.YAML = Span{yamlStart, pos}
			d.Body = after
			return true
		}
		pos = after
	}
	// No closing line: the whole note is body, and the opening line is the error.
	d.Body = start
	d.Errors = append(d.Errors, Error{Kind: Unterminated, Span: d.Open,
		Message: "frontmatter is not terminated: no closing --- line"})
	return false
}

// FlatField is a top-level field of flat frontmatter as PeekFlat reads it in
// place: its key's and value's bytes in the source, and the value's meaning.
type FlatField struct {
	Key, Value Span
	// Int is the value when IsInt; any other value is a string, exactly the
	// Value bytes.
	Int   int
	IsInt bool
}

// PeekFlat reads src's frontmatter in place, without building a Document,
// when it is what the engine writes: flat "key: scalar" lines, Parse's fast
// path. It calls field for each top-level field in order, duplicates too
// (Parse lets the first one count), and returns the body's offset; a note
// without frontmatter has no fields. For any other frontmatter (unterminated,
// nested, quoted, too large) ok is false, and field may have been told of the
// fields before the first that is not flat: Parse has the answers.
func PeekFlat(src []byte, field func(FlatField)) (body int, ok bool) {
	var d Document
	if !split(src, &d) {
		return d.Body, !d.Present
	}
	y := src[d.YAML.Start:d.YAML.End]
	if checkSize(y, d.YAML.Start) != nil || !eachFlat(y, d.YAML.Start, field) {
		return 0, false
	}
	return d.Body, true
}

// lineAt returns the end of the line starting at pos (without its line end), the
// start of the next line, and whether the line ended in CRLF.
func lineAt(src []byte, pos int) (end, next int, crlf bool) {
	i := bytes.IndexByte(src[pos:], '\n')
	if i < 0 {
		return len(src), len(src), false
	}
	end = pos + i
	next = end + 1
	if end > pos && src[end-1] == '\r' {
		return end - 1, next, true
	}
	return end, next, false
}

// isDelimiter reports whether line is "---" (or, closing, "..."), allowing
// trailing blanks as YAML does.
func isDelimiter(line []byte, closing bool) bool {
	line = bytes.TrimRight(line, " \t")
	return string(line) == "---" || (closing && string(line) == "...")
}

func parseYAML(d *Document, src []byte) {
	y := src[d.YAML.Start:d.YAML.End]
	if e := checkSize(y, d.YAML.Start); e != nil {
		d.Errors = append(d.Errors, *e)
	} else if fields, ok := parseFlat(y, d.YAML.Start); ok {
		d.Fields = fields
	} else if e := checkLimits(y, d.YAML.Start); e != nil {
		d.Errors = append(d.Errors, *e)
	} else {
		parseFull(d, src)
	}
	markDuplicates(d)
}

func markDuplicates(d *Document) {
	seen := make(map[string]int, len(d.Fields))
	for i := range d.Fields {
		f := &d.Fields[i]
		if first, ok := seen[f.Key]; ok {
			f.Duplicate = true
			d.Errors = append(d.Errors, Error{Kind: DuplicateKey, Span: f.KeySpan,
				Message: fmt.Sprintf("duplicate key %q (first at byte %d); the first one counts", f.Key, d.Fields[first].KeySpan.Start)})
			continue
		}
		seen[f.Key] = i
	}
}

// parseFlat reads YAML made only of "key: plain-scalar" lines, blank lines and
// comment lines — what the engine writes. It answers ok=false for anything else,
// and for any scalar whose YAML type is not obviously an integer or a string, so
// that the full parser decides.
func parseFlat(y []byte, base int) (_ []Field, ok bool) {
	// Parsed on the stack, kept at their exact size: most notes have two to
	// four fields, and a slice grown to fit wastes half of it.
	var buf [8]Field
	fields := buf[:0]
	ok = eachFlat(y, base, func(f FlatField) {
		var value any
		if f.IsInt {
			value = f.Int
		} else {
			value = string(y[f.Value.Start-base : f.Value.End-base])
		}
		fields = append(fields, Field{Key: fieldKey(y[f.Key.Start-base : f.Key.End-base]), KeySpan: f.Key, ValueSpan: f.Value, Value: value})
	})
	if !ok {
		return nil, false
	}
	return append(make([]Field, 0, len(fields)), fields...), true
}

// eachFlat calls field for each "key: plain-scalar" line of y (at base in
// the note), skipping blank and comment lines, and reports false at the
// first line that is anything else.
func eachFlat(y []byte, base int, field func(FlatField)) bool {
	for pos := 0; pos < len(y); {
		end, next, _ := lineAt(y, pos)
		line := y[pos:end]
		pos0 := pos
		pos = next
		if bytes.IndexByte(line, '\r') >= 0 {
			return false // a lone CR breaks lines in YAML
		}
		if len(bytes.TrimRight(line, " \t")) == 0 || line[0] == '#' {
			continue
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || !isPlainKey(line[:colon]) {
			return false
		}
		rest := line[colon+1:]
		if len(rest) == 0 || rest[0] != ' ' {
			return false
		}
		valStart := colon + 1 + countLeading(rest, ' ')
		val := bytes.TrimRight(line[valStart:], " \t")
		n, isInt, ok := flatKind(val)
		if !ok {
			return false
		}
		field(FlatField{
			Key:   Span{base + pos0, base + pos0 + colon},
			Value: Span{base + pos0 + valStart, base + pos0 + valStart + len(val)},
			Int:   n, IsInt: isInt,
		})
	}
	return true
}

// fieldKey is k as a string, without a copy for the keys the engine writes
// and reads: a loaded tree holds one per field of every note.
func fieldKey(k []byte) string {
	switch string(k) {
	case "revision":
		return "revision"
	case "updated":
		return "updated"
	case "machine":
		return "machine"
	case "name":
		return "name"
	case "description":
		return "description"
	case "sources":
		return "sources"
	}
	return string(k)
}

func countLeading(b []byte, c byte) int {
	n := 0
	for n < len(b) && b[n] == c {
		n++
	}
	return n
}

func isPlainKey(k []byte) bool {
	for i, c := range k {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case i > 0 && (c >= '0' && c <= '9' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}

// flatScalar decodes a plain scalar when its YAML meaning is unambiguous
// (flatKind). Everything else goes to the full parser.
func flatScalar(v []byte) (any, bool) {
	n, isInt, ok := flatKind(v)
	switch {
	case !ok:
		return nil, false
	case isInt:
		return n, true
	}
	return string(v), true
}

// flatKind says what a plain scalar is when its YAML meaning is unambiguous:
// a decimal integer without leading zeros (isInt, n), or a string that cannot
// be read as anything else (its bytes). ok is false for everything else.
func flatKind(v []byte) (n int, isInt, ok bool) {
	if len(v) == 0 || !utf8.Valid(v) {
		return 0, false, false
	}
	if isDecimal(v) {
		if len(v) > 1 && v[0] == '0' || len(v) > 18 {
			return 0, false, false
		}
		n, err := strconv.Atoi(string(v))
		return n, true, err == nil
	}
	switch v[0] {
	case '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', '+', '.', '~':
		return 0, false, false
	}
	if bytes.Contains(v, []byte(": ")) || bytes.Contains(v, []byte(" #")) || bytes.HasSuffix(v, []byte(":")) {
		return 0, false, false
	}
	for _, c := range v {
		if c < 0x20 || c == 0x7f {
			return 0, false, false
		}
	}
	if looksTyped(v) {
		return 0, false, false
	}
	return 0, false, true
}

func isDecimal(v []byte) bool {
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(v) > 0
}

// looksTyped catches the plain scalars YAML may read as booleans, nulls or
// numbers (1.1 and 1.2 rules both): true, No, null, 1e3, 0x1F, .inf, 1_000,
// 1:30. A value that merely starts with a digit, such as a machine id
// "3f9c2a7e" or a date, is a string.
func looksTyped(v []byte) bool {
	if len(v) <= len("false") && isASCII(v) {
		var lower [len("false")]byte
		for i, c := range v {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			lower[i] = c
		}
		if typedWord(string(lower[:len(v)])) {
			return true
		}
	} else if !isASCII(v) && typedWord(string(bytes.ToLower(v))) {
		return true // unicode.ToLower maps "İ" to "i": "İnf" was read as "inf"
	}
	return numberLike(v)
}

func typedWord(lower string) bool {
	switch lower {
	case "true", "false", "yes", "no", "on", "off", "y", "n", "null", "nan", ".nan", "inf", ".inf":
		return true
	}
	return false
}

func isASCII(v []byte) bool {
	for _, c := range v {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// numberLike reports whether v is a whole match of one of these (written as
// a regular expression in the test that holds this scanner to it; a regexp
// here cost every value of every note a match):
//
//	[-+]?[0-9][0-9_]*                                     integer
//	0[xX][0-9a-fA-F_]+ | 0[oO]?[0-7_]+ | 0[bB][01_]+      hex, octal, binary
//	[-+]?(?:[0-9][0-9_]*)?\.?[0-9_]*(?:[eE][-+]?[0-9]+)?  float (also "", "+", ".")
//	[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?      sexagesimal
//
// The integers and "0" followed by octal digits are floats of that grammar
// too, so only the prefixed forms are checked apart.
func numberLike(v []byte) bool {
	if len(v) > 2 && v[0] == '0' {
		switch rest := v[2:]; v[1] {
		case 'x', 'X':
			if all(rest, isHexDigitOrUnderscore) {
				return true
			}
		case 'o', 'O':
			if all(rest, func(c byte) bool { return c >= '0' && c <= '7' || c == '_' }) {
				return true
			}
		case 'b', 'B':
			if all(rest, func(c byte) bool { return c == '0' || c == '1' || c == '_' }) {
				return true
			}
		}
	}
	return floatLike(v) || sexagesimal(v)
}

func all(v []byte, ok func(byte) bool) bool {
	for _, c := range v {
		if !ok(c) {
			return false
		}
	}
	return true
}

func isDigitOrUnderscore(c byte) bool { return c >= '0' && c <= '9' || c == '_' }

func isHexDigitOrUnderscore(c byte) bool {
	return isDigitOrUnderscore(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func trimSign(v []byte) []byte {
	if len(v) > 0 && (v[0] == '+' || v[0] == '-') {
		return v[1:]
	}
	return v
}

// floatLike: [-+]?(?:[0-9][0-9_]*)?\.?[0-9_]*(?:[eE][-+]?[0-9]+)?
func floatLike(v []byte) bool {
	v = trimSign(v)
	mant := v
	if e := bytes.IndexAny(v, "eE"); e >= 0 {
		mant = v[:e]
		exp := trimSign(v[e+1:])
		if len(exp) == 0 || !all(exp, func(c byte) bool { return c >= '0' && c <= '9' }) {
			return false
		}
	}
	before, after, dot := bytes.Cut(mant, []byte("."))
	if !dot {
		return all(mant, isDigitOrUnderscore)
	}
	return (len(before) == 0 || before[0] >= '0' && before[0] <= '9') && all(before, isDigitOrUnderscore) && all(after, isDigitOrUnderscore)
}

// sexagesimal: [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?
func sexagesimal(v []byte) bool {
	v = trimSign(v)
	if len(v) == 0 || v[0] < '0' || v[0] > '9' {
		return false
	}
	i := 1
	for i < len(v) && isDigitOrUnderscore(v[i]) {
		i++
	}
	groups := 0
	for i < len(v) && v[i] == ':' {
		j := i + 1
		for j < len(v) && v[j] >= '0' && v[j] <= '9' {
			j++
		}
		switch n := j - i - 1; {
		case n == 1, n == 2 && v[i+1] <= '5':
		default:
			return false
		}
		groups++
		i = j
	}
	if groups == 0 {
		return false
	}
	return i == len(v) || v[i] == '.' && all(v[i+1:], isDigitOrUnderscore)
}
