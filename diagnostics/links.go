package diagnostics

import (
	"fmt"
	"os"

	"github.com/magicfrog/mf-lsp/engine/mdlinks"
)

// links reports Markdown links to notes (.md) that do not exist, resolved
// relative to the note's own folder. URLs, pure anchors and links to other
// kinds of files are left alone. The finding covers the destination; a
// reference link's destination is in its definition, so it covers "[label]".
func (c *checker) links() {
	ls := []mdlinks.Link(nil)
	if c.in.MarkdownLinks != nil {
		ls = c.in.MarkdownLinks()
	} else {
		ls = mdlinks.Links(c.src, c.doc.Body)
	}
	for _, l := range ls {
		target, ok := mdlinks.NoteTarget(c.e.Path, l.Dest)
		if !ok || c.exists(target) {
			continue
		}
		span := l.DestSpan
		if l.Reference {
			span = l.Span
		}
		c.add(Finding{Span: span, Severity: Warning, Code: CodeBrokenLink,
			Message: fmt.Sprintf("broken link: %s does not exist", l.Dest),
			Data:    map[string]any{"target": target, "destination": l.Dest}})
	}
}

// exists asks the loaded tree first and the disk second (the target may be a
// note of another root, or not loaded yet).
func (c *checker) exists(path string) bool {
	if c.in.Memory != nil && c.in.Memory.Note(path) != nil {
		return true
	}
	_, err := os.Stat(path)
	return err == nil
}
