package engine

import (
	"bytes"
	"unicode/utf8"
)

// decodeFlat decodes data, a JSON object whose members are strings, arrays
// of strings or null, into the fields named: str[key] or list[key], the key
// spelled exactly. It is encoding/json's answer for the configurations that
// are nothing more (a roster of 1,000 agents decodes at about a tenth of
// json.Unmarshal's instructions: no validation pass, no reflection) and
// reports false for anything else: another key or spelling, an escape, a
// control character or invalid UTF-8 in a string, a number, a nested
// object, trailing data. The caller then decodes with json.Unmarshal into a
// fresh value, so every other file, and every error, reads as it did.
// Decoding into a slice replaces it (json's: "[]" is an empty, non-nil
// slice, null is nil); a repeated key's last value wins, as json's does.
func decodeFlat(data []byte, str map[string]*string, list map[string]*[]string) bool {
	if !utf8.Valid(data) {
		return false
	}
	// The strings are substrings of one copy: one allocation for the file.
	d := flatDecoder{data: data, text: string(data)}
	if !d.skip('{') {
		return false
	}
	if d.skip('}') {
		return d.end()
	}
	for {
		key, ok := d.string()
		if !ok || !d.skip(':') {
			return false
		}
		d.space()
		switch {
		case d.null(): // json leaves a string alone on null
			if l, ok := list[key]; ok {
				*l = nil
			} else if _, ok := str[key]; !ok {
				return false
			}
		case str[key] != nil:
			v, ok := d.string()
			if !ok {
				return false
			}
			*str[key] = v
		case list[key] != nil:
			v, ok := d.strings()
			if !ok {
				return false
			}
			*list[key] = v
		default:
			return false
		}
		if d.skip(',') {
			continue
		}
		if d.skip('}') {
			return d.end()
		}
		return false
	}
}

// decodeFlat is the roster's fast path (decodeFlat): agents and shared.
// False leaves r zero.
func (r *Roster) decodeFlat(data []byte) bool {
	if decodeFlat(data, nil, map[string]*[]string{"agents": &r.Agents, "shared": &r.Shared}) {
		return true
	}
	*r = Roster{}
	return false
}

// decodeFlat is the binding's fast path (decodeFlat): every field but
// journals. False leaves b zero.
func (b *Binding) decodeFlat(data []byte) bool {
	if decodeFlat(data,
		map[string]*string{"task": &b.Task, "summarizer": &b.Summarizer, "promote": &b.Promote, "transcripts": &b.Transcripts},
		map[string]*[]string{"tasks": &b.Tasks, "agents": &b.Agents, "shared": &b.Shared}) {
		return true
	}
	*b = Binding{}
	return false
}

type flatDecoder struct {
	data []byte
	text string // data's copy
	i    int
}

func (d *flatDecoder) space() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// skip passes white space and c, reporting whether c came.
func (d *flatDecoder) skip(c byte) bool {
	d.space()
	if d.i < len(d.data) && d.data[d.i] == c {
		d.i++
		return true
	}
	return false
}

func (d *flatDecoder) end() bool {
	d.space()
	return d.i == len(d.data)
}

func (d *flatDecoder) null() bool {
	if len(d.data)-d.i >= 4 && string(d.data[d.i:d.i+4]) == "null" {
		d.i += 4
		return true
	}
	return false
}

// string reads a string without escapes (after white space).
func (d *flatDecoder) string() (string, bool) {
	if !d.skip('"') {
		return "", false
	}
	n := bytes.IndexByte(d.data[d.i:], '"')
	if n < 0 {
		return "", false
	}
	for _, c := range d.data[d.i : d.i+n] {
		if c == '\\' || c < 0x20 {
			return "", false
		}
	}
	v := d.text[d.i : d.i+n]
	d.i += n + 1
	return v, true
}

// strings reads an array of strings.
func (d *flatDecoder) strings() ([]string, bool) {
	if !d.skip('[') {
		return nil, false
	}
	out := []string{}
	if d.skip(']') {
		return out, true
	}
	for {
		s, ok := d.string()
		if !ok {
			return nil, false
		}
		out = append(out, s)
		if d.skip(',') {
			continue
		}
		if d.skip(']') {
			return out, true
		}
		return nil, false
	}
}
