// Package flatjson reads the plain JSON the engine's small files hold
// (the roster, the project binding, layers.json, the history's log lines)
// without encoding/json: no validation pass and no reflection, which at a
// CLI call's scale cost more than the files' text (a roster of 1,000 agents
// decoded at about ten times these instructions). It reads objects of
// strings, arrays of strings, integers and null only, and a string only
// without escapes: anything else is a refusal (false), and the caller then
// decodes with encoding/json into a fresh value, so every other file, and
// every error, reads as it did.
package flatjson

import (
	"strconv"
	"unicode/utf8"
)

// Decoder reads one document.
type Decoder struct {
	data []byte
	text string // data's copy: the strings read are its substrings
	i    int
}

// New reads data; false when it is not valid UTF-8 (json replaces what is
// not: its answer, not ours).
func New(data []byte) (*Decoder, bool) {
	if !utf8.Valid(data) {
		return nil, false
	}
	return &Decoder{data: data, text: string(data)}, true
}

func (d *Decoder) space() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// Skip passes white space and c, reporting whether c came.
func (d *Decoder) Skip(c byte) bool {
	d.space()
	if d.i < len(d.data) && d.data[d.i] == c {
		d.i++
		return true
	}
	return false
}

// End reports whether only white space is left.
func (d *Decoder) End() bool {
	d.space()
	return d.i == len(d.data)
}

// Null reads a null, if that is what comes.
func (d *Decoder) Null() bool {
	d.space()
	if len(d.data)-d.i >= 4 && string(d.data[d.i:d.i+4]) == "null" {
		d.i += 4
		return true
	}
	return false
}

// String reads a string without escapes or control characters.
func (d *Decoder) String() (string, bool) {
	if d.i >= len(d.data) || d.data[d.i] != '"' { // white space first
		if !d.Skip('"') {
			return "", false
		}
		d.i--
	}
	// One pass to the closing quote, in locals: a roster's thousand names
	// were each scanned twice (IndexByte, then the check), a call apiece.
	data, start := d.data, d.i+1
	for j := start; j < len(data); j++ {
		switch c := data[j]; {
		case c == '"':
			d.i = j + 1
			return d.text[start:j], true
		case c == '\\' || c < 0x20:
			d.i = start
			return "", false
		}
	}
	d.i = start
	return "", false
}

// Quoted reads a string as String does and returns it with its quotes.
func (d *Decoder) Quoted() ([]byte, bool) {
	d.space()
	start := d.i
	if _, ok := d.String(); !ok {
		return nil, false
	}
	return d.data[start:d.i], true
}

// Strings reads an array of strings: "[]" is an empty, non-nil slice, as
// json's.
func (d *Decoder) Strings() ([]string, bool) {
	if !d.Skip('[') {
		return nil, false
	}
	out := []string{}
	if d.Skip(']') {
		return out, true
	}
	for {
		s, ok := d.String()
		if !ok {
			return nil, false
		}
		out = append(out, s)
		if d.i < len(d.data) && d.data[d.i] == ',' { // compact JSON: no white space to pass
			d.i++
			continue
		}
		if d.Skip(',') {
			continue
		}
		return out, d.Skip(']')
	}
}

// Int reads an integer: an optional minus and digits, no leading zero, no
// fraction or exponent, in range.
func (d *Decoder) Int() (int, bool) {
	d.space()
	start := d.i
	if d.i < len(d.data) && d.data[d.i] == '-' {
		d.i++
	}
	digits := d.i
	for d.i < len(d.data) && d.data[d.i] >= '0' && d.data[d.i] <= '9' {
		d.i++
	}
	if d.i == digits || (d.data[digits] == '0' && d.i > digits+1) {
		return 0, false
	}
	if d.i < len(d.data) && (d.data[d.i] == '.' || d.data[d.i] == 'e' || d.data[d.i] == 'E') {
		return 0, false
	}
	n, err := strconv.Atoi(d.text[start:d.i])
	return n, err == nil
}

// Object reads an object, calling member for each key with the decoder at
// its value, which member reads; false from member refuses the document.
func (d *Decoder) Object(member func(key string) bool) bool {
	if !d.Skip('{') {
		return false
	}
	if d.Skip('}') {
		return true
	}
	for {
		key, ok := d.String()
		if !ok || !d.Skip(':') || !member(key) {
			return false
		}
		if d.Skip(',') {
			continue
		}
		return d.Skip('}')
	}
}

// Fields reads an object of strings and string lists into the fields named:
// str[key] or list[key], the key spelled exactly (json matches keys without
// regard to case: another spelling is a refusal). A null leaves a string
// alone and makes a list nil, as json does; a repeated key's last value
// wins.
func (d *Decoder) Fields(str map[string]*string, list map[string]*[]string) bool {
	return d.Object(func(key string) bool {
		if d.Null() {
			if l, ok := list[key]; ok {
				*l = nil
				return true
			}
			_, ok := str[key]
			return ok
		}
		if s, ok := str[key]; ok {
			v, ok := d.String()
			*s = v
			return ok
		}
		if l, ok := list[key]; ok {
			v, ok := d.Strings()
			*l = v
			return ok
		}
		return false
	})
}
