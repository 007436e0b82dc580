package engine

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/magicfrog/mf-lsp/engine/store"
)

// PromoteRequest moves or copies a note to another dimension or layer.
type PromoteRequest struct {
	From    *Entry // the note as read; its Revision and Hash are the source's expectation
	To      Dimension
	ToScope string // ID prefix at the destination (agent or task)
	// ToLayer names the destination layer ("skills"); "" keeps the note's layer.
	ToLayer string
	Copy    bool // keep the source
}

// PromoteResult says where the note went.
type PromoteResult struct {
	Path     string
	Key      string
	Revision int
	Removed  bool // the source was removed (a move)
}

// Promote writes the note at its destination, then removes the source unless
// Copy is set. Both ends are checked: the source must still be what the caller
// read (its hash), and an existing destination is overwritten only when it is
// older than the source (see isNewer); otherwise a *ConflictError wrapping
// ErrNewerDestination. The destination write itself is revision-checked. The destination is written first, so a crash between the two steps
// leaves two copies, never none.
func (m *Memory) Promote(req PromoteRequest) (*PromoteResult, error) {
	src := req.From
	if src == nil {
		return nil, fmt.Errorf("promote: no source note")
	}
	if req.To == 0 {
		req.To = src.Dimension
	}
	key := src.Key
	if req.ToLayer != "" {
		l, ok := m.Layers().ByName(req.ToLayer)
		if !ok {
			return nil, fmt.Errorf("promote: no layer %q (see layers.json)", req.ToLayer)
		}
		key = l.Prefix + strings.TrimPrefix(src.Key, src.Layer.Prefix)
	}
	dest, err := m.PathOf(req.To, req.ToScope, key)
	if err != nil {
		return nil, fmt.Errorf("promote: %w", err)
	}
	if dest == src.Path {
		return nil, fmt.Errorf("promote: %s is already there", src.Ref())
	}
	// The source must not have moved since the caller read it.
	if cur := m.Entry(src.Path); cur == nil || cur.Hash != src.Hash {
		st := &StaleError{Path: src.Path, Expected: store.Expect{Revision: src.Revision(), Hash: src.Hash}, Reason: "the source changed since it was read"}
		if cur != nil {
			st.Exists, st.Revision, st.Hash, st.Readable = true, cur.Revision(), cur.Hash, true
		}
		return nil, st
	}
	destRev, destHash := 0, ""
	if d := m.Entry(dest); d != nil {
		destRev, destHash = d.Revision(), d.Hash
		if newer, why := isNewer(d, src); newer {
			return nil, &ConflictError{Source: src.Path, Destination: d.Path, Reason: why}
		}
	}
	res, err := m.Write(WriteRequest{
		Dimension: req.To, Scope: req.ToScope, Key: key, Body: src.Body(), KeepFrom: src.Src,
		ExpectRevision: destRev, ExpectHash: destHash,
	})
	if err != nil {
		return nil, fmt.Errorf("promote: writing %s: %w", dest, err)
	}
	out := &PromoteResult{Path: res.Path, Key: key, Revision: res.Revision}
	if req.Copy {
		return out, nil
	}
	if err := m.Delete(src.Path, src.Revision(), src.Hash); err != nil {
		return out, fmt.Errorf("promote: copied to %s, but the source was kept: %w", res.Path, err)
	}
	out.Removed = true
	return out, nil
}

// ErrNewerDestination is wrapped by a ConflictError: the destination may hold
// edits the source does not, so it is not overwritten.
var ErrNewerDestination = errors.New("the destination is newer than the source")

// ConflictError refuses a promotion that could lose the destination's edits.
type ConflictError struct {
	Source, Destination string
	Reason              string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("promote: %s was not overwritten: %s; merge the two notes by hand", e.Destination, e.Reason)
}

func (e *ConflictError) Unwrap() error { return ErrNewerDestination }

// isNewer decides whether an existing destination may hold edits the source
// lacks. Revisions count writes to one file and cannot be compared across two,
// so the test is the write time: a destination updated after the source was is
// newer. Without both times it cannot be told, and a destination with other
// content is kept.
func isNewer(dest, src *Entry) (bool, string) {
	if bytes.Equal(dest.Body(), src.Body()) {
		return false, ""
	}
	dt, dok := dest.UpdatedTime()
	st, sok := src.UpdatedTime()
	switch {
	case dok && sok && dt.After(st):
		return true, fmt.Sprintf("it was updated %s, after the source (%s)", dest.Updated(), src.Updated())
	case !dok || !sok:
		return true, "it has other content and the two cannot be ordered (an `updated` time is missing)"
	}
	return false, ""
}
