package frontmatter

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		has    bool
		fields map[string]any
		errs   []ErrorKind
		body   string
	}{
		{name: "engine note", src: "---\nrevision: 3\nupdated: 2026-10-20T09:12:00.000Z\n---\nPrefer map.\n",
			has: true, fields: map[string]any{"revision": 3, "updated": "2026-10-20T09:12:00.000Z"}, body: "Prefer map.\n"},
		{name: "no frontmatter", src: "Just text\n", body: "Just text\n"},
		{name: "empty file", src: "", body: ""},
		{name: "unterminated", src: "---\nrevision: 3\nbody\n", errs: []ErrorKind{Unterminated}, body: "---\nrevision: 3\nbody\n"},
		{name: "bom", src: "\ufeff---\nrevision: 1\n---\nx", has: true, fields: map[string]any{"revision": 1}, body: "x"},
		{name: "crlf", src: "---\r\nrevision: 2\r\nname: review\r\n---\r\nbody\r\n", has: true,
			fields: map[string]any{"revision": 2, "name": "review"}, body: "body\r\n"},
		{name: "skill with quotes and list", src: "---\nname: \"review\"\ndescription: \"Reviews code: carefully\"\ntags: [a, b]\n---\n",
			has: true, fields: map[string]any{"name": "review", "description": "Reviews code: carefully", "tags": []any{"a", "b"}}},
		{name: "syntax error", src: "---\nrevision: [1\nupdated: x\n---\nb", errs: []ErrorKind{Syntax}, body: "b"},
		{name: "duplicate key", src: "---\nrevision: 1\nrevision: 2\n---\n", has: true,
			fields: map[string]any{"revision": 1}, errs: []ErrorKind{DuplicateKey}},
		{name: "not a mapping", src: "---\n- a\n- b\n---\n", errs: []ErrorKind{NotMapping}},
		{name: "string revision", src: "---\nrevision: three\n---\n", has: true, fields: map[string]any{"revision": "three"}},
		{name: "typed scalars go to full parser", src: "---\nflag: yes\nn: 010\nf: 1.5\nz: null\n---\n", has: true,
			fields: map[string]any{"flag": "yes", "n": 8, "f": 1.5, "z": nil}},
		{name: "dots close", src: "---\na: b\n...\nbody", has: true, fields: map[string]any{"a": "b"}, body: "body"},
		{name: "block scalar", src: "---\nsummary: |\n  one\n  two\nrevision: 4\n---\n", has: true,
			fields: map[string]any{"summary": "one\ntwo\n", "revision": 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Parse([]byte(tt.src))
			if d.Has() != tt.has && !(tt.errs != nil && !tt.has) {
				t.Errorf("Has() = %v, want %v", d.Has(), tt.has)
			}
			for k, want := range tt.fields {
				f := d.Field(k)
				if f == nil {
					t.Errorf("field %q missing; fields %+v", k, d.Fields)
					continue
				}
				if !reflect.DeepEqual(f.Value, want) {
					t.Errorf("field %q = %#v, want %#v", k, f.Value, want)
				}
				if got := tt.src[f.KeySpan.Start:f.KeySpan.End]; !strings.Contains(got, k) {
					t.Errorf("key span of %q covers %q", k, got)
				}
			}
			var kinds []ErrorKind
			for _, e := range d.Errors {
				kinds = append(kinds, e.Kind)
				if e.Span.Start < 0 || e.Span.End > len(tt.src) || e.Span.Start > e.Span.End {
					t.Errorf("error span %v out of range", e.Span)
				}
			}
			if !reflect.DeepEqual(kinds, tt.errs) {
				t.Errorf("errors = %v (%v), want %v", kinds, d.Errors, tt.errs)
			}
			if tt.body != "" && tt.src[d.Body:] != tt.body {
				t.Errorf("body = %q, want %q", tt.src[d.Body:], tt.body)
			}
		})
	}
}

func TestErrorPosition(t *testing.T) {
	src := "---\nrevision: 1\nupdated: [oops\nname: x\n---\n"
	d := Parse([]byte(src))
	if len(d.Errors) != 1 {
		t.Fatalf("errors = %v", d.Errors)
	}
	line := strings.Count(src[:d.Errors[0].Span.Start], "\n") + 1
	if line < 3 || line > 4 {
		t.Errorf("syntax error reported on line %d (%q), want the updated line or the one after", line, src[d.Errors[0].Span.Start:d.Errors[0].Span.End])
	}
}

