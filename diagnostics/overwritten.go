package diagnostics

import (
	"fmt"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/textmerge"
)

// CodeOverwrittenRevision: the note's version replaced a newer one it does
// not descend from (an editor that saved without asking, another program, a
// write without the content hash); the version lost is in the local history.
const CodeOverwrittenRevision = "overwritten-revision"

// The answers to an overwrite (docs/diagnostics.md: exact titles, with the
// revision).
const (
	FixRestoreLost   = "Restore revision %d"
	FixMergeLost     = "Merge revision %d into this version"
	FixKeepOverwrite = "Keep this version (as revision %d)"
)

// overwritten flags a note with an open overwrite in the local history.
func (c *checker) overwritten() {
	m := c.in.Memory
	if m == nil {
		return
	}
	var o engine.Overwrite
	var ok bool
	if c.in.overwrites != nil {
		o, ok = c.in.overwrites[c.e.Path] // CheckNotes read them once
	} else {
		o, ok = m.OverwriteAt(c.e.Path)
	}
	if !ok {
		return
	}
	how := "written over it on disk without descending from it (an editor that saved without asking, or another program)"
	if o.By == "write" {
		how = "written over it by a write that did not carry its content hash, so could not have read it"
	}
	c.add(Finding{
		Span:     c.head(),
		Severity: Error,
		Code:     CodeOverwrittenRevision,
		Message: fmt.Sprintf("revision %d was overwritten: revision %d was %s; revision %d is in the local history (mf-lsp history, mf-lsp restore): restore it, merge it, or keep this version",
			o.LostRevision, o.Revision, how, o.LostRevision),
		Data: map[string]any{"lostRevision": o.LostRevision, "lost": o.Lost, "revision": o.Revision, "blob": o.Blob, "base": o.Base, "by": o.By},
	})
}

// OverwriteMerge is the three-way merge (engine/textmerge) of an open
// overwrite of the note at path: the version the overwriting one was based
// on (from the history), the version lost, and cur (the note now). ok is
// false when there is no overwrite, no base in the history, or the two
// changed the same lines.
func OverwriteMerge(m *engine.Memory, path string, cur []byte) ([]byte, bool) {
	o, ok := m.OverwriteAt(path)
	if !ok || o.Base == "" {
		return nil, false
	}
	base, err := m.HistoryVersion(path, o.Base)
	if err != nil {
		return nil, false
	}
	lost, err := m.HistoryVersion(path, o.Lost)
	if err != nil {
		return nil, false
	}
	merged, ok := textmerge.Merge(string(base), string(lost), string(cur))
	if !ok {
		return nil, false
	}
	return []byte(merged), true
}
