package engine

import (
	"fmt"
	"strings"

	"github.com/magicfrog/mf-lsp/engine/frontmatter"
	"github.com/magicfrog/mf-lsp/engine/store"
)

// PromoteRequest moves or copies a note to another dimension or layer. It is a
// compare-and-swap on both ends: the source must still be From (its hash) and,
// with ExpectSourceRevision, at that revision; the destination must be at
// ExpectDestRevision, 0 meaning it must not exist. An existing destination is
// never overwritten blind.
type PromoteRequest struct {
	From    *Note // the note as read; its Hash is the source's expectation
	To      Dimension
	ToOwner string // ID prefix at the destination (agent or task)
	// ToLayer names the destination layer ("skills"); "" keeps the note's layer.
	ToLayer string
	Copy    bool // keep the source
	// ExpectSourceRevision, when set, is the source's revision the caller saw.
	ExpectSourceRevision *int
	// ExpectDestRevision is the destination's revision the caller saw; 0: the
	// destination must not exist. A destination whose only version is a legacy
	// note is at that note's revision (its canonical successor continues it).
	ExpectDestRevision int
	// Register adds an unregistered destination ID first (WriteRequest.Register).
	Register bool
	// Text, when set, is what the destination gets instead of From's bytes
	// (its body and frontmatter keys): an editor's unsaved buffer of the note,
	// promoted as the user sees it. From is still what the source must be.
	Text []byte
}

// PromoteResult says where the note went.
type PromoteResult struct {
	Path     string
	Key      string
	Revision int
	Removed  bool // the source was removed (a move)
}

// Promote writes the note at its destination, then removes the source unless
// Copy is set. Both ends are compared and swapped: a source that is not what
// the caller read, or a destination not at ExpectDestRevision, refuses the
// promotion with a *StaleError naming that end, and nothing is written. The
// destination is written first, so a crash between the two steps leaves two
// copies, never none.
func (m *Memory) Promote(req PromoteRequest) (*PromoteResult, error) {
	if err := m.refuseScopeOnly("promote"); err != nil {
		return nil, err
	}
	src := req.From
	if src == nil {
		return nil, fmt.Errorf("promote: no source note")
	}
	if req.To == 0 {
		req.To = src.Dimension
	}
	dest, key, err := m.PromoteDestination(req)
	if err != nil {
		return nil, err
	}
	keep, err := src.Text()
	if err != nil {
		return nil, err
	}
	body := keep[src.BodyStart():]
	if req.Text != nil {
		d := frontmatter.Parse(req.Text)
		if len(d.Errors) > 0 {
			return nil, fmt.Errorf("promote: the frontmatter of the text to promote does not parse (%s): fix it first", d.Errors[0].Message)
		}
		body, keep = req.Text[d.Body:], req.Text
	}
	// The source must not have moved since the caller read it.
	cur := m.Note(src.Path)
	if cur == nil || cur.Hash() != src.Hash() || (req.ExpectSourceRevision != nil && cur.Revision() != *req.ExpectSourceRevision) {
		want := src.Revision()
		if req.ExpectSourceRevision != nil {
			want = *req.ExpectSourceRevision
		}
		st := &StaleError{Path: src.Path, Expected: store.Expect{Revision: want, Hash: src.Hash()}, Reason: "the source is not what was read"}
		if cur != nil {
			st.Exists, st.Revision, st.Hash, st.Readable = true, cur.Revision(), cur.Hash(), true
			if cur.Hash() == src.Hash() {
				st.Reason = fmt.Sprintf("the source is at revision %d, not %d", cur.Revision(), want)
			}
		} else {
			st.Reason = "the source no longer exists"
		}
		return nil, &EndError{End: "source", Err: st}
	}
	destRev, destHash := 0, ""
	// Moving a legacy note to its own canonical place continues it: the
	// canonical note takes its revision + 1 and the legacy file goes (Write).
	if l := m.legacyPredecessor(dest); l != nil && l.Path == src.Path {
		res, err := m.Write(WriteRequest{Dimension: req.To, Owner: req.ToOwner, Key: key, Body: body, KeepFrom: keep,
			ExpectRevision: l.Revision(), ExpectHash: l.Hash(), Register: req.Register})
		if st, ok := IsStale(err); ok {
			return nil, &EndError{End: "source", Err: st}
		}
		if err != nil {
			return nil, fmt.Errorf("promote: writing %s: %w", dest, err)
		}
		out := &PromoteResult{Path: res.Path, Key: key, Revision: res.Revision, Removed: res.LegacyRemoved}
		if !res.LegacyRemoved {
			return out, fmt.Errorf("promote: copied to %s, but the legacy source was kept: %s", res.Path, res.LegacyKept)
		}
		return out, nil
	}
	if d := m.Note(dest); d != nil {
		destRev, destHash = d.Revision(), d.Hash()
		if d.Revision() != req.ExpectDestRevision {
			return nil, &EndError{End: "destination", Err: &StaleError{Path: d.Path, Expected: store.Expect{Revision: req.ExpectDestRevision},
				Exists: true, Revision: d.Revision(), Hash: d.Hash(), Readable: true,
				Reason: destReason(req.ExpectDestRevision, d.Revision())}}
		}
	} else if l := m.legacyPredecessor(dest); l != nil && l.Revision() != req.ExpectDestRevision {
		return nil, &EndError{End: "destination", Err: &StaleError{Path: l.Path, Expected: store.Expect{Revision: req.ExpectDestRevision},
			Exists: true, Revision: l.Revision(), Hash: l.Hash(), Readable: true,
			Reason: destReason(req.ExpectDestRevision, l.Revision()) + " (a legacy note its canonical successor continues)"}}
	} else if l != nil {
		destRev = l.Revision()
	}
	res, err := m.Write(WriteRequest{
		Dimension: req.To, Owner: req.ToOwner, Key: key, Body: body, KeepFrom: keep,
		ExpectRevision: destRev, ExpectHash: destHash, Register: req.Register,
	})
	if st, ok := IsStale(err); ok {
		return nil, &EndError{End: "destination", Err: st}
	}
	if err != nil {
		return nil, fmt.Errorf("promote: writing %s: %w", dest, err)
	}
	out := &PromoteResult{Path: res.Path, Key: key, Revision: res.Revision}
	if req.Copy {
		return out, nil
	}
	if err := m.Delete(src.Path, src.Revision(), src.Hash()); err != nil {
		return out, fmt.Errorf("promote: copied to %s, but the source was kept: %w", res.Path, err)
	}
	out.Removed = true
	return out, nil
}

