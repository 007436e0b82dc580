package session

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
	"github.com/magicfrog/mf-lsp/engine/mdlinks"
	"github.com/magicfrog/mf-lsp/engine/safefs"
)

// Hover over a memory note tells where it stands: dimension, owner, layer, key,
// revision, updated, machine binding, whether it is effective or shadowed, the
// whole chain of its key (each version linked to its file) and its size in
// tokens when that is known without running the tokenizer. Over a relative Markdown link to another note it shows that note
// instead: its summary line (the first non-empty line of its body, a heading's
// text without the #s) with its dimension and revision.

// HoverResult is a hover: Markdown, about the bytes Span of the note (the
// link hovered); a zero Span means the line hovered.
type HoverResult struct {
	Markdown string
	Span     frontmatter.Span
	OnLink   bool // Span is the link's
}

// Hover is the hover at byte offset off of the snapshot's note.
func Hover(snap *Snapshot, off int) HoverResult {
	n := snap.Note
	if off >= n.BodyStart() {
		for _, l := range mdlinks.Links(snap.Src(), n.BodyStart()) {
			if off >= l.Span.Start && off <= l.Span.End {
				if target, ok := mdlinks.NoteTarget(snap.Path, l.Dest); ok {
					return HoverResult{Markdown: describeLink(snap, l, target), Span: l.Span, OnLink: true}
				}
			}
		}
	}
	return HoverResult{Markdown: NoteMarkdown(snap)}
}

// NoteMarkdown is the Markdown description of the snapshot's note: its standing,
// its fields and the chain of its key.
func NoteMarkdown(snap *Snapshot) string {
	var md strings.Builder
	e := snap.Note
	ns := NoteStanding(snap)

	fmt.Fprintf(&md, "**%s** · %s\n\n", MarkdownEscape(e.Ref()), MarkdownEscape(ns.Summary))
	if snap.Refused != nil {
		fmt.Fprintf(&md, "_%s._\n\n", MarkdownEscape(snap.Refused.Error()))
	} else {
		fmt.Fprintf(&md, "_Seen as %s._\n\n", ScopeSentence(ns.Scope, ns.Machine))
	}
	fmt.Fprintf(&md, "- dimension: `%s`", e.Dimension)
	if e.Legacy {
		md.WriteString(" (read from a legacy folder)")
	}
	md.WriteString("\n")
	switch {
	case e.Owner != "":
		fmt.Fprintf(&md, "- scope: `%s`\n", e.Owner)
	case e.Dimension == engine.Agent:
		md.WriteString("- scope: every agent (no ID prefix)\n")
	case e.Dimension == engine.Task:
		md.WriteString("- scope: every task (no ID prefix)\n")
	}
	fmt.Fprintf(&md, "- layer: `%s`\n", e.Layer.Name)
	fmt.Fprintf(&md, "- key: `%s`\n", e.Key)
	if d := e.Doc(); d.Field("revision") != nil || d.Has() {
		fmt.Fprintf(&md, "- revision: %d\n", e.Revision())
	} else {
		md.WriteString("- revision: none (no frontmatter: never written by the engine)\n")
	}
	if u := e.Updated(); u != "" {
		fmt.Fprintf(&md, "- updated: %s\n", MarkdownEscape(u))
	}
	switch bound := e.Machine(); {
	case e.Dimension == engine.Device && bound == "":
		md.WriteString("- machine: not bound (reads as this machine)\n")
	case e.Dimension == engine.Device && bound == ns.Machine:
		fmt.Fprintf(&md, "- machine: `%s` (this machine)\n", bound)
	case e.Dimension == engine.Device:
		fmt.Fprintf(&md, "- machine: `%s` (not this one: this is `%s`)\n", bound, ns.Machine)
	case bound != "":
		fmt.Fprintf(&md, "- machine: `%s` (only device notes are bound to a machine)\n", bound)
	}
	if n, ok := e.KnownTokens(snap.Memory.TokenCache()); ok {
		fmt.Fprintf(&md, "- size: %d tokens\n", n)
	} else {
		// Counting here takes about 3 ms for a 64 KB note (the first one
		// 10 ms more for the vocabulary's table), over hover's 2 ms.
		md.WriteString("- size: not counted yet (the effective view counts it)\n")
	}

	if p, ok := crossingLink(snap); ok {
		md.WriteString("\nNot loaded: " + MarkdownEscape(p.Message) + "\n")
		return md.String()
	}
	if e.Dimension == engine.Device {
		md.WriteString("\nDevice notes never merge: every note bound to this machine is its own row of the view.\n")
		return md.String()
	}
	describeChain(&md, snap, ns)
	return md.String()
}

