package lsp

import (
	"bytes"
	"strings"
	"sync"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
)

// Document symbols of a note: its frontmatter keys as Property symbols, then the
// headings of its body as a hierarchy (a heading's range runs to the next heading of
// the same or a higher level). Workspace symbols: every note of the session's memory
// by key, matched on its Ref() ("agent/larry/notes/style.md"), case-insensitively, as
// a substring (listed first) or a subsequence; at most maxWorkspaceSymbols.

// maxWorkspaceSymbols caps a workspace/symbol answer: a client asks again as the
// user types, and no one reads past the first few hundred.
const maxWorkspaceSymbols = 500

func (s *Server) documentSymbol(_ *glsp.Context, p *protocol.DocumentSymbolParams) (any, error) {
	var src []byte
	var m *Mapper
	if d, ok := s.Docs.Get(p.TextDocument.URI); ok {
		src, m = d.Text, d.Mapper()
	} else if n, ok := s.Note(p.TextDocument.URI); ok {
		src, m = n.Note.Src, n.Mapper
	} else {
		return []protocol.DocumentSymbol{}, nil
	}
	doc := frontmatter.Parse(src)
	out := []protocol.DocumentSymbol{}
	if doc.Has() {
		for _, f := range doc.Fields {
			end := max(f.KeySpan.End, f.ValueSpan.End)
			rng, err := m.OffsetRange(f.KeySpan.Start, end)
			if err != nil {
				continue
			}
			sel, err := m.OffsetRange(f.KeySpan.Start, f.KeySpan.End)
			if err != nil {
				continue
			}
			name := f.Key
			if strings.TrimSpace(name) == "" {
				name = `""`
			}
			sym := protocol.DocumentSymbol{Name: name, Kind: protocol.SymbolKindProperty, Range: rng, SelectionRange: sel}
			if detail := firstLine(string(src[f.ValueSpan.Start:f.ValueSpan.End]), 80); detail != "" {
				sym.Detail = &detail
			}
			out = append(out, sym)
		}
	}
	return append(out, headingSymbols(src, doc.Body, m)...), nil
}

// headingParser finds blocks only: headings need no inline parsing, and
// goldmark's inline link parsing is quadratic on pathological input such as
// thousands of unclosed "[a](". Shared: a parser keeps no state between calls.
var headingParser = parser.NewParser(parser.WithBlockParsers(parser.DefaultBlockParsers()...))

// heading is one heading of a body, in src offsets.
type heading struct {
	level      int
	name       string
	line       frontmatter.Span // the heading's line(s), for the selection range
	start, end int              // the section: from the heading to the next of its level or higher
}

// headingSymbols returns the body's headings as nested symbols.
func headingSymbols(src []byte, body int, m *Mapper) []protocol.DocumentSymbol {
	b := src[body:]
	if !bytes.Contains(b, []byte("#")) && !bytes.Contains(b, []byte("\n=")) && !bytes.Contains(b, []byte("\n-")) {
		return nil
	}
	root := headingParser.Parse(text.NewReader(b))
	var hs []heading
	for c := root.FirstChild(); c != nil; c = c.NextSibling() {
		h, ok := c.(*ast.Heading)
		if !ok || h.Lines().Len() == 0 {
			continue
		}
		lines := h.Lines()
		first, last := lines.At(0), lines.At(lines.Len()-1)
		ls := lineStart(b, first.Start)
		le := lineEnd(b, last.Stop)
		if !isATX(b[ls:]) {
			le = lineEnd(b, nextLine(b, le)) // the === or --- line
		}
		var name strings.Builder
		for i := 0; i < lines.Len(); i++ {
			if i > 0 {
				name.WriteByte(' ')
			}
			seg := lines.At(i)
			name.Write(bytes.TrimSpace(seg.Value(b)))
		}
		n := strings.TrimSpace(strings.TrimRight(name.String(), "#"))
		if n == "" {
			n = strings.Repeat("#", h.Level)
		}
		hs = append(hs, heading{level: h.Level, name: n, line: frontmatter.Span{Start: body + ls, End: body + le}, start: body + ls})
	}
	// A section ends where the next heading of its level or higher starts.
	for i := range hs {
		hs[i].end = len(src)
		for j := i + 1; j < len(hs); j++ {
			if hs[j].level <= hs[i].level {
				hs[i].end = trimEndSpace(src, hs[i].line.End, hs[j].start)
				break
			}
		}
		if hs[i].end == len(src) {
			hs[i].end = trimEndSpace(src, hs[i].line.End, len(src))
		}
	}
	// Nest: each heading goes under the closest preceding heading of a lower level.
	type node struct {
		h        heading
		children []*node
	}
	var top []*node
	var stack []*node
	for _, h := range hs {
		nd := &node{h: h}
		for len(stack) > 0 && stack[len(stack)-1].h.level >= h.level {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			top = append(top, nd)
		} else {
			parent := stack[len(stack)-1]
			parent.children = append(parent.children, nd)
		}
		stack = append(stack, nd)
	}
	var convert func([]*node) []protocol.DocumentSymbol
	convert = func(ns []*node) []protocol.DocumentSymbol {
		var out []protocol.DocumentSymbol
		for _, nd := range ns {
			rng, err := m.OffsetRange(nd.h.start, nd.h.end)
			if err != nil {
				continue
			}
			sel, err := m.OffsetRange(nd.h.line.Start, nd.h.line.End)
			if err != nil {
				continue
			}
			out = append(out, protocol.DocumentSymbol{
				Name: nd.h.name, Kind: protocol.SymbolKindString, Range: rng, SelectionRange: sel,
				Children: convert(nd.children),
			})
		}
		return out
	}
	return convert(top)
}

