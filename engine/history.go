package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/magicfrog/mf-lsp/engine/frontmatter"
	"github.com/magicfrog/mf-lsp/engine/history"
	"github.com/magicfrog/mf-lsp/engine/safefs"
	"github.com/magicfrog/mf-lsp/engine/store"
)

// Local history (SPEC §7; docs/cli.md#history): the engine keeps every
// version it writes, and every version it sees replaced, in the history of
// the note's memory root (engine/history): <data>/memory/.mf-lsp/history for
// the data directory's notes, <project>/.magicfrog/memory/.mf-lsp/history for
// the project's task notes. The first load records nothing (but for the
// notes a tree reads on demand, which KeepLoaded records after the load:
// loadkeep.go): a loaded note is kept the moment something replaces it (a write through the engine, a change
// the watcher or a save brings to Refresh, or a Reload finding it changed),
// while the loaded tree still holds it. Device notes bound to another
// machine are never kept. Recording is best effort: a history that cannot be
// written never fails a write.

// HistoryConfig is magicfrog.json's "history": the bounds of the local
// history (history.DefaultPolicy when absent).
type HistoryConfig struct {
	MaxAgeDays   int `json:"maxAgeDays,omitempty"`
	MaxMegabytes int `json:"maxMegabytes,omitempty"`
}

// Policy is the history policy the configuration asks for.
func (c *HistoryConfig) Policy() history.Policy {
	p := history.DefaultPolicy
	if c != nil && c.MaxAgeDays > 0 {
		p.MaxAge = time.Duration(c.MaxAgeDays) * 24 * time.Hour
	}
	if c != nil && c.MaxMegabytes > 0 {
		p.MaxBytes = int64(c.MaxMegabytes) << 20
	}
	return p
}

// History is the history of the memory root holding the note at path, and
// the note's name there; ok is false for a path in no memory root.
func (m *Memory) History(path string) (h *history.Store, rel string, ok bool) {
	root := m.Paths.LockRoot(path)
	rel, ok = history.RelOf(root, filepath.Clean(path))
	if !ok {
		return nil, "", false
	}
	h = history.For(root)
	m.mu.RLock()
	policy := m.historyPolicy
	m.mu.RUnlock()
	h.SetPolicy(policy)
	return h, rel, true
}

// keeps reports whether the history may hold src as a version of the note
// at path: not a device note bound to another machine.
func (m *Memory) keeps(path string, src []byte) bool {
	loc, ok := m.Locate(path)
	if !ok {
		return false
	}
	if loc.Root.Dimension != Device || src == nil {
		return true
	}
	bound, _ := frontmatter.Parse(src).String("machine")
	return bound == "" || bound == m.MachineID()
}

// recordWrite keeps a write of the engine: the version it replaced (judged:
// a write without the content hash over a version changed in place outside
// the engine is an overwrite) and the version written. It reports whether
// a refresh that sees the note go from replaced to written has nothing left
// to judge (judged: the history has both, the replaced version was the
// disk's and no newer than any it holds, no overwrite is open), so the
// refresh after the write need not read the log again (refreshWritten).
func (m *Memory) recordWrite(path string, replaced []byte, existed, hashChecked bool, written []byte, now time.Time) (judged bool) {
	h, rel, ok := m.History(path)
	if !ok || !m.keeps(path, written) {
		return true // a refresh keeps no version of it either
	}
	defer h.Hold()()
	judged = existed && replaced != nil && m.keeps(path, replaced)
	if judged {
		o, err := h.Replaced(rel, replaced, hashChecked, history.BlobID(written), revisionOf(written), now)
		judged = err == nil && o == nil
	}
	if err := h.Wrote(rel, written, func() []byte { return diskNote(path) }, now); err != nil {
		judged = false
	}
	_ = h.PruneDue(now)
	if judged {
		_, open := h.OverwriteAt(rel)
		judged = !open
	}
	return judged
}

// Recorded keeps, in the local history, a write made through the store
// outside Write (sync taking a remote version): replaced is what the note
// held (nil: none), written what it holds now (nil: removed).
func (m *Memory) Recorded(path string, replaced, written []byte, now time.Time) {
	if written == nil {
		if replaced != nil {
			m.recordDelete(path, replaced, now)
		}
		return
	}
	m.recordWrite(path, replaced, replaced != nil, true, written, now)
}

// recordDelete keeps the last version of a note the engine removed.
func (m *Memory) recordDelete(path string, last []byte, now time.Time) {
	if h, rel, ok := m.History(path); ok && m.keeps(path, last) {
		_ = h.RecordDeleted(rel, last, now)
	}
}

// seen is what a refresh (or a Reload) saw of one note, under the tree's
// lock: the note the tree had (nil: none), the note it loaded (nil: none),
// whether a file is there now (a note or not), and its turn to record.
type seen struct {
	path        string
	before, now *Note
	exists      bool
	turn        uint64
}

