package roam

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
)

// LocalConflict is a sync conflict as the editor shows it on a note.
type LocalConflict struct {
	Path   string // portable path, for sync resolve
	Reason string
	Theirs string // the remote version beside the sync state; "" when the remote deleted it
	Since  time.Time
}

// StateCache keeps the last sync state read per data directory, keyed by the
// file's size and time: diagnostics ask on every keystroke. The language
// server's session holds one (session.Options.SyncState); the nil *StateCache
// reads the file each time. Safe for concurrent use.
type StateCache struct {
	mu sync.Mutex
	m  map[string]cachedState
}

// NewStateCache makes an empty sync-state cache.
func NewStateCache() *StateCache { return &StateCache{m: map[string]cachedState{}} }

type cachedState struct {
	size int64
	mod  time.Time
	st   *State
}

func (c *StateCache) load(data string) *State {
	fi, err := os.Stat(stateFile(data))
	if err != nil {
		return nil
	}
	if c != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		if e, ok := c.m[data]; ok && e.size == fi.Size() && e.mod.Equal(fi.ModTime()) {
			return e.st
		}
	}
	st, err := LoadState(data)
	if err != nil {
		st = nil
	}
	if c != nil {
		c.m[data] = cachedState{size: fi.Size(), mod: fi.ModTime(), st: st}
	}
	return st
}

// Conflicts reads the sync state of m's data directory (or takes the last
// read, when the file has not changed since): ReadConflicts through c.
func (c *StateCache) Conflicts(m *engine.Memory) Conflicts {
	return Conflicts{m: m, st: c.load(m.Paths.DataDir)}
}

// ConflictAt reports whether the note at path (a file in the memory tree) is
// in sync conflict. It costs a stat of the state file when nothing is.
func ConflictAt(m *engine.Memory, path string) (LocalConflict, bool) {
	return ReadConflicts(m).At(path)
}

// Conflicts is the sync state's conflicts as read once: what a check of many
// notes asks of each (a stat of the state file per note was a third of the
// checks' own cost at 100,000 notes). The zero value holds none.
type Conflicts struct {
	m  *engine.Memory
	st *State
}

// ReadConflicts reads the sync state of m's data directory once (a stat
// when there is none); StateCache.Conflicts remembers it between reads.
func ReadConflicts(m *engine.Memory) Conflicts {
	return (*StateCache)(nil).Conflicts(m)
}

// At reports whether the note at path (a file in the memory tree) was in
// sync conflict when the state was read.
func (cs Conflicts) At(path string) (LocalConflict, bool) {
	if cs.st == nil || len(cs.st.Conflicts) == 0 {
		return LocalConflict{}, false
	}
	rel, ok := portableOf(cs.m, filepath.Clean(path))
	if !ok {
		return LocalConflict{}, false
	}
	key := rel
	if inner, ok := strings.CutPrefix(rel, "task/"); ok && cs.st.Layout != portableLayout {
		// A state no sync of this version has read yet keeps the project's
		// task notes under task/<bound ID>/ (layout.go).
		key = "task/" + cs.m.Binding().Task + "/" + inner
	}
	c, ok := cs.st.Conflicts[key]
	if !ok {
		return LocalConflict{}, false
	}
	lc := LocalConflict{Path: rel, Reason: c.Reason, Since: c.Since}
	if c.Theirs != "" {
		lc.Theirs = ConflictFile(cs.m.Paths.DataDir, key)
	}
	return lc, true
}

// portableOf maps a file of the memory tree to its portable path, as
// newMapping would, without asking the project's git repository.
func portableOf(m *engine.Memory, path string) (string, bool) {
	return mappingFor(m, nil).portable(path)
}

// MergeText is a note for the user to merge by hand: its frontmatter and,
// as the body, both versions between git-style conflict markers.
func MergeText(mine, theirs []byte) []byte {
	head, mb, _ := split(mine)
	_, tb, _ := split(theirs)
	out := append([]byte(nil), head...)
	out = append(out, "<<<<<<< mine (this machine)\n"...)
	out = appendLine(out, mb)
	out = append(out, "=======\n"...)
	out = appendLine(out, tb)
	return append(out, ">>>>>>> theirs (the other machine)\n"...)
}

func appendLine(out, b []byte) []byte {
	out = append(out, b...)
	if len(b) > 0 && b[len(b)-1] != '\n' {
		out = append(out, '\n')
	}
	return out
}