// PromoteDestination is where req puts its note: the destination's path and
// the key there (req.To 0 is the note's own dimension). The one computation of
// a promotion's destination: Promote writes there, the editor's code actions
// show its revision and move a buffer there.
func (m *Memory) PromoteDestination(req PromoteRequest) (dest, key string, err error) {
	src := req.From
	if src == nil {
		return "", "", fmt.Errorf("promote: no source note")
	}
	to := req.To
	if to == 0 {
		to = src.Dimension
	}
	key = src.Key
	if req.ToLayer != "" {
		l, ok := m.Layers().ByName(req.ToLayer)
		if !ok {
			return "", "", fmt.Errorf("promote: no layer %q (see layers.json)", req.ToLayer)
		}
		key = l.Prefix + strings.TrimPrefix(src.Key, src.Layer.Prefix)
	}
	dest, err = m.PathOf(to, req.ToOwner, key)
	if err != nil {
		return "", "", fmt.Errorf("promote: %w", err)
	}
	if dest == src.Path {
		return "", "", fmt.Errorf("promote: %s is already there", src.Ref())
	}
	return dest, key, nil
}

// CurrentRevision is the revision a write of a note expects now: the canonical
// note's, else its legacy predecessor's (machine/, project/), else 0.
func (m *Memory) CurrentRevision(d Dimension, scope, key string) int {
	p, err := m.PathOf(d, scope, key)
	if err != nil {
		return 0
	}
	if e := m.Note(p); e != nil {
		return e.Revision()
	}
	if l := m.legacyPredecessor(p); l != nil {
		return l.Revision()
	}
	return 0
}

func destReason(want, got int) string {
	if want == 0 {
		return fmt.Sprintf("the destination exists at revision %d and was not overwritten: pass its revision to replace it", got)
	}
	return fmt.Sprintf("the destination is at revision %d, not %d", got, want)
}

// EndError is a promotion refused at one end: End is "source" or
// "destination", Err the *StaleError with that end's current revision.
type EndError struct {
	End string
	Err *StaleError
}

func (e *EndError) Error() string { return "promote: " + e.End + ": " + e.Err.Error() }

func (e *EndError) Unwrap() error { return e.Err }
