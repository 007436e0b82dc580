package session

import (
	"bytes"
	"strings"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
)

// Document symbols of a note: its frontmatter keys as properties, then the
// headings of its body as a hierarchy (a heading's span runs to the next
// heading of the same or a higher level). Workspace symbols: every note of a
// tree by key, matched on its Ref() ("agent/larry/notes/style.md"),
// case-insensitively, as a substring (listed first) or a subsequence; at most
// MaxWorkspaceSymbols.

// MaxWorkspaceSymbols caps a workspace symbol answer: a client asks again as
// the user types, and no one reads past the first few hundred.
const MaxWorkspaceSymbols = 500

// SymbolKind says what a document symbol is.
type SymbolKind int

const (
	SymbolProperty SymbolKind = iota // a frontmatter key
	SymbolHeading                    // a heading of the body
)

// DocumentSymbol is one symbol of a note, in byte offsets of its source.
type DocumentSymbol struct {
	Name      string
	Kind      SymbolKind
	Detail    string           // a property's value, first line
	Span      frontmatter.Span // the whole symbol (a heading: its section)
	Selection frontmatter.Span // its name (a heading: its line)
	Children  []DocumentSymbol
}

// DocumentSymbols are the symbols of a note's source.
func DocumentSymbols(src []byte) []DocumentSymbol {
	doc := frontmatter.Parse(src)
	var out []DocumentSymbol
	if doc.Has() {
		for _, f := range doc.Fields {
			name := f.Key
			if strings.TrimSpace(name) == "" {
				name = `""`
			}
			out = append(out, DocumentSymbol{Name: name, Kind: SymbolProperty,
				Detail:    firstLine(string(src[f.ValueSpan.Start:f.ValueSpan.End]), 80),
				Span:      frontmatter.Span{Start: f.KeySpan.Start, End: max(f.KeySpan.End, f.ValueSpan.End)},
				Selection: f.KeySpan})
		}
	}
	return append(out, headingSymbols(src, doc.Body)...)
}

// headingParser finds blocks only: headings need no inline parsing, and
// goldmark's inline link parsing is quadratic on pathological input such as
// thousands of unclosed "[a](". Shared: a parser keeps no state between calls.
var headingParser = sync.OnceValue(func() parser.Parser {
	return parser.NewParser(parser.WithBlockParsers(parser.DefaultBlockParsers()...))
})

// heading is one heading of a body, in src offsets.
type heading struct {
	level      int
	name       string
	line       frontmatter.Span // the heading's line(s), for the selection
	start, end int              // the section: from the heading to the next of its level or higher
}

// headingSymbols returns the body's headings as nested symbols.
func headingSymbols(src []byte, body int) []DocumentSymbol {
	b := src[body:]
	if !bytes.Contains(b, []byte("#")) && !bytes.Contains(b, []byte("\n=")) && !bytes.Contains(b, []byte("\n-")) {
		return nil
	}
	root := headingParser().Parse(text.NewReader(b))
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
	var convert func([]*node) []DocumentSymbol
	convert = func(ns []*node) []DocumentSymbol {
		var out []DocumentSymbol
		for _, nd := range ns {
			out = append(out, DocumentSymbol{
				Name: nd.h.name, Kind: SymbolHeading,
				Span: frontmatter.Span{Start: nd.h.start, End: nd.h.end}, Selection: nd.h.line,
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

// WorkspaceSymbols are the notes of the snapshot's tree that match query.
func WorkspaceSymbols(snap *Snapshot, query string) []*engine.Note {
	q := strings.ToLower(strings.TrimSpace(query))
	idx := snap.tree.index.of(snap.Memory)
	var substr, subseq []*engine.Note
	for i, e := range idx.notes {
		ref := idx.refs[i]
		switch {
		case q == "" || strings.Contains(ref, q):
			substr = append(substr, e)
		case len(subseq) < MaxWorkspaceSymbols && subsequence(ref, q):
			subseq = append(subseq, e)
		}
		if len(substr) >= MaxWorkspaceSymbols {
			break
		}
	}
	all := append(substr, subseq...)
	if len(all) > MaxWorkspaceSymbols {
		all = all[:MaxWorkspaceSymbols]
	}
	return all
}

// symbolIndexCache holds a tree's symbol index: built once per version of the
// tree, not per keystroke of a symbol search, and dropped with the tree.
type symbolIndexCache struct {
	mu  sync.Mutex
	idx *symbolIndex
}

// symbolIndex is every note of a tree, sorted, with its Ref() in lower case.
type symbolIndex struct {
	version uint64
	notes   []*engine.Note
	refs    []string
}

func (c *symbolIndexCache) of(m *engine.Memory) *symbolIndex {
	v := m.Version()
	c.mu.Lock()
	idx := c.idx
	c.mu.Unlock()
	if idx != nil && idx.version == v {
		return idx
	}
	notes := m.Notes()
	idx = &symbolIndex{version: v, notes: notes, refs: make([]string, len(notes))}
	for i, e := range notes {
		idx.refs[i] = strings.ToLower(e.Ref())
	}
	c.mu.Lock()
	c.idx = idx
	c.mu.Unlock()
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
