package session

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/magicfrog/mf-lsp/diagnostics"
	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/safefs"
	"github.com/magicfrog/mf-lsp/engine/store"
)

// An overwrite nobody asked for (docs/diagnostics.md, overwritten-revision):
// a version replaced a newer one it does not descend from. Its answers are
// Restore (the version lost comes back), Merge (three-way: what the
// overwriting version was based on, the version lost, and the note now) and
// Keep (the note now, as the next revision after the lost one). Each is a
// revision-checked write through the engine, which closes the overwrite.

// The choices of magicfrog.resolveOverwrite.
var OverwriteChoices = []string{"restore", "merge", "keep"}

// ResolveOverwrite answers the open overwrite of the note at path in m with
// choice ("restore", "merge" or "keep") at now. It reports the revision the
// note is at afterwards.
func ResolveOverwrite(m *engine.Memory, path, choice string, now time.Time) (int, error) {
	o, ok := m.OverwriteAt(path)
	if !ok {
		return 0, fmt.Errorf("%s has no overwritten revision to resolve", path)
	}
	cur, err := safefs.ReadFile(path, store.MaxRead)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	if err != nil {
		return 0, fmt.Errorf("%s is gone; mf-lsp restore brings back revision %d", path, o.LostRevision)
	}
	curRev, _ := store.RevisionOf(cur)
	next := max(curRev, o.LostRevision) + 1
	expect := store.Expect{Revision: curRev, Hash: store.Hash(cur)}
	var out []byte
	switch choice {
	case "restore":
		r, err := m.RestoreLocal(path, o.LostRevision, o.Lost, now)
		if err != nil {
			return 0, err
		}
		return r.Written, nil
	case "merge":
		merged, ok := diagnostics.OverwriteMerge(m, path, cur)
		if !ok {
			return 0, fmt.Errorf("%s: revision %d and this version changed the same lines (or the version this one was based on is not in the history); restore it, or keep this version", path, o.LostRevision)
		}
		if out, ok = engine.WithRevision(merged, next, now); !ok {
			return 0, fmt.Errorf("%s: the merged version's frontmatter does not parse", path)
		}
	case "keep":
		if out, ok = engine.WithRevision(cur, next, now); !ok {
			return 0, fmt.Errorf("%s: its frontmatter does not parse; fix it, then keep it", path)
		}
	default:
		return 0, fmt.Errorf("choice %q: want restore, merge or keep", choice)
	}
	if err := m.Replace(path, out, expect, now); err != nil {
		return 0, err
	}
	return next, nil
}

// ResolveOverwrite answers the overwrite of the note at path (ResolveOverwrite
// above) and, when its buffer is open and held the disk's version, gives the
// resolution that takes the buffer to the new disk version (ok false: leave
// the buffer alone).
func (s *Session) ResolveOverwrite(path, choice string) (rev int, uri string, r Resolution, ok bool, err error) {
	snap, err := s.Snapshot(path)
	if err != nil {
		return 0, "", Resolution{}, false, err
	}
	before, _ := safefs.ReadFile(path, store.MaxRead)
	if rev, err = ResolveOverwrite(snap.Memory, path, choice, s.opts.Now()); err != nil {
		return 0, "", Resolution{}, false, err
	}
	s.changed(snap.Memory)
	uri = PathToURI(path)
	r, ok = s.withOpen(uri, func(ds *docState) (Resolution, bool) {
		if string(ds.doc.Text) != string(before) {
			return Resolution{}, false // unsaved edits: the stale-revision finding offers the disk version
		}
		disk, exists := s.rebaseOnDisk(ds)
		if !exists {
			return Resolution{}, false
		}
		return Resolution{Text: string(disk), Buffer: ds.doc.Text}, true
	})
	return rev, uri, r, ok, nil
}
