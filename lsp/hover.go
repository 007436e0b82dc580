package lsp

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
	"github.com/magicfrog/mf-lsp/engine/mdlinks"
	"github.com/magicfrog/mf-lsp/engine/safefs"
)

// Hover over a memory note tells where it stands: dimension, scope, layer, key,
// revision, updated, machine binding, whether it is effective or shadowed, the whole
// chain of its key (each version linked to its file) and its size in tokens. Over a
// relative Markdown link to another note it shows that note instead: its summary line
// (the first non-empty line of its body, a heading's text without the #s) with its
// dimension and revision. The content is Markdown; the range is the link, else the
// hovered line.

func (s *Server) hover(_ *glsp.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	n, ok := s.Note(p.TextDocument.URI)
	if !ok {
		return nil, nil
	}
	off, err := n.Mapper.PositionOffset(p.Position)
	if err != nil {
		return nil, nil
	}
	if off >= n.Note.Doc.Body {
		for _, l := range mdlinks.Links(n.Note.Src, n.Note.Doc.Body) {
			if off >= l.Span.Start && off <= l.Span.End {
				if target, ok := mdlinks.NoteTarget(n.Path, l.Dest); ok {
					return s.hoverLink(n, l, target), nil
				}
			}
		}
	}
	var md strings.Builder
	s.describeNote(&md, n)
	return &protocol.Hover{
		Contents: protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: md.String()},
		Range:    lineRange(n.Mapper, int(p.Position.Line)),
	}, nil
}

// describeNote writes the hover of a note.
func (s *Server) describeNote(md *strings.Builder, n *Located) {
	e := n.Note
	ns := s.standing(n)
	st := ns.Status

	fmt.Fprintf(md, "**%s** · %s\n\n", mdEscape(e.Ref()), mdEscape(ns.Lens))
	fmt.Fprintf(md, "_Seen as %s._\n\n", scopeSentence(ns.Scope, ns.Machine))
	fmt.Fprintf(md, "- dimension: `%s`", e.Dimension)
	if e.Legacy {
		md.WriteString(" (read from a legacy folder)")
	}
	md.WriteString("\n")
	switch {
	case e.Owner != "":
		fmt.Fprintf(md, "- scope: `%s`\n", e.Owner)
	case e.Dimension == engine.Agent:
		md.WriteString("- scope: every agent (no ID prefix)\n")
	case e.Dimension == engine.Task:
		md.WriteString("- scope: every task (no ID prefix)\n")
	}
	fmt.Fprintf(md, "- layer: `%s`\n", e.Layer.Name)
	fmt.Fprintf(md, "- key: `%s`\n", e.Key)
	if e.Doc.Field("revision") != nil || e.Doc.Has() {
		fmt.Fprintf(md, "- revision: %d\n", e.Revision())
	} else {
		md.WriteString("- revision: none (no frontmatter: never written by the engine)\n")
	}
	if u := e.Updated(); u != "" {
		fmt.Fprintf(md, "- updated: %s\n", mdEscape(u))
	}
	switch bound := e.Machine(); {
	case e.Dimension == engine.Device && bound == "":
		md.WriteString("- machine: not bound (reads as this machine)\n")
	case e.Dimension == engine.Device && bound == ns.Machine:
		fmt.Fprintf(md, "- machine: `%s` (this machine)\n", bound)
	case e.Dimension == engine.Device:
		fmt.Fprintf(md, "- machine: `%s` (not this one: this is `%s`)\n", bound, ns.Machine)
	case bound != "":
		fmt.Fprintf(md, "- machine: `%s` (only device notes are bound to a machine)\n", bound)
	}
	fmt.Fprintf(md, "- size: %d tokens\n", e.Tokens())

	if e.Dimension == engine.Device {
		md.WriteString("\nDevice notes never merge: every note bound to this machine is its own row of the view.\n")
		return
	}
	md.WriteString("\n**Chain** of `" + e.Key + "`, most specific first:\n\n")
	listed := map[string]bool{}
	for i, x := range st.Chain {
		listed[x.Path] = true
		state := "shadowed"
		switch {
		case x.Path == e.Path && st.Effective, st.Winner != nil && x.Path == st.Winner.Path:
			state = "effective"
		case x.Path == e.Path:
		case n.Memory.StatusOf(x, ns.Scope).Effective:
			state = "effective"
		}
		if x.Path == e.Path {
			state += ", this note"
		}
		fmt.Fprintf(md, "%d. %s · rev %d · %s (%s)\n", i+1, mdEscape(scopeLabel(x)), x.Revision(), fileLink(x.Ref(), x.Path), state)
	}
	// Versions the session cannot see (other agents', other tasks') follow.
	for _, x := range n.Memory.Versions(e.Key) {
		if listed[x.Path] || x.Dimension == engine.Device {
			continue
		}
		if x.Path == e.Path {
			x = e
		}
		listed[x.Path] = true
		state := "not in scope"
		if x.Path == e.Path {
			state += ", this note"
		}
		fmt.Fprintf(md, "- %s · rev %d · %s (%s)\n", mdEscape(scopeLabel(x)), x.Revision(), fileLink(x.Ref(), x.Path), state)
	}
	if !listed[e.Path] {
		// An out-of-scope buffer that is not on disk yet.
		fmt.Fprintf(md, "- %s · rev %d · %s (not in scope, this note)\n", mdEscape(scopeLabel(e)), e.Revision(), fileLink(e.Ref(), e.Path))
	}
}

