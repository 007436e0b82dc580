// Package mdlinks finds the Markdown links of a note body with their byte
// positions in the source, and resolves a link's destination to the note file it
// names (NoteTarget). goldmark keeps the raw destination of a link but no
// position for inline nodes, only the segments of their text; the positions are
// recovered from those segments and the source around them.
package mdlinks

import (
	"bytes"
	"net/url"
	"path/filepath"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/magicfrog/mf-lsp/engine/frontmatter"
)

// mdParser is shared: goldmark's parser keeps no state between Parse calls.
var mdParser = sync.OnceValue(goldmark.DefaultParser)

// Link is one link of a body. Spans are byte offsets in the whole source.
type Link struct {
	// Span runs from "[" to ")"; for a reference link it is its "[label]" (the
	// part that names the reference is left out).
	Span frontmatter.Span
	// Label runs from the first to the last character of the label's text, so
	// markup at its edges ("*" of "[*x*]") is outside it; for "[](dest)" it is
	// empty, just after "[".
	Label frontmatter.Span
	// DestSpan is where Dest stands in the source. A reference link's
	// destination is in its definition, of which goldmark keeps no position:
	// DestSpan is then the zero Span.
	DestSpan  frontmatter.Span
	Dest      string // as goldmark reads it (for a reference link, the definition's)
	Reference bool
	// Wiki is a [[wikilink]] (WikiLinks): Dest is a key, not a path.
	Wiki bool
}

// MaxLinkOpeners bounds the "](" a body may hold for its links to be found.
const MaxLinkOpeners = 2000

// Links finds the links of src[body:], in source order. Links in code spans and
// code blocks are not links; autolinks (<https://…>) are not listed. A link
// whose position cannot be recovered (a destination written with escapes or
// entities does not stand in the source as goldmark reads it) is left out.
//
// A body with more than MaxLinkOpeners "](" is not searched: goldmark's inline
// parsing is quadratic in unclosed links ("[a](" twenty thousand times takes
// seconds), and this runs on every keystroke. No memory note has that many.
func Links(src []byte, body int) []Link {
	b := src[body:]
	// Inline links need "](", reference links a "]:" definition.
	if !bytes.Contains(b, []byte("](")) && !bytes.Contains(b, []byte("]:")) {
		return nil
	}
	if bytes.Count(b, []byte("](")) > MaxLinkOpeners {
		return nil
	}
	root := mdParser().Parse(text.NewReader(b))
	var out []Link
	cursor := map[ast.Node]int{} // per block: where the next link's search starts
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		link, ok := n.(*ast.Link)
		if !ok {
			return ast.WalkContinue, nil
		}
		if l, ok := locate(b, link, cursor); ok {
			l.Span = shift(l.Span, body)
			l.Label = shift(l.Label, body)
			if !l.Reference {
				l.DestSpan = shift(l.DestSpan, body)
			}
			out = append(out, l)
		}
		return ast.WalkSkipChildren, nil
	})
	return out
}

func shift(s frontmatter.Span, by int) frontmatter.Span {
	return frontmatter.Span{Start: s.Start + by, End: s.End + by}
}

// locate finds a link in src (the parsed bytes): the label's text through its
// segments, the "[" before it, the destination after it and the ")" after that.
// cursor keeps, per block, the end of the last link found, so that a link with
// no label is not found again where an earlier one stands.
func locate(src []byte, link *ast.Link, cursor map[ast.Node]int) (Link, bool) {
	block := link.Parent()
	for block != nil && block.Type() != ast.TypeBlock {
		block = block.Parent()
	}
	if block == nil || block.Lines().Len() == 0 {
		return Link{}, false
	}
	lines := block.Lines()
	bStart, bEnd := lines.At(0).Start, lines.At(lines.Len()-1).Stop
	from := max(cursor[block], bStart)
	lStart, lEnd, hasLabel := textRange(link)
	if hasLabel {
		from = max(from, lEnd)
	}
	if from > bEnd {
		return Link{}, false
	}
	l := Link{Dest: string(link.Destination), Reference: link.Reference != nil}
	if l.Reference {
		if !hasLabel {
			return Link{}, false
		}
		start, end := lStart, lEnd
		if i := bytes.LastIndexByte(src[bStart:lStart], '['); i >= 0 {
			start = bStart + i
		}
		if j := bytes.IndexByte(src[lEnd:bEnd], ']'); j >= 0 {
			end = lEnd + j + 1
		}
		cursor[block] = end
		l.Span = frontmatter.Span{Start: start, End: end}
		l.Label = frontmatter.Span{Start: lStart, End: lEnd}
		return l, true
	}
	i := bytes.Index(src[from:bEnd], append([]byte("]("), link.Destination...))
	dest := from + i + 2
	if i < 0 {
		i = bytes.Index(src[from:bEnd], link.Destination)
		if i < 0 {
			return Link{}, false
		}
		dest = from + i
	}
	destEnd := dest + len(link.Destination)
	openAt := lStart
	if !hasLabel {
		openAt = dest
	}
	start := openAt
	if k := bytes.LastIndexByte(src[bStart:openAt], '['); k >= 0 {
		start = bStart + k
	}
	end := destEnd
	if k := bytes.IndexByte(src[destEnd:bEnd], ')'); k >= 0 {
		end = destEnd + k + 1
	}
	cursor[block] = end
	l.Span = frontmatter.Span{Start: start, End: end}
	l.DestSpan = frontmatter.Span{Start: dest, End: destEnd}
	l.Label = frontmatter.Span{Start: lStart, End: lEnd}
	if !hasLabel {
		l.Label = frontmatter.Span{Start: start + 1, End: start + 1}
	}
	return l, true
}

