package diagnostics

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/magicfrog/mf-lsp/engine/frontmatter"
)

// mdParser is shared: goldmark's parser keeps no state between Parse calls.
var mdParser parser.Parser = goldmark.DefaultParser()

// links reports Markdown links to notes (.md) that do not exist, resolved
// relative to the note's own folder. URLs, pure anchors and links to other
// kinds of files are left alone.
func (c *checker) links() {
	body := c.src[c.doc.Body:]
	// Inline links need "](", reference links a "]:" definition.
	if !bytes.Contains(body, []byte("](")) && !bytes.Contains(body, []byte("]:")) {
		return
	}
	base := c.doc.Body
	root := mdParser.Parse(text.NewReader(body))
	cursor := map[ast.Node]int{} // per block: where the next destination search starts
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		link, ok := n.(*ast.Link)
		if !ok {
			return ast.WalkContinue, nil
		}
		dest := string(link.Destination)
		target, ok := c.noteTarget(dest)
		if !ok {
			return ast.WalkSkipChildren, nil
		}
		span, found := linkSpan(body, link, cursor)
		if !found {
			return ast.WalkSkipChildren, nil
		}
		if c.exists(target) {
			return ast.WalkSkipChildren, nil
		}
		span.Start += base
		span.End += base
		c.add(Finding{Span: span, Severity: Warning, Code: CodeBrokenLink,
			Message: fmt.Sprintf("broken link: %s does not exist", dest),
			Data:    map[string]any{"target": target, "destination": dest}})
		return ast.WalkSkipChildren, nil
	})
}

// noteTarget resolves a link destination to the absolute path of the note it
// names; ok is false for URLs, anchors, absolute paths and non-notes.
func (c *checker) noteTarget(dest string) (string, bool) {
	if dest == "" || strings.HasPrefix(dest, "#") || strings.HasPrefix(dest, "/") || strings.HasPrefix(dest, `\`) {
		return "", false
	}
	u, err := url.Parse(dest)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Opaque != "" {
		return "", false
	}
	p := u.Path
	if !strings.EqualFold(filepath.Ext(p), ".md") {
		return "", false
	}
	return filepath.Join(filepath.Dir(c.e.Path), filepath.FromSlash(p)), true
}

// exists asks the loaded tree first and the disk second (the target may be a
// note of another root, or not loaded yet).
func (c *checker) exists(path string) bool {
	if c.in.Memory != nil && c.in.Memory.Entry(path) != nil {
		return true
	}
	_, err := os.Stat(path)
	return err == nil
}

// linkSpan finds a link's destination in the source (goldmark keeps the raw
// destination bytes but no position for inline nodes): the first occurrence of
// the destination after the link's label, inside its block. Reference links,
// whose destination is elsewhere, get the span of their label.
func linkSpan(src []byte, link *ast.Link, cursor map[ast.Node]int) (frontmatter.Span, bool) {
	block := link.Parent()
	for block != nil && block.Type() != ast.TypeBlock {
		block = block.Parent()
	}
	if block == nil || block.Lines().Len() == 0 {
		return frontmatter.Span{}, false
	}
	lines := block.Lines()
	bStart, bEnd := lines.At(0).Start, lines.At(lines.Len()-1).Stop
	lStart, lEnd, hasLabel := labelRange(link)
	from := max(cursor[block], bStart)
	if hasLabel {
		from = max(from, lEnd)
	}
	if link.Reference != nil {
		if !hasLabel {
			return frontmatter.Span{}, false
		}
		// "[label]" plus brackets, when they are there.
		if lStart > 0 && src[lStart-1] == '[' {
			lStart--
		}
		if lEnd < len(src) && src[lEnd] == ']' {
			lEnd++
		}
		cursor[block] = lEnd
		return frontmatter.Span{Start: lStart, End: lEnd}, true
	}
	if from > bEnd {
		return frontmatter.Span{}, false
	}
	i := bytes.Index(src[from:bEnd], link.Destination)
	if i < 0 {
		return frontmatter.Span{}, false
	}
	s := from + i
	cursor[block] = s + len(link.Destination)
	return frontmatter.Span{Start: s, End: s + len(link.Destination)}, true
}

// labelRange is the byte range of a link's label text (inside the brackets).
func labelRange(n ast.Node) (start, end int, ok bool) {
	start, end = -1, -1
	_ = ast.Walk(n, func(x ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		var seg text.Segment
		switch t := x.(type) {
		case *ast.Text:
			seg = t.Segment
		case *ast.String:
			return ast.WalkContinue, nil
		default:
			return ast.WalkContinue, nil
		}
		if start < 0 || seg.Start < start {
			start = seg.Start
		}
		if seg.Stop > end {
			end = seg.Stop
		}
		return ast.WalkContinue, nil
	})
	return start, end, start >= 0
}