// hoverLink describes the note a link points to.
func (s *Server) hoverLink(n *Located, l mdlinks.Link, target string) *protocol.Hover {
	var md strings.Builder
	te := n.Memory.Note(target)
	if te == nil {
		if src, err := safefs.ReadFile(target, engine.MaxNoteSize); err == nil {
			if m, ok := s.memoryFor(target); ok {
				te, _, _ = m.Parse(target, src)
			}
			if te == nil {
				// A Markdown file outside every memory tree: still worth a summary.
				te = &engine.Note{Path: target, Src: src, Doc: frontmatter.Parse(src)}
			}
		}
	}
	switch {
	case te == nil:
		fmt.Fprintf(&md, "`%s`: no such note (%s)\n", l.Dest, mdEscape(target))
	default:
		title := te.Ref()
		if te.Key == "" {
			title = filepath.Base(target)
		}
		fmt.Fprintf(&md, "**%s**", fileLink(title, target))
		if te.Key != "" {
			fmt.Fprintf(&md, " · %s · rev %d", mdEscape(scopeLabel(te)), te.Revision())
		}
		md.WriteString("\n\n")
		if sum := summaryLine(te.Body()); sum != "" {
			md.WriteString(mdEscape(sum) + "\n")
		} else {
			md.WriteString("*(empty note)*\n")
		}
		if desc := te.Meta("description"); desc != "" {
			md.WriteString("\n" + mdEscape(desc) + "\n")
		}
	}
	h := &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: md.String()}}
	if r, err := n.Mapper.OffsetRange(l.Span.Start, l.Span.End); err == nil {
		h.Range = &r
	}
	return h
}

// summaryLine is a note's first non-empty body line; a heading gives its text.
func summaryLine(body []byte) string {
	for len(body) > 0 {
		line := body
		if i := bytes.IndexAny(body, "\r\n"); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		t := strings.TrimSpace(string(line))
		if t == "" {
			continue
		}
		if h := strings.TrimLeft(t, "#"); len(h) < len(t) && (h == "" || h[0] == ' ' || h[0] == '\t') {
			t = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(h), "#"))
			if t == "" {
				continue
			}
		}
		if r := []rune(t); len(r) > 200 {
			t = string(r[:200]) + "…"
		}
		return t
	}
	return ""
}

// lineRange is the range of one line's content.
func lineRange(m *Mapper, line int) *protocol.Range {
	if line < 0 || line >= m.LineCount() {
		return nil
	}
	span := m.lines[line]
	r, err := m.OffsetRange(span.start, span.end)
	if err != nil {
		return nil
	}
	return &r
}

// fileLink is a Markdown link to a file.
func fileLink(label, path string) string {
	uri := strings.NewReplacer("(", "%28", ")", "%29", " ", "%20").Replace(string(PathToURI(path)))
	return "[" + mdEscape(label) + "](" + uri + ")"
}

// mdEscape escapes the characters that would make s Markdown markup.
func mdEscape(s string) string {
	return mdEscaper.Replace(s)
}

var mdEscaper = strings.NewReplacer(`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "<", `\<`, ">", `\>`, "#", `\#`, "|", `\|`)
