package roam

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/store"
)

// HeldConfig is configuration from the remote (magicfrog.json, layers.json)
// that would widen a local participant's view (SPEC §9): it is not written to
// the live file until the user accepts it (Accept) or rejects it (Reject).
type HeldConfig struct {
	Path    string   // rosterPath or layersPath
	Exposes []string // what it would open up (engine.Memory.Widening), at most maxExposes
	More    int      // and this many more
}

const maxExposes = 20

// HeldState is a held configuration change as the sync state keeps it; the
// version that would be written is kept in <data>/sync/held/<path>.
type HeldState struct {
	Theirs string    `json:"theirs"`          // the remote blob it came from
	Local  string    `json:"local,omitempty"` // the live file's blob when it was held ("": none)
	Since  time.Time `json:"since"`
}

func heldFile(data, rel string) string {
	return filepath.Join(syncDir(data), "held", filepath.FromSlash(rel))
}

// holdWidening takes out of the plan every write of the roster or layers.json
// that would widen a view, and reports it instead. The remote keeps its
// version and this machine its own until the user decides.
func (s *syncer) holdWidening() {
	var change engine.ConfigChange
	var cfg []int
	for i, w := range s.writes {
		f := engine.ConfigFile{Change: true, Content: w.content}
		switch w.rel {
		case rosterPath:
			change.Roster = f
		case layersPath:
			change.Layers = f
		default:
			continue
		}
		cfg = append(cfg, i)
	}
	if len(cfg) == 0 {
		return
	}
	exposes := s.o.Memory.Widening(change)
	if len(exposes) == 0 {
		return
	}
	for _, i := range slices.Backward(cfg) {
		w := s.writes[i]
		s.writes = slices.Delete(s.writes, i, i+1)
		drop := func(cs []Change) []Change {
			return slices.DeleteFunc(cs, func(c Change) bool { return c.Path == w.rel })
		}
		s.rep.Pulled, s.rep.Pushed = drop(s.rep.Pulled), drop(s.rep.Pushed)
		if rf, ok := s.remote[w.rel]; ok {
			s.merged[w.rel] = rf
		} else {
			delete(s.merged, w.rel)
		}
		s.keepBase(w.rel)
		h := HeldState{Theirs: w.theirs.String(), Since: s.o.Now().UTC()}
		if old, ok := s.st.Held[w.rel]; ok && old.Theirs == h.Theirs {
			h.Since = old.Since
		}
		if w.local != nil {
			h.Local = w.local.hash.String()
		}
		s.held[w.rel] = h
		s.heldContent[w.rel] = w.content
		hc := HeldConfig{Path: w.rel, Exposes: exposes}
		if len(exposes) > maxExposes {
			hc.Exposes, hc.More = exposes[:maxExposes], len(exposes)-maxExposes
		}
		s.rep.HeldConfig = append(s.rep.HeldConfig, hc)
	}
	slices.Reverse(s.rep.HeldConfig)
}

// keepHeld writes the version of every held change beside the sync state
// and removes those no longer held.
func (s *syncer) keepHeld() error {
	for p := range s.st.Held {
		if _, still := s.held[p]; !still {
			os.Remove(heldFile(s.data, p))
		}
	}
	for p, b := range s.heldContent {
		if b == nil {
			os.Remove(heldFile(s.data, p))
			continue
		}
		if err := os.MkdirAll(filepath.Dir(heldFile(s.data, p)), 0o755); err != nil {
			return err
		}
		if err := writeSyncFile(s.data, heldFile(s.data, p), b); err != nil {
			return err
		}
	}
	return nil
}

// Accept writes a held configuration change to the live file: from then on
// the views it widens are widened. The next sync sends it if it was a merge.
func Accept(ctx context.Context, m *engine.Memory, rel string) error {
	return decideHeld(ctx, m, rel, true)
}

// Reject drops a held configuration change: the live file stays, and the
// next sync sends it over the remote's version.
func Reject(ctx context.Context, m *engine.Memory, rel string) error {
	return decideHeld(ctx, m, rel, false)
}

