package rollup

import (
	"bytes"
	"fmt"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
	"github.com/magicfrog/mf-lsp/engine/journal"
)

// memoryHeading is the body of a MEMORY.md that Promote creates, before the
// "## Lessons" section journal.AppendLessons adds.
const memoryHeading = "# Long-term memory\n\nCurated: what stays true. Monthly rollups promote lessons into the Lessons section.\n"

// LessonsEdit is the change promoting lessons makes to a journal's MEMORY.md,
// for a client to review before it is applied (an LSP WorkspaceEdit) instead
// of writing it.
type LessonsEdit struct {
	Path     string // MEMORY.md's canonical file
	Exists   bool   // MEMORY.md exists (else the edit creates it)
	Revision int    // its current revision (0 when missing)
	Hash     string // its current content hash ("" when missing)
	// Added are the lessons the edit adds: those MEMORY.md does not hold yet,
	// without repeats. Empty means there is nothing to do.
	Added []string
	// Offset and Insert: when Exists, the edit is Insert put at byte Offset of
	// the current file (journal.AppendLessons only inserts lines at one place).
	Offset int
	Insert string
	// Content is the whole new file as Promote would write it when the note does
	// not exist yet: frontmatter (revision 1, updated) and body.
	Content []byte
	// Body is the new body (without frontmatter), whether or not it exists.
	Body []byte
}

// PlanLessons computes the edit that adds lessons to the journal's MEMORY.md,
// without writing anything. Lessons MEMORY.md already holds (as
// journal.ProposeLessons compares them) are not added again.
func PlanLessons(m *engine.Memory, j Journal, lessons []string) (LessonsEdit, error) {
	p, err := j.Path(m, journal.MemoryFile)
	if err != nil {
		return LessonsEdit{}, err
	}
	ed := LessonsEdit{Path: p}
	cur := j.lookup(m, journal.MemoryFile)
	var body []byte
	if cur != nil {
		ed.Exists, ed.Revision, ed.Hash, ed.Path = true, cur.Revision(), cur.Hash(), cur.Path
		if d := cur.Doc(); !d.Has() && d.Present {
			return ed, fmt.Errorf("%s: its frontmatter is not terminated; fix it before promoting lessons", cur.Path)
		}
		if body, err = cur.Body(); err != nil {
			return ed, err
		}
	} else {
		body = []byte(memoryHeading)
	}
	ed.Body = journal.AppendLessons(body, lessons)
	ed.Added = addedLessons(body, lessons)
	if !ed.Exists {
		if len(ed.Added) > 0 {
			ed.Content = frontmatter.Compose([]frontmatter.Set{{Key: "revision", Value: 1}, {Key: "updated", Value: engine.FormatTime(time.Now())}}, ed.Body)
		}
		return ed, nil
	}
	// One insertion: the common prefix and suffix of old and new body.
	pre := 0
	for pre < len(body) && pre < len(ed.Body) && body[pre] == ed.Body[pre] {
		pre++
	}
	suf := 0
	for suf < len(body)-pre && suf < len(ed.Body)-pre && body[len(body)-1-suf] == ed.Body[len(ed.Body)-1-suf] {
		suf++
	}
	ed.Offset = cur.BodyStart() + pre
	ed.Insert = string(ed.Body[pre : len(ed.Body)-suf])
	return ed, nil
}

// addedLessons are the lessons AppendLessons adds to body.
func addedLessons(body []byte, lessons []string) []string {
	var out []string
	cur := body
	for _, l := range lessons {
		next := journal.AppendLessons(cur, []string{l})
		if !bytes.Equal(next, cur) {
			out = append(out, l)
			cur = next
		}
	}
	return out
}

// PromoteResult says what Promote did.
type PromoteResult struct {
	Path     string
	Added    []string // lessons written; empty when MEMORY.md held them all
	Revision int      // MEMORY.md's revision now
	Created  bool
}

// Promote adds lessons to the journal's MEMORY.md under "## Lessons"
// (journal.AppendLessons), creating it with frontmatter when missing, and
// writes with the revision and hash it read: a concurrent change makes it fail
// with an engine.StaleError and nothing is written. Lessons already there are
// not added twice; when there is nothing to add nothing is written.
func Promote(m *engine.Memory, j Journal, lessons []string) (PromoteResult, error) {
	ed, err := PlanLessons(m, j, lessons)
	if err != nil {
		return PromoteResult{}, err
	}
	res := PromoteResult{Path: ed.Path, Revision: ed.Revision}
	if len(ed.Added) == 0 {
		return res, nil
	}
	// Write where the note is (its canonical file, or a new one there).
	w, err := m.Write(engine.WriteRequest{
		Dimension: j.Dimension, Owner: j.Owner, Key: j.Key(journal.MemoryFile), Body: ed.Body,
		ExpectRevision: ed.Revision, ExpectHash: ed.Hash,
	})
	if err != nil {
		return res, fmt.Errorf("promote lessons into %s: %w", j.String()+journal.MemoryFile, err)
	}
	res.Path, res.Revision, res.Added, res.Created = w.Path, w.Revision, ed.Added, !ed.Exists
	return res, nil
}
