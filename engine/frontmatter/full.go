package frontmatter

import (
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// parseFull parses the YAML block with goccy/go-yaml and turns its line/column
// positions into byte offsets.
func parseFull(d *Document, src []byte) {
	y := src[d.YAML.Start:d.YAML.End]
	lines := lineStarts(y)
	offset := func(p *token.Position) int {
		if p == nil || p.Line < 1 || p.Line > len(lines) {
			return d.YAML.Start
		}
		ls := lines[p.Line-1]
		le := len(y)
		if p.Line < len(lines) {
			le = lines[p.Line]
		}
		o := ls
		for col := 1; col < p.Column && o < le; col++ {
			_, size := utf8.DecodeRune(y[o:])
			o += size
		}
		return d.YAML.Start + o
	}
	lineEnd := func(off int) int {
		e, _, _ := lineAt(src, off)
		if e > d.YAML.End {
			e = d.YAML.End
		}
		return e
	}

	file, err := parser.ParseBytes(y, 0, parser.AllowDuplicateMapKey())
	if err != nil {
		span := Span{d.YAML.Start, lineEnd(d.YAML.Start)}
		var msg string
		var se *yaml.SyntaxError
		if !errors.As(err, &se) {
			msg = err.Error()
		} else {
			// Not se.Error(): it prints the source around the error, which
			// for a long line costs hundreds of MB (FuzzBounded found it).
			msg = se.GetMessage()
			if tk := se.GetToken(); tk != nil && tk.Position != nil {
				o := offset(tk.Position)
				span = Span{o, lineEnd(o)}
				if span.End == span.Start && span.Start < d.YAML.End {
					span.End = span.Start + 1
				}
			}
		}
		d.Errors = append(d.Errors, Error{Kind: Syntax, Span: span, Message: "frontmatter YAML: " + msg})
		return
	}
	var body ast.Node
	docs := 0
	for _, doc := range file.Docs {
		if doc == nil || doc.Body == nil {
			continue
		}
		docs++
		body = doc.Body
	}
	if docs == 0 {
		return
	}
	var values []*ast.MappingValueNode
	switch n := body.(type) {
	case *ast.MappingNode:
		values = n.Values
	case *ast.MappingValueNode:
		values = []*ast.MappingValueNode{n}
	}
	if docs > 1 || values == nil {
		d.Errors = append(d.Errors, Error{Kind: NotMapping, Span: Span{d.YAML.Start, lineEnd(d.YAML.Start)},
			Message: "frontmatter must be a YAML mapping of keys to values"})
		return
	}
	// Each value runs to the start of the next key's line (or the block's end).
	for i, mv := range values {
		kt := mv.Key.GetToken()
		keyStart := offset(kt.Position)
		key := keyString(mv.Key)
		keyEnd := keyStart + len(kt.Value)
		if keyEnd > d.YAML.End || string(src[keyStart:keyEnd]) != kt.Value {
			keyEnd = lineEnd(keyStart)
		}
		regionEnd := d.YAML.End
		if i+1 < len(values) {
			regionEnd = lineStartOf(src, offset(values[i+1].Key.GetToken().Position))
		}
		vs := Span{keyEnd, keyEnd}
		if mv.Value != nil {
			if !isNull(mv.Value) {
				// goccy's value columns drift with trailing blanks, so find the value's
				// first byte ourselves: after the colon, or on the next content line.
				s := valueStart(src, keyEnd, regionEnd)
				e := regionEnd
				if isScalar(mv.Value) && lineEnd(s) < e {
					e = lineEnd(s)
				}
				if isScalar(mv.Value) {
					e = s + scalarEnd(src[s:e])
				}
				for e > s && strings.ContainsRune(" \t\r\n", rune(src[e-1])) {
					e--
				}
				vs = Span{s, e}
			}
		}
		d.Fields = append(d.Fields, Field{Key: key, KeySpan: Span{keyStart, keyEnd}, ValueSpan: vs, Value: nodeValue(mv.Value)})
	}
}

func valueStart(src []byte, keyEnd, regionEnd int) int {
	p := keyEnd
	for p < regionEnd && src[p] != ':' && src[p] != '\n' {
		p++
	}
	if p < regionEnd && src[p] == ':' {
		p++
	}
	for p < regionEnd && (src[p] == ' ' || src[p] == '\t') {
		p++
	}
	if p < regionEnd && src[p] != '\n' && src[p] != '\r' && src[p] != '#' {
		return p
	}
	// The value starts on a later line: its first byte that is not a blank.
	_, next, _ := lineAt(src, p)
	for q := next; q < regionEnd; q++ {
		if src[q] != ' ' && src[q] != '\t' && src[q] != '\n' && src[q] != '\r' {
			return q
		}
	}
	return regionEnd
}

func isScalar(n ast.Node) bool {
	switch n.(type) {
	case *ast.StringNode, *ast.IntegerNode, *ast.BoolNode, *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return true
	}
	return false
}

// scalarEnd returns where a one-line scalar ends: after its closing quote, or
// before a trailing comment.
func scalarEnd(line []byte) int {
	if len(line) > 0 && (line[0] == '"' || line[0] == '\'') {
		q := line[0]
		for i := 1; i < len(line); i++ {
			switch {
			case q == '"' && line[i] == '\\':
				i++
			case line[i] == q && q == '\'' && i+1 < len(line) && line[i+1] == '\'':
				i++
			case line[i] == q:
				return i + 1
			}
		}
		return len(line)
	}
	for i := 1; i < len(line); i++ {
		if line[i] == '#' && (line[i-1] == ' ' || line[i-1] == '\t') {
			return i
		}
	}
	return len(line)
}

func isNull(n ast.Node) bool {
	_, ok := n.(*ast.NullNode)
	return ok
}

func keyString(k ast.MapKeyNode) string {
	if s, ok := k.(*ast.StringNode); ok {
		return s.Value
	}
	return k.GetToken().Value
}

// nodeValue decodes a value node. Scalars are read from the node itself so that a
// timestamp stays the string it is on disk.
func nodeValue(n ast.Node) any {
	switch v := n.(type) {
	case nil, *ast.NullNode:
		return nil
	case *ast.StringNode:
		return v.Value
	case *ast.IntegerNode:
		switch i := v.Value.(type) {
		case int64:
			return int(i)
		case uint64:
			if i <= 1<<62 {
				return int(i)
			}
			return float64(i)
		}
	case *ast.BoolNode:
		return v.Value
	case *ast.FloatNode:
		return v.Value
	case *ast.LiteralNode:
		return v.Value.Value
	}
	var out any
	if err := yaml.NodeToValue(n, &out); err != nil {
		return n.String()
	}
	return normalize(out)
}

// normalize turns decoded collections into []any and map[string]any with int
// numbers, so callers see one shape whichever way a value was written.
func normalize(v any) any {
	switch t := v.(type) {
	case uint64:
		return int(t)
	case int64:
		return int(t)
	case []any:
		for i := range t {
			t[i] = normalize(t[i])
		}
		return t
	case map[string]any:
		for k := range t {
			t[k] = normalize(t[k])
		}
		return t
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, x := range t {
			m[toString(k)] = normalize(x)
		}
		return m
	}
	return v
}

func toString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := yaml.Marshal(v)
	return strings.TrimSpace(string(b))
}

func lineStarts(b []byte) []int {
	starts := []int{0}
	for i, c := range b {
		if c == '\n' && i+1 <= len(b) {
			starts = append(starts, i+1)
		}
	}
	return starts
}

func lineStartOf(src []byte, off int) int {
	for off > 0 && src[off-1] != '\n' {
		off--
	}
	return off
}