func lineStart(b []byte, i int) int {
	for i > 0 && b[i-1] != '\n' && b[i-1] != '\r' {
		i--
	}
	return i
}

func lineEnd(b []byte, i int) int {
	for i < len(b) && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}

func nextLine(b []byte, i int) int {
	i = lineEnd(b, i)
	if i < len(b) && b[i] == '\r' {
		i++
	}
	if i < len(b) && b[i] == '\n' {
		i++
	}
	return i
}

// isATX reports whether a heading line is an ATX heading ("# title"); a setext
// heading has its underline (=== or ---) on the next line.
func isATX(line []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(line, " "), []byte("#"))
}

// trimEndSpace moves end back over white space, not before min.
func trimEndSpace(src []byte, min, end int) int {
	for end > min && (src[end-1] == ' ' || src[end-1] == '\t' || src[end-1] == '\n' || src[end-1] == '\r') {
		end--
	}
	return end
}

// firstLine is s's first line, trimmed and cut to n runes.
func firstLine(s string, n int) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i] + " …"
	}
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}

func (s *Server) workspaceSymbol(_ *glsp.Context, p *protocol.WorkspaceSymbolParams) ([]protocol.SymbolInformation, error) {
	m, err := s.Memory()
	if err != nil || m == nil {
		return []protocol.SymbolInformation{}, nil
	}
	q := strings.ToLower(strings.TrimSpace(p.Query))
	idx := symbolIndexOf(m)
	var substr, subseq []*engine.Note
	for i, e := range idx.entries {
		ref := idx.refs[i]
		switch {
		case q == "" || strings.Contains(ref, q):
			substr = append(substr, e)
		case len(subseq) < maxWorkspaceSymbols && subsequence(ref, q):
			subseq = append(subseq, e)
		}
		if len(substr) >= maxWorkspaceSymbols {
			break
		}
	}
	all := append(substr, subseq...)
	if len(all) > maxWorkspaceSymbols {
		all = all[:maxWorkspaceSymbols]
	}
	out := make([]protocol.SymbolInformation, 0, len(all))
	for _, e := range all {
		container := e.Dimension.String()
		if e.Owner != "" {
			container += "/" + e.Owner
		}
		out = append(out, protocol.SymbolInformation{
			Name:          e.Key,
			Kind:          protocol.SymbolKindFile,
			Location:      protocol.Location{URI: PathToURI(e.Path), Range: protocol.Range{}},
			ContainerName: &container,
		})
	}
	return out, nil
}

// symbolIndex is every note of a tree, sorted, with its Ref() in lower case:
// built once per version of the tree, not per keystroke of a symbol search.
type symbolIndex struct {
	version uint64
	entries []*engine.Note
	refs    []string
}

var symbolIndexes sync.Map // *engine.Memory → *symbolIndex

func symbolIndexOf(m *engine.Memory) *symbolIndex {
	v := m.Version()
	if x, ok := symbolIndexes.Load(m); ok && x.(*symbolIndex).version == v {
		return x.(*symbolIndex)
	}
	entries := m.Notes()
	idx := &symbolIndex{version: v, entries: entries, refs: make([]string, len(entries))}
	for i, e := range entries {
		idx.refs[i] = strings.ToLower(e.Ref())
	}
	symbolIndexes.Store(m, idx)
	return idx
}

// subsequence reports whether q's runes appear in s in order.
func subsequence(s, q string) bool {
	qr := []rune(q)
	i := 0
	for _, r := range s {
		if i == len(qr) {
			break
		}
		if r == qr[i] {
			i++
		}
	}
	return i == len(qr)
}