func TestValueSpans(t *testing.T) {
	src := "---\nrevision: 12\nupdated: 2026-10-20T09:12:00.000Z\nname: \"a b\"\n---\n"
	for _, full := range []bool{false, true} {
		d := &Document{}
		if full {
			d = Parse([]byte(src))
			d.Fields, d.Errors = nil, nil
			parseFull(d, []byte(src))
		} else {
			d = Parse([]byte(src))
		}
		want := map[string]string{"revision": "12", "updated": "2026-10-20T09:12:00.000Z", "name": "\"a b\""}
		for k, w := range want {
			f := d.Field(k)
			if f == nil {
				t.Fatalf("full=%v: %q missing", full, k)
			}
			if got := src[f.ValueSpan.Start:f.ValueSpan.End]; got != w {
				t.Errorf("full=%v: value span of %q = %q, want %q", full, k, got, w)
			}
		}
	}
}

func TestSetFields(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"bump in place", "---\nrevision: 3 # kept\nname: x\nupdated: old\n---\nbody",
			"---\nrevision: 4 # kept\nname: x\nupdated: 2026-11-30T00:00:00Z\n---\nbody"},
		{"add missing", "---\nname: x\n---\nbody", "---\nname: x\nrevision: 4\nupdated: 2026-11-30T00:00:00Z\n---\nbody"},
		{"no frontmatter", "body\n", "---\nrevision: 4\nupdated: 2026-11-30T00:00:00Z\n---\nbody\n"},
		{"crlf kept", "---\r\nrevision: 3\r\n---\r\nbody", "---\r\nrevision: 4\r\nupdated: 2026-11-30T00:00:00Z\r\n---\r\nbody"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Parse([]byte(tt.src))
			edits, ok := SetFields([]byte(tt.src), d, []Set{{"revision", 4}, {"updated", "2026-11-30T00:00:00Z"}})
			if !ok {
				t.Fatal("refused")
			}
			if got := string(Apply([]byte(tt.src), edits)); got != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
	if _, ok := SetFields([]byte("---\na: [\n---\n"), Parse([]byte("---\na: [\n---\n")), []Set{{"revision", 1}}); ok {
		t.Error("a note with broken YAML was rewritten")
	}
	d := Parse([]byte("---\nmachine: m1\nrevision: 1\n---\n"))
	e, _ := SetFields([]byte("---\nmachine: m1\nrevision: 1\n---\n"), d, []Set{{"machine", nil}})
	if got := string(Apply([]byte("---\nmachine: m1\nrevision: 1\n---\n"), e)); got != "---\nrevision: 1\n---\n" {
		t.Errorf("remove: %q", got)
	}
}

func TestFormatScalarRoundTrip(t *testing.T) {
	for _, v := range []any{"plain", "a: b", "yes", "007", "", "#x", "line\nbreak", 42, "é ü"} {
		src := "---\nk: " + FormatScalar(v) + "\n---\n"
		d := Parse([]byte(src))
		f := d.Field("k")
		if f == nil || !reflect.DeepEqual(f.Value, v) {
			t.Errorf("%#v: wrote %q, read back %+v (errors %v)", v, src, f, d.Errors)
		}
	}
}

var fuzzSeeds = []string{
	"---\nrevision: 3\nupdated: 2026-10-20T09:12:00.000Z\n---\nbody\n",
	"---\nrevision: 1\nrevision: 2\n---\n", "---\r\nname: x\r\n---\r\n", "\ufeff---\na: 1\n---\n",
	"---\na: [1\n---\n", "---\n- x\n---\n", "---\nk: yes\n---\n", "---\nk: 0x1F\n---\n",
	"---\nk: a #c\n---\n", "---\n", "", "---\n\n---\n", "---\nk:\n---\n", "---\nk: é\n---\n",
}

// FuzzParse holds the parser to its promises on any input: it never panics, every
// span lies inside the source, and the flat fast path agrees with the full parser.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		d := Parse(src)
		in := func(s Span) bool { return 0 <= s.Start && s.Start <= s.End && s.End <= len(src) }
		if d.Body < 0 || d.Body > len(src) {
			t.Fatalf("body %d out of range", d.Body)
		}
		for _, fl := range d.Fields {
			if !in(fl.KeySpan) || !in(fl.ValueSpan) {
				t.Fatalf("field %q spans %v %v out of range", fl.Key, fl.KeySpan, fl.ValueSpan)
			}
		}
		for _, e := range d.Errors {
			if !in(e.Span) {
				t.Fatalf("error span %v out of range", e.Span)
			}
		}
		if !d.Has() {
			return
		}
		y := src[d.YAML.Start:d.YAML.End]
		flat, ok := parseFlat(y, d.YAML.Start)
		if !ok {
			return
		}
		full := &Document{YAML: d.YAML}
		parseFull(full, src)
		if len(full.Errors) > 0 {
			t.Fatalf("fast path accepted %q, full parser refused: %v", y, full.Errors)
		}
		if len(full.Fields) != len(flat) {
			t.Fatalf("fast path read %d fields, full parser %d, in %q", len(flat), len(full.Fields), y)
		}
		for i := range flat {
			a, b := flat[i], full.Fields[i]
			if a.Key != b.Key || fmt.Sprintf("%T %v", a.Value, a.Value) != fmt.Sprintf("%T %v", b.Value, b.Value) || a.KeySpan != b.KeySpan || a.ValueSpan != b.ValueSpan {
				t.Fatalf("fast %+v != full %+v in %q", a, b, y)
			}
		}
	})
}

