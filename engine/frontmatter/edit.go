package frontmatter

import (
	"bytes"

	"github.com/goccy/go-yaml"
	"sort"
	"strconv"
	"strings"
)

// Edit replaces the bytes of Span with Text.
type Edit struct {
	Span Span
	Text string
}

// Apply returns src with edits applied. Edits must not overlap.
func Apply(src []byte, edits []Edit) []byte {
	sorted := append([]Edit(nil), edits...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Span.Start < sorted[j].Span.Start })
	var out bytes.Buffer
	out.Grow(len(src) + 64)
	pos := 0
	for _, e := range sorted {
		out.Write(src[pos:e.Span.Start])
		out.WriteString(e.Text)
		pos = e.Span.End
	}
	out.Write(src[pos:])
	return out.Bytes()
}

// Set is one key to set (Value != nil) or remove (Value == nil).
type Set struct {
	Key   string
	Value any // int, string or nil to remove
}

// SetFields returns the edits that give src's frontmatter the values in sets,
// touching nothing else: other keys, comments, order and line ends stay byte for
// byte. A note without frontmatter gets a new block in front of its body. Keys
// not present yet are added, in the order given, after the last existing key.
// It refuses (ok=false) a note whose frontmatter is unterminated or unparseable:
// such a note is never rewritten silently.
func SetFields(src []byte, d *Document, sets []Set) (edits []Edit, ok bool) {
	nl := "\n"
	if d.CRLF || (!d.Present && bytes.Contains(src, []byte("\r\n"))) {
		nl = "\r\n"
	}
	if !d.Present {
		var b strings.Builder
		b.WriteString("---" + nl)
		for _, s := range sets {
			if s.Value != nil {
				b.WriteString(s.Key + ": " + FormatScalar(s.Value) + nl)
			}
		}
		b.WriteString("---" + nl)
		return []Edit{{Span: Span{d.Body, d.Body}, Text: b.String()}}, true
	}
	if !d.Terminated || hasKind(d.Errors, Syntax) || hasKind(d.Errors, NotMapping) {
		return nil, false
	}
	var add strings.Builder
	for _, s := range sets {
		f := d.Field(s.Key)
		switch {
		case f != nil && s.Value == nil:
			ls := lineStartOf(src, f.KeySpan.Start)
			_, next, _ := lineAt(src, f.ValueSpan.End)
			edits = append(edits, Edit{Span: Span{ls, next}})
		case f != nil:
			edits = append(edits, Edit{Span: f.ValueSpan, Text: FormatScalar(s.Value)})
			if f.ValueSpan.Len() == 0 {
				edits[len(edits)-1].Text = " " + FormatScalar(s.Value)
				if f.ValueSpan.Start < len(src) && src[f.ValueSpan.Start] == ':' {
					edits[len(edits)-1].Span = Span{f.ValueSpan.Start + 1, f.ValueSpan.Start + 1}
				}
			}
		case s.Value != nil:
			add.WriteString(s.Key + ": " + FormatScalar(s.Value) + nl)
		}
	}
	if add.Len() > 0 {
		// New keys go just before the closing delimiter line.
		edits = append(edits, Edit{Span: Span{d.Close.Start, d.Close.Start}, Text: add.String()})
	}
	return edits, true
}

func hasKind(errs []Error, k ErrorKind) bool {
	for _, e := range errs {
		if e.Kind == k {
			return true
		}
	}
	return false
}

// FormatScalar writes v as a YAML scalar: integers and safe strings plain,
// anything else double-quoted.
func FormatScalar(v any) string {
	switch t := v.(type) {
	case int:
		return strconv.Itoa(t)
	case string:
		if val, ok := flatScalar([]byte(t)); ok && val == any(t) {
			return t
		}
		return strconv.Quote(t)
	case bool:
		return strconv.FormatBool(t)
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64)
	case []any, map[string]any, []map[string]any:
		// Collections are written in flow style so that they stay on one line.
		if b, err := yaml.MarshalWithOptions(t, yaml.Flow(true)); err == nil {
			return strings.TrimSpace(string(b))
		}
	}
	return strconv.Quote(toString(v))
}

// Compose builds a whole note: a frontmatter block with fields in order, then body.
func Compose(fields []Set, body []byte) []byte {
	d := &Document{}
	edits, _ := SetFields(body, d, fields)
	return Apply(body, edits)
}