// seenLocked is what the caller, holding the tree's lock, saw of path, with
// the next turn of path to record it (recordSeen, exactly once).
func (m *Memory) seenLocked(path string, before, now *Note, exists bool) seen {
	return seen{path: path, before: before, now: now, exists: exists, turn: m.seen.take(path)}
}

// recordSeen keeps what a refresh saw of one note, after the earlier
// refreshes of the same path (seenOrder): the version the tree had and the
// version it loaded. A version below the highest revision the history holds
// is an overwrite (history.Store.Seen).
func (m *Memory) recordSeen(s seen) {
	m.seen.record(s.path, s.turn, func() {
		if m.seenHook != nil {
			m.seenHook(s.path)
		}
		m.recordSeenNow(s.path, s.before, s.now, s.exists)
	})
}

func (m *Memory) recordSeenNow(path string, before, now *Note, nowExists bool) {
	var old []byte
	if before != nil && before.Resident() {
		// A note whose text is read on demand (Options.BodiesOnDemand) has
		// no version in memory to keep: the disk holds the new one now. The
		// history has it from the engine's write, an earlier refresh, or the
		// pass after the load that keeps every loaded version (KeepLoaded).
		old = before.src
	}
	var cur []byte
	if nowExists {
		if now != nil {
			var err error
			if cur, err = now.quietText(); err != nil {
				return // it changed again: judged at the next event
			}
		} else {
			// Not a note now (a problem, or outside the tree): the
			// version the tree had is kept, the disk's is not judged.
			if h, rel, ok := m.History(path); ok && old != nil && m.keeps(path, old) {
				_ = h.Record(rel, old, history.Observed, time.Now())
			}
			return
		}
	}
	if old == nil && cur == nil {
		return
	}
	h, rel, ok := m.History(path)
	if !ok || (cur != nil && !m.keeps(path, cur)) || (cur == nil && !m.keeps(path, old)) {
		return
	}
	if old != nil && !m.keeps(path, old) {
		old = nil
	}
	_, _ = h.Seen(rel, old, cur, func() []byte { return diskNote(path) }, time.Now())
}

// diskNote is the note file at path as the disk holds it now; nil when it
// cannot be read.
func diskNote(path string) []byte {
	b, err := safefs.ReadFile(path, MaxNoteSize)
	if err != nil {
		return nil
	}
	return b
}

func revisionOf(src []byte) int {
	rev, _ := store.RevisionOf(src)
	return rev
}

// LocalVersion is one version of a note in the local history.
type LocalVersion = history.Version

// FileOfRef is the file of the note a portable path names (user/style.md,
// agent/larry/notes/x.md, task/T-7/progress.md, device/laptop.md): the loaded
// note's, else where a write of it would land. A path to a file in a memory
// tree is taken as it is.
func (m *Memory) FileOfRef(ref string) (string, error) {
	ref = strings.TrimPrefix(filepath.ToSlash(ref), "/")
	for _, n := range m.Notes() {
		if n.Ref() == ref {
			return n.Path, nil
		}
	}
	top, rest, _ := strings.Cut(ref, "/")
	d, err := ParseDimension(top)
	if err != nil || rest == "" {
		if abs, err := filepath.Abs(ref); err == nil {
			if _, ok := m.Locate(abs); ok {
				return abs, nil
			}
		}
		return "", fmt.Errorf("%s: want a portable path (user/…, agent/[ID/]…, task/[ID/]…, device/…) or a note's file", ref)
	}
	owner := ""
	if first, key, ok := strings.Cut(rest, "/"); ok && d.HasOwners() && m.IsRegistered(d, first) {
		owner, rest = first, key
	}
	p, err := m.PathOf(d, owner, rest)
	if errors.Is(err, ErrNoProject) {
		return "", fmt.Errorf("%s: task notes live in a project (--project)", ref)
	}
	return p, err
}

// LocalHistory lists the versions of the note at path in its root's local
// history, newest first; none when the history never saw it.
func (m *Memory) LocalHistory(path string) ([]LocalVersion, error) {
	h, rel, ok := m.History(path)
	if !ok {
		return nil, fmt.Errorf("%s is not in a memory tree", path)
	}
	return h.Versions(rel)
}

// RestoreResult says what RestoreLocal wrote.
type RestoreResult struct {
	Revision int    // the revision restored
	Blob     string // its id in the history
	Written  int    // the revision the note is at now
	Exact    bool   // written byte for byte (its revision was above the disk's)
}

