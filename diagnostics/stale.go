package diagnostics

import (
	"fmt"

	"github.com/magicfrog/mf-lsp/engine/frontmatter"
)

// stale compares what a buffer was based on with the note the engine has loaded
// from disk (the LSP refreshes it on every file change). A moved revision is an
// error: saving would be refused. A changed hash at the same revision (a plain
// text editor wrote the file) is a warning: the save would be refused too, but
// the revision the user sees is still right.
func (c *checker) stale() {
	b, m := c.in.Base, c.in.Memory
	if b == nil || m == nil {
		return
	}
	disk := m.Note(c.e.Path)
	data := map[string]any{"baseRevision": b.Revision, "exists": disk != nil}
	switch {
	case disk == nil && b.MovedTo != "":
		data["diskRevision"], data["movedTo"] = 0, b.MovedTo
		c.add(Finding{Span: c.head(), Severity: Error, Code: CodeStaleRevision, Data: data,
			Related: []Related{{Path: b.MovedTo, Message: "the note, where the promotion moved it"}},
			Message: fmt.Sprintf("this note was promoted to %s after this buffer read revision %d; this buffer is left on the old path, and saving it makes a second copy of the note here", b.MovedTo, b.Revision)})
	case disk == nil && (b.Revision != 0 || b.Hash != ""):
		data["diskRevision"] = 0
		c.add(Finding{Span: c.head(), Severity: Warning, Code: CodeStaleRevision, Data: data,
			Message: fmt.Sprintf("the note was removed on disk after this buffer read revision %d; saving creates it again", b.Revision)})
	case disk == nil:
	case b.Revision == 0 && b.Hash == "":
		data["diskRevision"], data["diskHash"] = disk.Revision(), disk.Hash()
		c.add(Finding{Span: c.head(), Severity: Error, Code: CodeStaleRevision, Data: data,
			Related: []Related{{Path: disk.Path, Message: fmt.Sprintf("on disk: revision %d", disk.Revision())}},
			Message: fmt.Sprintf("the note was created on disk (revision %d) while this buffer was new; saving would replace it", disk.Revision())})
	case disk.Revision() != b.Revision:
		data["diskRevision"], data["diskHash"] = disk.Revision(), disk.Hash()
		c.add(Finding{Span: c.head(), Severity: Error, Code: CodeStaleRevision, Data: data,
			Related: []Related{{Path: disk.Path, Span: frontmatter.Span{}, Message: fmt.Sprintf("on disk: revision %d", disk.Revision())}},
			Message: fmt.Sprintf("the disk moved to revision %d since this buffer read revision %d", disk.Revision(), b.Revision)})
	case b.Hash != "" && disk.Hash() != b.Hash:
		data["diskRevision"], data["diskHash"] = disk.Revision(), disk.Hash()
		c.add(Finding{Span: c.head(), Severity: Warning, Code: CodeStaleRevision, Data: data,
			Related: []Related{{Path: disk.Path, Message: fmt.Sprintf("on disk: revision %d, different content", disk.Revision())}},
			Message: fmt.Sprintf("the note changed on disk since this buffer read it (still revision %d: edited outside the engine)", b.Revision)})
	}
}

func spanOf(start, end int) frontmatter.Span { return frontmatter.Span{Start: start, End: end} }
