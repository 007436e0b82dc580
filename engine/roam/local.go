package roam

import (
	"time"

	"github.com/magicfrog/mf-lsp/engine"
)

// FileOf is the memory-tree file of the portable path rel as sync maps it
// (task/<bound task ID>/… is the project's task tree); ok is false for a
// path sync does not map. The command line's history and restore use it to
// join the local history (engine/history) with the remote's.
func FileOf(m *engine.Memory, rel string) (string, bool) {
	file, _, ok := newMapping(m).local(rel)
	return file, ok
}

// Synced reports whether m's data directory has a sync remote.
func Synced(m *engine.Memory) bool {
	st, err := LoadState(m.Paths.DataDir)
	return err == nil && st.Remote != ""
}

// keepInHistory keeps a note sync replaced (cur; nil when there was none)
// and what it wrote (content; nil: removed) in the local history.
func keepInHistory(m *engine.Memory, file string, cur, content []byte) {
	if m != nil {
		m.Recorded(file, cur, content, time.Now())
	}
}
