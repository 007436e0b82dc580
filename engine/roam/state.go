package roam

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/magicfrog/mf-lsp/engine/store"
)

// stateVersion is the format of state.json; a newer one is refused rather
// than misread.
const stateVersion = 1

// State is what the last sync left behind, in <data>/sync/state.json.
type State struct {
	Version int    `json:"version"`
	Remote  string `json:"remote,omitempty"`
	Branch  string `json:"branch,omitempty"`
	// Commit is the remote commit the last sync ended on ("" before the first).
	Commit   string    `json:"commit,omitempty"`
	LastSync time.Time `json:"lastSync,omitzero"`
	// Notes is the last synced version of every path of the sync set: the base
	// of the next three-way merge.
	Notes map[string]Base `json:"notes,omitempty"`
	// Conflicts are the paths that wait for the user; the remote version is
	// kept under <data>/sync/conflicts/<path>.
	Conflicts map[string]Conflict `json:"conflicts,omitempty"`
	// Held are configuration changes from the remote that would widen a view,
	// waiting for sync accept or sync reject (HeldConfig).
	Held map[string]HeldState `json:"held,omitempty"`
	// Stat lets the next scan skip reading files that did not change
	// (StatEntry); ScanAt is when the scan that made it began.
	Stat   map[string]StatEntry `json:"stat,omitempty"`
	ScanAt time.Time            `json:"scanAt,omitzero"`
	// Layout is "portable" once the paths above are the portable tree's
	// (task/…, task/<ID>/…); "" is a state written before, when the
	// project's task root was kept under task/<task ID>/ (layout.go).
	Layout string `json:"layout,omitempty"`
	// PortableTask is the task whose project a sync found (or made) kept
	// in the portable tree's layout in the remote: no need to look again.
	PortableTask string `json:"portableTask,omitempty"`
}

// Base is a synced version of a note.
type Base struct {
	Blob     string `json:"blob"` // git blob id: the content hash
	Revision int    `json:"revision,omitempty"`
}

// Conflict is a note changed on both sides that did not merge cleanly.
type Conflict struct {
	Theirs         string    `json:"theirs,omitempty"` // remote blob; "" when the remote deleted it
	TheirsRevision int       `json:"theirsRevision,omitempty"`
	Reason         string    `json:"reason"`
	Since          time.Time `json:"since"`
}

// dirs of the sync state inside the data directory.
func syncDir(data string) string     { return filepath.Join(data, "sync") }
func stateFile(data string) string   { return filepath.Join(syncDir(data), "state.json") }
func repoDir(data string) string     { return filepath.Join(syncDir(data), "repo.git") }
func conflictDir(data string) string { return filepath.Join(syncDir(data), "conflicts") }

// ConflictFile is where the remote version of a conflicting note is kept.
func ConflictFile(data, rel string) string {
	return filepath.Join(conflictDir(data), filepath.FromSlash(rel))
}

// ErrCorruptState: state.json does not parse. The message says how to start
// over without losing anything.
var ErrCorruptState = errors.New("sync state is corrupt")

// LoadState reads the state; a missing file is an empty state (never synced).
func LoadState(data string) (*State, error) {
	st := &State{Version: stateVersion}
	b, err := os.ReadFile(stateFile(data))
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, st); err != nil {
		return nil, fmt.Errorf("%w: %s: %v; move it aside and sync again (the next sync merges against the remote as if for the first time: notes that differ become conflicts, nothing is overwritten)", ErrCorruptState, stateFile(data), err)
	}
	if st.Version != stateVersion {
		return nil, fmt.Errorf("%w: %s has format version %d, this mf-lsp reads %d", ErrCorruptState, stateFile(data), st.Version, stateVersion)
	}
	return st, nil
}

// save writes the state atomically.
func (st *State) save(data string) error {
	if err := os.MkdirAll(syncDir(data), 0o755); err != nil {
		return err
	}
	b, err := json.Marshal(st) // read by machines; compact is half the cost at 10,000 notes
	if err != nil {
		return err
	}
	return writeSyncFile(data, stateFile(data), append(b, '\n'))
}

// writeSyncFile writes a file of the sync state (state.json, a kept remote
// version) atomically, through the store like every other write.
func writeSyncFile(data, file string, content []byte) error {
	if err := os.MkdirAll(syncDir(data), 0o755); err != nil {
		return err
	}
	return store.UpdateConfig(syncDir(data), file, func([]byte, bool) ([]byte, error) { return content, nil })
}