// RestoreLocal brings back the version of the note at path with revision
// rev (or, when blob is given, the version with that id, by prefix) from the
// local history, through the store with the disk's revision and hash
// expected. A version whose revision is above what is on disk (an overwrite
// took the note back) is written byte for byte: the note is that version
// again. Otherwise it is written as the next revision.
func (m *Memory) RestoreLocal(path string, rev int, blob string, now time.Time) (*RestoreResult, error) {
	if err := m.refuseScopeOnly("restore"); err != nil {
		return nil, err
	}
	h, rel, ok := m.History(path)
	if !ok {
		return nil, fmt.Errorf("%s is not in a memory tree", path)
	}
	vs, err := h.Versions(rel)
	if err != nil {
		return nil, err
	}
	var pick *LocalVersion
	top := 0
	for i := range vs {
		v := &vs[i]
		top = max(top, v.Revision, v.LostRevision)
		if v.Blob == "" || pick != nil {
			continue
		}
		if (blob != "" && strings.HasPrefix(v.Blob, blob)) || (blob == "" && v.Revision == rev && v.How != history.Overwrote) {
			pick = v
		}
	}
	if pick == nil {
		if blob != "" {
			return nil, fmt.Errorf("%s has no version %s in the local history", path, blob)
		}
		return nil, fmt.Errorf("%s has no revision %d in the local history", path, rev)
	}
	old, err := h.Get(pick.Blob)
	if err != nil {
		return nil, err
	}
	cur, err := safefs.ReadFile(path, store.MaxRead)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	expect := store.Expect{}
	curRev := 0
	if exists {
		curRev = revisionOf(cur)
		expect = store.Expect{Revision: curRev, Hash: store.Hash(cur)}
	}
	out := &RestoreResult{Revision: pick.Revision, Blob: pick.Blob}
	next := old
	if exists && store.Hash(cur) == store.Hash(old) {
		out.Written, out.Exact = curRev, true
		return out, nil // already there
	}
	if pick.Revision > curRev {
		out.Written, out.Exact = pick.Revision, true
	} else {
		out.Written = max(top, curRev) + 1
		if next, ok = WithRevision(old, out.Written, now); !ok {
			return nil, fmt.Errorf("%s at revision %d has frontmatter that does not parse; not restored", path, pick.Revision)
		}
	}
	if err := m.Replace(path, next, expect, now); err != nil {
		return nil, err
	}
	return out, nil
}

// Replace writes content as the note at path if the disk still holds what
// expect says (its revision and hash), through the store, and keeps both in
// the history: what a restore, a merge or a keep of an overwrite writes.
// content is written as it is (its frontmatter is the caller's).
func (m *Memory) Replace(path string, content []byte, expect store.Expect, now time.Time) error {
	if err := m.refuseScopeOnly("write"); err != nil {
		return err
	}
	if _, ok := m.Locate(path); !ok {
		return fmt.Errorf("%s is not in a memory tree", path)
	}
	if err := CheckNote(content); err != nil {
		return err
	}
	var replaced []byte
	var existed bool
	if _, err := store.Update(m.Paths.LockRoot(path), path, expect, func(current []byte, exists bool) ([]byte, error) {
		replaced, existed = current, exists
		return content, nil
	}); err != nil {
		return err
	}
	m.recordWrite(path, replaced, existed, expect.Hash != "", content, now)
	m.Refresh(path)
	return nil
}

// WithRevision is src with revision rev and updated now; ok is false when its
// frontmatter does not parse.
func WithRevision(src []byte, rev int, now time.Time) ([]byte, bool) {
	sets := []frontmatter.Set{{Key: "revision", Value: rev}, {Key: "updated", Value: FormatTime(now)}}
	edits, ok := frontmatter.SetFields(src, frontmatter.Parse(src), sets)
	if !ok {
		return nil, false
	}
	return frontmatter.Apply(src, edits), true
}

// Overwrite is an open overwrite of a note (history.Overwrite).
type Overwrite = history.Overwrite

// Overwrites is every open overwrite in m's memory roots, by note file: a
// stat of a file per root when unchanged.
func (m *Memory) Overwrites() map[string]Overwrite {
	var out map[string]Overwrite
	for _, root := range []string{m.Paths.MemoryDir(), m.Paths.TaskDir()} {
		if root == "" {
			continue
		}
		for rel, o := range history.For(root).Overwrites() {
			if out == nil {
				out = map[string]Overwrite{}
			}
			out[filepath.Join(root, filepath.FromSlash(rel))] = o
		}
	}
	return out
}

// OverwriteAt is the open overwrite of the note at path, if any.
func (m *Memory) OverwriteAt(path string) (Overwrite, bool) {
	h, rel, ok := m.History(path)
	if !ok {
		return Overwrite{}, false
	}
	return h.OverwriteAt(rel)
}

// HistoryVersion is the content of a version in the history of the note at
// path's root.
func (m *Memory) HistoryVersion(path, blob string) ([]byte, error) {
	h, _, ok := m.History(path)
	if !ok {
		return nil, fmt.Errorf("%s is not in a memory tree", path)
	}
	return h.Get(blob)
}
