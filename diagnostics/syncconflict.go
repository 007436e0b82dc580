package diagnostics

import (
	"fmt"

	"github.com/magicfrog/mf-lsp/engine/roam"
)

// CodeSyncConflict: the note changed here and on another machine in ways
// that do not merge; mf-lsp sync keeps this version and waits.
const CodeSyncConflict = "sync-conflict"

// syncConflict flags a note that mf-lsp sync left in conflict.
func (c *checker) syncConflict() {
	if c.in.Memory == nil {
		return
	}
	var lc roam.LocalConflict
	var ok bool
	if c.in.conflicts != nil {
		lc, ok = c.in.conflicts.At(c.e.Path) // CheckNotes read the state once
	} else {
		lc, ok = c.in.SyncState.Conflicts(c.in.Memory).At(c.e.Path)
	}
	if !ok {
		return
	}
	theirs := "the other machine deleted it"
	if lc.Theirs != "" {
		theirs = "their version is " + lc.Theirs
	}
	c.add(Finding{
		Span:     c.head(),
		Severity: Warning,
		Code:     CodeSyncConflict,
		Message:  fmt.Sprintf("sync conflict: %s; this version stays until you take theirs, keep mine or merge (%s)", lc.Reason, theirs),
		Data:     map[string]any{"path": lc.Path, "theirs": lc.Theirs},
	})
}