func decideHeld(ctx context.Context, m *engine.Memory, rel string, accept bool) error {
	data := m.Paths.DataDir
	st, unlock, err := lockedState(ctx, data)
	if err != nil {
		return err
	}
	defer unlock()
	h, ok := st.Held[rel]
	if !ok {
		return fmt.Errorf("%s: no configuration change from the remote is held there (mf-lsp sync status lists them)", rel)
	}
	file, lock, _ := newMapping(m).local(rel)
	cur, err := os.ReadFile(file)
	exists := err == nil
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if !accept && !exists {
		// Sent as it is, "none" would delete the remote's file for every
		// machine: not what refusing a change means.
		return fmt.Errorf("%s: this machine has none, so rejecting would delete the remote's for every machine; write yours first (it is then what the next sync sends), or accept", rel)
	}
	if accept {
		if (exists && blobHash(cur).String() != h.Local) || (!exists && h.Local != "") {
			return fmt.Errorf("%s changed here since the sync held the remote's version: sync again, then decide", rel)
		}
		content, err := os.ReadFile(heldFile(data, rel))
		rm := errors.Is(err, os.ErrNotExist) // the remote removed the file
		if err != nil && !rm {
			return err
		}
		expect := store.Expect{}
		if exists {
			expect = store.Expect{Revision: revision(cur), Hash: store.Hash(cur)}
		}
		switch {
		case rm && exists:
			err = store.Remove(lock, file, expect)
		case !rm:
			if err = os.MkdirAll(lock, 0o755); err == nil {
				err = store.Write(lock, file, content, expect)
			}
		}
		if err != nil {
			return err
		}
	}
	// Either way the remote's version is the base from here: accepted, the
	// live file holds it (or a merge with it, which the next sync sends);
	// rejected, the live file differs from it and the next sync sends it.
	if st.Notes == nil {
		st.Notes = map[string]Base{}
	}
	st.Notes[rel] = Base{Blob: h.Theirs}
	delete(st.Held, rel)
	if err := st.save(data); err != nil {
		return err
	}
	os.Remove(heldFile(data, rel))
	m.Reload()
	return nil
}

// unfit says why a remote entry of the sync set cannot be taken, from its
// tree entry and object header alone ("" when it may be read): a link or a
// submodule, a name that is no note this machine keeps, an object larger
// than a note (or a configuration file) may be. Nothing is read to say so.
func (s *syncer) unfit(p string, f treeFile) string {
	switch {
	case f.mode == filemode.Symlink:
		return "a link: links are not synced"
	case f.mode != filemode.Regular && f.mode != filemode.Executable:
		return fmt.Sprintf("not a file (git mode %s)", f.mode)
	}
	if _, _, ok := s.mp.local(p); !ok {
		return "not a note path this machine keeps"
	}
	if b, ok := s.st.Notes[p]; ok && b.Blob == f.hash.String() {
		return "" // the version of the last sync: taken (or sent) then
	}
	if l := s.local[p]; l != nil && l.hash == f.hash {
		return "" // what this machine holds
	}
	limit := int64(engine.MaxNoteSize)
	if p == rosterPath || p == layersPath {
		limit = engine.MaxConfigSize
	}
	size, err := s.g.size(f.hash)
	switch {
	case err != nil:
		return "unreadable: " + err.Error()
	case size > limit:
		return fmt.Sprintf("%d bytes: larger than %d, not read", size, limit)
	}
	return ""
}

// blobLimit bounds what blob reads: no note or configuration file is larger,
// so a huge object a remote holds is never read whole.
const blobLimit = engine.MaxNoteSize

var errTooLarge = errors.New("larger than a note may be: not read")

// size is an object's size from its header, without reading its content.
func (g *gitRepo) size(h plumbing.Hash) (int64, error) {
	if n, err := g.staged.EncodedObjectSize(h); err == nil {
		return n, nil
	}
	return g.r.Storer.EncodedObjectSize(h)
}

// lockedState takes the data directory's sync lock and reads the sync state
// under it: what accept, reject and resolve change. unlock releases the lock.
func lockedState(ctx context.Context, data string) (st *State, unlock func(), err error) {
	if unlock, err = lockSync(ctx, data); err != nil {
		return nil, nil, err
	}
	if st, err = LoadState(data); err != nil {
		unlock()
		return nil, nil, err
	}
	return st, unlock, nil
}