// TestFlatAgreesOnNumberLikeScalars holds the fast path to the full parser on
// the scalars where YAML typing is subtle.
func TestFlatAgreesOnNumberLikeScalars(t *testing.T) {
	for _, v := range []string{"3e5", "1_000", "1:30", "0o17", "017", "+12", "-3", "3f9c2a7e5b10d4c8", "2026-10-20",
		"2026-10-20T09:12:00.000Z", "1.5e-3", ".5", "5.", "0x1F", "0b101", "12abc", "1e", "e5", "1.2.3", "190:20:30", "Yes", "~"} {
		src := []byte("---\nk: " + v + "\n---\n")
		d := Parse(src)
		full := &Document{YAML: d.YAML}
		parseFull(full, src)
		if len(full.Fields) != 1 || len(d.Fields) != 1 {
			t.Errorf("%s: fields %v / %v", v, d.Fields, full.Fields)
			continue
		}
		a, b := d.Fields[0].Value, full.Fields[0].Value
		if fmt.Sprintf("%T %v", a, a) != fmt.Sprintf("%T %v", b, b) {
			t.Errorf("%s: parsed as %T %v, the full parser says %T %v", v, a, a, b, b)
		}
	}
}

// FuzzPeekFlat holds PeekFlat to Parse: when it reads a note in place, the
// body starts where Parse says and the fields are Parse's, in order, with the
// same keys, spans and values; it declines every note Parse finds an error in.
func FuzzPeekFlat(f *testing.F) {
	for _, s := range append([]string{"---\nk: \"q\"\n---\n", "---\n# c\n\nk: v  \n---\n", "no frontmatter\n",
		"\ufeffbody", "---\n\n...\nbody", "---\nk: é\nn: 007\n---\n"}, fuzzSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		var peeked []FlatField
		body, ok := PeekFlat(src, func(fl FlatField) { peeked = append(peeked, fl) })
		d := Parse(src)
		if !ok {
			if len(d.Errors) == 0 && d.Has() && parseFlatAccepts(d, src) {
				t.Fatalf("%q: declined, but Parse reads it on the fast path", src)
			}
			return
		}
		if body != d.Body {
			t.Fatalf("%q: body at %d, Parse says %d", src, body, d.Body)
		}
		if len(peeked) != len(d.Fields) {
			t.Fatalf("%q: %d fields, Parse %d", src, len(peeked), len(d.Fields))
		}
		for i, fl := range peeked {
			pf := d.Fields[i]
			var value any = string(src[fl.Value.Start:fl.Value.End])
			if fl.IsInt {
				value = fl.Int
			}
			if string(src[fl.Key.Start:fl.Key.End]) != pf.Key || fl.Key != pf.KeySpan || fl.Value != pf.ValueSpan || value != pf.Value {
				t.Fatalf("%q: field %d peeked %+v (%#v), Parse %+v", src, i, fl, value, pf)
			}
		}
		for _, e := range d.Errors {
			if e.Kind != DuplicateKey {
				t.Fatalf("%q: peeked, but Parse finds %v", src, d.Errors)
			}
		}
	})
}

// parseFlatAccepts reports whether Parse read d's YAML on the fast path.
func parseFlatAccepts(d *Document, src []byte) bool {
	y := src[d.YAML.Start:d.YAML.End]
	_, ok := parseFlat(y, d.YAML.Start)
	return ok && checkSize(y, d.YAML.Start) == nil
}

// TestPeekFlatAllocatesNothing: reading the frontmatter the engine writes in
// place makes no garbage (a load reads every note so).
func TestPeekFlatAllocatesNothing(t *testing.T) {
	src := []byte("---\nrevision: 300\nupdated: 2026-10-20T09:12:00.000Z\nmachine: 3f9c2a7e\n---\nbody\n")
	n := 0
	allocs := testing.AllocsPerRun(100, func() {
		if _, ok := PeekFlat(src, func(fl FlatField) { n += fl.Int }); !ok {
			t.Fatal("declined the engine's own frontmatter")
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations a note; want none", allocs)
	}
}