// textRange is the byte range of the text inside a node.
func textRange(n ast.Node) (start, end int, ok bool) {
	start, end = -1, -1
	_ = ast.Walk(n, func(x ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		t, isText := x.(*ast.Text)
		if !isText {
			return ast.WalkContinue, nil
		}
		if start < 0 || t.Segment.Start < start {
			start = t.Segment.Start
		}
		end = max(end, t.Segment.Stop)
		return ast.WalkContinue, nil
	})
	return start, end, start >= 0
}

// NoteTarget resolves a link destination to the absolute path of the note it
// names, relative to the folder of the note at notePath; ok is false for URLs,
// anchors, absolute paths and links to anything but a .md file.
func NoteTarget(notePath, dest string) (string, bool) {
	if dest == "" || strings.HasPrefix(dest, "#") || strings.HasPrefix(dest, "/") || strings.HasPrefix(dest, `\`) {
		return "", false
	}
	u, err := url.Parse(dest)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Opaque != "" {
		return "", false
	}
	if !strings.EqualFold(filepath.Ext(u.Path), ".md") {
		return "", false
	}
	return filepath.Join(filepath.Dir(notePath), filepath.FromSlash(u.Path)), true
}

// WikiLinks finds the [[wikilinks]] of src[body:], in source order: "[[key]]"
// and "[[key|label]]". Dest is the key as written (before any "|" or "#"),
// trimmed; DestSpan is where it stands, Span runs from "[[" to "]]", Label is
// the text after "|" (else the key). Wikilinks in fenced code blocks and code
// spans are not links, nor is one that spans lines. Resolution is by key
// (WikiKey), not by path.
//
// It is on the path of every navigation request after an edit (a link at the
// cursor, the buffer's links): a line is found with bytes.IndexByte and read
// for links only when it holds "[[", with no copy of it, so a 45 KB buffer
// costs a scan of its bytes rather than a string per line.
func WikiLinks(src []byte, body int) []Link {
	b := src[body:]
	if !bytes.Contains(b, []byte("[[")) {
		return nil
	}
	var out []Link
	var fence []byte // the open fence's first three bytes; nil outside one
	for at := 0; at < len(b); {
		end := len(b)
		if i := bytes.IndexByte(b[at:], '\n'); i >= 0 {
			end = at + i
		}
		line := b[at:end]
		t := bytes.TrimLeft(line, " ")
		switch {
		case fence != nil:
			if bytes.HasPrefix(t, fence) {
				fence = nil
			}
		case bytes.HasPrefix(t, []byte("```")), bytes.HasPrefix(t, []byte("~~~")):
			fence = t[:3:3]
		case len(line)-len(t) >= 4: // an indented code block
		case bytes.Contains(line, []byte("[[")):
			out = wikiInLine(out, line, body+at)
		}
		at = end + 1
	}
	return out
}

// wikiInLine appends the wikilinks of one line starting at offset base to out.
func wikiInLine(out []Link, line []byte, base int) []Link {
	inCode := false
	for i := 0; i < len(line); i++ {
		// Only a backquote, or a "[" outside a code span, changes anything:
		// the bytes between are skipped at memchr's speed.
		stops := "`["
		if inCode {
			stops = "`"
		}
		k := bytes.IndexAny(line[i:], stops)
		if k < 0 {
			return out
		}
		i += k
		switch {
		case line[i] == '`':
			inCode = !inCode
		case inCode:
		case line[i] == '[' && i+1 < len(line) && line[i+1] == '[':
			l, ok, next, closed := wikiAt(line, i, base)
			if !closed {
				return out
			}
			if ok {
				out = append(out, l)
			}
			i = next
		}
	}
	return out
}

// wikiAt reads the wikilink whose "[[" is at line[i] (a line starting at
// offset base): the link when there is one (ok), and the index of the last
// byte read, where the scan goes on after. closed is false when no "]]"
// follows on the line: nothing after it is a link either.
func wikiAt(line []byte, i, base int) (l Link, ok bool, next int, closed bool) {
	j := bytes.Index(line[i+2:], []byte("]]"))
	if j < 0 {
		return Link{}, false, i, false
	}
	inner := line[i+2 : i+2+j]
	if bytes.ContainsAny(inner, "[]`") {
		return Link{}, false, i, true
	}
	key := inner
	label := inner
	labelAt := i + 2
	if k := bytes.IndexByte(inner, '|'); k >= 0 {
		key, label, labelAt = inner[:k], inner[k+1:], i+2+k+1
	}
	if k := bytes.IndexByte(key, '#'); k >= 0 {
		key = key[:k]
	}
	lead := len(key) - len(bytes.TrimLeft(key, " "))
	trimmed := bytes.TrimSpace(key)
	if len(trimmed) == 0 {
		return Link{}, false, i + 2 + j + 1, true
	}
	ds := base + i + 2 + lead
	return Link{
		Span:     frontmatter.Span{Start: base + i, End: base + i + 2 + j + 2},
		Label:    frontmatter.Span{Start: base + labelAt, End: base + labelAt + len(label)},
		DestSpan: frontmatter.Span{Start: ds, End: ds + len(trimmed)},
		Dest:     string(trimmed),
		Wiki:     true,
	}, true, i + 2 + j + 1, true
}

// WikiKey is the note key a wikilink's destination names: "notes/style" and
// "notes/style.md" both name "notes/style.md".
func WikiKey(dest string) string {
	dest = strings.Trim(strings.ReplaceAll(dest, `\`, "/"), "/ ")
	if !strings.HasSuffix(strings.ToLower(dest), ".md") {
		dest += ".md"
	}
	return dest
}
