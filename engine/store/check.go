package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/magicfrog/mf-lsp/engine/frontmatter"
)

// Expect is what the writer believes is on disk.
//
//   - Revision 0 and Hash "": the note must not exist yet (a create).
//   - Revision n > 0: the note exists and its frontmatter revision is n.
//   - Hash != "": additionally, the note's bytes hash to Hash. With Revision 0
//     it names an existing note that has no trustworthy revision (no
//     frontmatter, or frontmatter that does not parse): such a note can only be
//     replaced or removed this way.
type Expect struct {
	Revision int    // 0: the note must not exist yet, unless Hash is set
	Hash     string // optional: Hash() of the bytes the writer read; "" = not checked
}

// exists reports whether e expects the note to be on disk.
func (e Expect) exists() bool { return e.Revision != 0 || e.Hash != "" }

// Hash is the content hash used everywhere a note's bytes are compared: the
// lowercase hex SHA-256 of b.
func Hash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// RevisionOf reads the revision from a note's frontmatter.
//
// A note without frontmatter, or whose frontmatter has no revision key, reads
// as (0, true): never written by the engine. readable is false — and rev 0 —
// when the frontmatter is unterminated or does not parse, when revision is
// not an integer, is negative, or appears more than once.
func RevisionOf(content []byte) (rev int, readable bool) {
	d := frontmatter.Parse(content)
	if !d.Present {
		return 0, true
	}
	if !d.Has() {
		return 0, false // unterminated
	}
	for _, e := range d.Errors {
		switch e.Kind {
		case frontmatter.Syntax, frontmatter.NotMapping, frontmatter.Unterminated:
			return 0, false
		}
	}
	n := 0
	for _, f := range d.Fields {
		if f.Key == "revision" {
			n++
		}
	}
	switch {
	case n == 0:
		return 0, true
	case n > 1:
		return 0, false // which one would be meant?
	}
	rev, ok := d.Int("revision")
	if !ok || rev < 0 {
		return 0, false
	}
	return rev, true
}

// StaleError is returned, and nothing is written, when the disk does not hold
// what the writer expected.
type StaleError struct {
	Path     string // the note's path (root joined with the path given)
	Expected Expect
	Exists   bool   // whether the note exists now
	Revision int    // its current revision (0 when absent, without one, or unreadable)
	Readable bool   // whether its revision could be read (false: broken frontmatter)
	Hash     string // Hash of its current bytes ("" when absent)
	Reason   string // what differed, in words
}

func (e *StaleError) Error() string {
	cur := "the note does not exist"
	if e.Exists {
		switch {
		case !e.Readable:
			cur = "its frontmatter does not parse (revision unreadable)"
		case e.Revision == 0:
			cur = "it has no revision (revision 0)"
		default:
			cur = fmt.Sprintf("current revision %d", e.Revision)
		}
		cur += ", hash " + short(e.Hash)
	}
	return fmt.Sprintf("store: %s changed on disk: %s; %s; nothing was written", e.Path, e.Reason, cur)
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// IsStale reports whether err is (or wraps) a *StaleError, and returns it.
func IsStale(err error) (*StaleError, bool) {
	var s *StaleError
	if errors.As(err, &s) {
		return s, true
	}
	return nil, false
}

// check compares what is on disk (exists, content) with expect and returns a
// *StaleError on any difference, or nil.
func check(path string, expect Expect, exists bool, content []byte) error {
	st := &StaleError{Path: path, Expected: expect, Exists: exists, Readable: true}
	if exists {
		st.Revision, st.Readable = RevisionOf(content)
		st.Hash = Hash(content)
	}
	switch {
	case !exists && !expect.exists():
		return nil
	case !exists && expect.Revision == 0:
		st.Reason = fmt.Sprintf("expected an existing note without revision (hash %s), but the note does not exist", short(expect.Hash))
	case !exists:
		st.Reason = fmt.Sprintf("expected revision %d, but the note does not exist", expect.Revision)
	case !expect.exists():
		st.Reason = "expected no note (a create), but one exists"
	case st.Revision != expect.Revision:
		st.Reason = fmt.Sprintf("expected revision %d", expect.Revision)
	case expect.Hash != "" && expect.Hash != st.Hash:
		st.Reason = fmt.Sprintf("expected revision %d with hash %s, but the content differs", expect.Revision, short(expect.Hash))
	case expect.Hash == "" && !st.Readable:
		// Not reachable with Revision 0 (that would be a create, handled above),
		// but kept so the rule does not depend on the order of the cases.
		st.Reason = "the note's frontmatter does not parse; it is only replaced by a writer that gives the hash of what it read"
	case expect.Hash == "" && st.Revision == 0:
		st.Reason = "the note has no revision; it is only replaced by a writer that gives the hash of what it read"
	default:
		return nil
	}
	return st
}
