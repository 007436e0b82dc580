package session

import (
	"context"
	"os"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/roam"
)

// Roaming (docs/cli.md#sync) for a front end that keeps its memory loaded:
// a sync, what a sync would do, the end of a sync conflict, and the fixes a
// sync-conflict finding offers. The reports are roam.Report, whose JSON
// docs/protocol.md documents for magicfrog.sync and magicfrog.syncStatus.

// Sync fetches, merges, commits and pushes m's data directory (remote "":
// the one remembered from the last sync).
func Sync(ctx context.Context, m *engine.Memory, remote string) (*roam.Report, error) {
	return roam.Sync(ctx, roam.Options{Memory: m, Remote: remote})
}

// SyncStatus is what a sync would do, changing nothing; offline does not
// fetch.
func SyncStatus(ctx context.Context, m *engine.Memory, offline bool) (*roam.Report, error) {
	return roam.Sync(ctx, roam.Options{Memory: m, Status: true, Offline: offline})
}

// ResolveSyncConflict ends the sync conflict of the note at the portable path
// rel, keeping "mine" or "theirs" (roam.Resolve), at now, and reloads m so
// the answer is what the tree holds.
func ResolveSyncConflict(ctx context.Context, m *engine.Memory, rel, keep string, now time.Time) error {
	if err := roam.Resolve(ctx, m, rel, keep, now); err != nil {
		return err
	}
	m.Reload()
	return nil
}

// AcceptHeldConfig writes the configuration file (magicfrog.json or
// layers.json, the portable path rel) that a sync held because it would
// widen a view: the remote's version, or its merge with this machine's.
func AcceptHeldConfig(ctx context.Context, m *engine.Memory, rel string) error {
	return roam.Accept(ctx, m, rel)
}

// RejectHeldConfig keeps this machine's version of a held configuration
// file; the next sync sends it over the remote's.
func RejectHeldConfig(ctx context.Context, m *engine.Memory, rel string) error {
	return roam.Reject(ctx, m, rel)
}

// SyncConflictFix is one fix of a sync-conflict finding: a resolve that keeps
// one side (Keep "mine" or "theirs", of the note at the portable path Path),
// or with Keep "" an edit that replaces the whole note (bytes 0 to its
// length) by Merged, both versions between conflict markers for the user to
// review.
type SyncConflictFix struct {
	Title  string
	Path   string
	Keep   string
	Merged string
}

// SyncConflictFixes are the fixes of a sync-conflict finding about a note
// whose bytes are src (nil: not loaded): Take theirs, Keep mine, and, when
// the remote's version is on disk, Merge. data is the finding's data: "path"
// (the portable path) and "theirs" (the remote's version's file; "" when the
// remote deleted the note).
func SyncConflictFixes(src []byte, data map[string]any) []SyncConflictFix {
	rel, _ := data["path"].(string)
	if rel == "" {
		return nil
	}
	theirsFile, _ := data["theirs"].(string)
	takeTitle := "Take theirs"
	if theirsFile == "" {
		takeTitle = "Take theirs (delete this note)"
	}
	out := []SyncConflictFix{{Title: takeTitle, Path: rel, Keep: "theirs"}, {Title: "Keep mine", Path: rel, Keep: "mine"}}
	if theirsFile == "" || src == nil {
		return out
	}
	theirs, err := os.ReadFile(theirsFile)
	if err != nil {
		return out
	}
	return append(out, SyncConflictFix{
		Title:  "Merge (both versions in the note; review, save, then Keep mine)",
		Path:   rel,
		Merged: string(roam.MergeText(src, theirs)),
	})
}