// describeChain lists the versions of the note's key: the chain the session
// sees, then the versions it cannot see (other agents', other tasks').
func describeChain(md *strings.Builder, snap *Snapshot, ns Standing) {
	e, st := snap.Note, ns.Status
	md.WriteString("\n**Chain** of `" + e.Key + "`, most specific first:\n\n")
	listed := map[string]bool{}
	for i, x := range st.Chain {
		listed[x.Path] = true
		state := "shadowed"
		switch {
		case x.Path == e.Path && st.Effective, st.Winner != nil && x.Path == st.Winner.Path:
			state = "effective"
		case x.Path == e.Path:
		case snap.Memory.StatusOf(x, ns.Scope).Effective:
			state = "effective"
		}
		if x.Path == e.Path {
			state += ", this note"
		}
		fmt.Fprintf(md, "%d. %s · rev %d · %s (%s)\n", i+1, MarkdownEscape(OwnerLabel(x)), x.Revision(), fileLink(x.Ref(), x.Path), state)
	}
	for _, x := range snap.Memory.Versions(e.Key) {
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
		fmt.Fprintf(md, "- %s · rev %d · %s (%s)\n", MarkdownEscape(OwnerLabel(x)), x.Revision(), fileLink(x.Ref(), x.Path), state)
	}
	if !listed[e.Path] {
		// An out-of-scope buffer that is not on disk yet.
		fmt.Fprintf(md, "- %s · rev %d · %s (not in scope, this note)\n", MarkdownEscape(OwnerLabel(e)), e.Revision(), fileLink(e.Ref(), e.Path))
	}
}

// describeLink describes the note a link points to. A target outside the
// snapshot's tree is parsed on its own: no tree is opened for a hover.
func describeLink(snap *Snapshot, l mdlinks.Link, target string) string {
	var md strings.Builder
	te := snap.Memory.Note(target)
	if te == nil && snap.Memory.ThroughLink(target) {
		fmt.Fprintf(&md, "`%s`: a symbolic link on the way, not followed (%s)\n", l.Dest, MarkdownEscape(target))
		return md.String()
	}
	if te == nil {
		if src, err := safefs.ReadFile(target, engine.MaxNoteSize); err == nil {
			if other, err := snap.session.Snapshot(target); err == nil && other.Doc == nil {
				te = other.Note
			} else if err == nil {
				te, _, _ = other.Memory.Parse(target, src)
			}
			if te == nil {
				// A Markdown file outside every memory tree: still worth a summary.
				te = engine.LooseNote(target, src)
			}
		}
	}
	if te == nil {
		fmt.Fprintf(&md, "`%s`: no such note (%s)\n", l.Dest, MarkdownEscape(target))
		return md.String()
	}
	title := te.Ref()
	if te.Key == "" {
		title = filepath.Base(target)
	}
	fmt.Fprintf(&md, "**%s**", fileLink(title, target))
	if te.Key != "" {
		fmt.Fprintf(&md, " · %s · rev %d", MarkdownEscape(OwnerLabel(te)), te.Revision())
	}
	md.WriteString("\n\n")
	if body, err := te.Body(); err != nil {
		md.WriteString("*(changed on disk since it was read: hover again)*\n")
	} else if sum := summaryLine(body); sum != "" {
		md.WriteString(MarkdownEscape(sum) + "\n")
	} else {
		md.WriteString("*(empty note)*\n")
	}
	if desc := te.Meta("description"); desc != "" {
		md.WriteString("\n" + MarkdownEscape(desc) + "\n")
	}
	return md.String()
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

// fileLink is a Markdown link to a file.
func fileLink(label, path string) string {
	uri := linkURIEscaper.Replace(PathToURI(path))
	return "[" + MarkdownEscape(label) + "](" + uri + ")"
}

// linkURIEscaper escapes what would end a Markdown link's destination. It is
// built once: a Replacer made per call builds its tables at its first
// Replace (about 1 KB a hover, every hover).
var linkURIEscaper = strings.NewReplacer("(", "%28", ")", "%29", " ", "%20")

// MarkdownEscape escapes the characters that would make s Markdown markup.
func MarkdownEscape(s string) string {
	return mdEscaper.Replace(s)
}

var mdEscaper = strings.NewReplacer(`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "<", `\<`, ">", `\>`, "#", `\#`, "|", `\|`)

// ScopeSentence says for whom a view answers: "task `T-7` · agent `larry` ·
// machine `3f9c…`", or that no task and no agent is bound. Hover, the render
// preview and the effective view all say it, so nobody mistakes the view of
// nobody in particular for theirs.
// machine `3f9c…`", or that no task and no agent is bound. Hover, the render
// preview and the effective view all say it, so nobody mistakes the view of
// nobody in particular for theirs.
func ScopeSentence(sc engine.Scope, machine string) string {
	var parts []string
	if sc.Task != "" {
		parts = append(parts, "task `"+sc.Task+"`")
	} else {
		parts = append(parts, "no task")
	}
	switch len(sc.Agents) {
	case 0:
		parts = append(parts, "no agent")
	case 1:
		parts = append(parts, "agent `"+sc.Agents[0]+"`")
	default:
		parts = append(parts, "agents `"+strings.Join(sc.Agents, "`, `")+"`")
	}
	if machine != "" {
		parts = append(parts, "machine `"+machine+"`")
	}
	s := strings.Join(parts, " · ")
	if sc.Task == "" && len(sc.Agents) == 0 {
		s += " (unbound: notes under a task or agent ID are not in this view)"
	}
	return s
}
