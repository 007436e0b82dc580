package session

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
	"github.com/magicfrog/mf-lsp/engine/safefs"
	"github.com/magicfrog/mf-lsp/engine/store"
	"github.com/magicfrog/mf-lsp/engine/textmerge"
)

// Saving a memory note (docs/protocol.md, "Save"):
//
//   - before a save, WillSave bumps `revision` and sets `updated` when the
//     autoRevision setting is on and the disk still holds the version the buffer
//     was based on (its revision and, where known, its content hash; never the
//     mtime). The new revision is one more than the disk's, or than the highest
//     revision a conflict showed on disk for this buffer, so that saving twice,
//     or saving after "Keep mine as next revision", never skips or repeats a
//     number. A note without frontmatter gets a block; a device note without
//     `machine` is bound to this machine; a note whose frontmatter does not
//     parse is never touched. A buffer identical to the disk gets no edits.
//   - When the disk moved on (an agent, another editor), the answer is a
//     conflict and no edits: the save is not silently merged. The editor writes
//     the buffer anyway (a language server cannot veto a save), so the disk
//     version is kept for "Take disk version", "Compare" and "Merge".
//   - When the note was deleted on disk, the save re-creates it: the revision
//     goes on from the one that was deleted, and the decision says so.

// The answers to a save conflict (docs/protocol.md: exact titles).
const (
	ActionTakeDisk = "Take disk version"
	ActionKeepMine = "Keep mine as next revision"
	ActionCompare  = "Compare"
	ActionMerge    = "Merge"
)

// Edit replaces the bytes Span of a buffer with Text.
type Edit = frontmatter.Edit

// Span is a byte range [Start, End) of a note's source.
type Span = frontmatter.Span

// saveState is what save-time conflict handling remembers for one open buffer.
type saveState struct {
	// floor is the highest revision a conflict showed on disk: the next revision
	// written from this buffer is above it even when the editor's own write took
	// the disk back to an older revision.
	floor int
	// asking: a conflict question is open; another save does not ask again.
	asking bool
	// disk is the disk's content when the conflict was seen, and written the hash
	// of the buffer the conflicting save wrote over it.
	disk    []byte
	written string
	// base is the version the buffer was based on when the conflict was seen
	// (nil when unknown): the common ancestor of a Merge.
	base []byte
	// kept is a "Keep mine" not yet on disk: answered while the editor's save
	// was still being written (Emacs and Neovim 0.10+ answer during
	// willSaveWaitUntil), so the disk did not hold the buffer yet. When the
	// client refuses the edit (eglot 1.9 asks "Proceed?") and the save of
	// that buffer lands, the server writes it (writeKept). A client that took
	// the edit holds the revision in its buffer, and its next save writes it:
	// a write behind its back would make it ask "changed since reading it"
	// (Neovim) at that save.
	kept *keptMine
}

// keptMine is the revision "Keep mine" promised for one version of a buffer.
type keptMine struct {
	buffer  []byte // the buffer it was answered for
	note    []byte // that buffer at the promised revision
	refused bool   // the client did not apply the edit
	saved   bool   // the editor's save of buffer landed (Saved) before the client answered
}

// SaveDecision is what to do before a buffer is written.
type SaveDecision struct {
	// Edits are the frontmatter edits of the buffer (byte offsets); none when
	// nothing is to change.
	Edits []Edit
	// Conflict is set when the disk moved on since the buffer was based on it.
	Conflict *SaveConflict
	// Recreated is set when the note was deleted on disk: saving creates it
	// again. It says so in a sentence.
	Recreated string
}

// SaveConflict is a save over a disk that moved on.
type SaveConflict struct {
	// Ask is true the first time: the question below is to be asked. While it
	// is open, further saves report the conflict without asking again.
	Ask bool
	// Question explains the conflict and asks how to resolve it.
	Question string
	// Actions are the answers offered (ActionTakeDisk, ... ActionMerge).
	Actions []string
}

// WillSave decides what saving the open buffer at path does. It never waits: an
// error means the tree is still loading or the disk could not be read, and the
// revision is not bumped.
func (s *Session) WillSave(path string) (SaveDecision, error) {
	snap, err := s.Snapshot(path)
	if errors.Is(err, ErrLoading) {
		return SaveDecision{}, fmt.Errorf("memory is still loading: the revision of %s was not bumped", path)
	}
	if err != nil || snap.Doc == nil {
		return SaveDecision{}, nil
	}
	disk, err := safefs.ReadFile(path, store.MaxRead)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return SaveDecision{}, fmt.Errorf("cannot read %s before saving: %v; revision not bumped", path, err)
	}
	if snap.HasBase && exists && conflicts(snap.Base, disk) {
		return SaveDecision{Conflict: s.saveConflict(snap, disk)}, nil
	}
	floor := 0
	s.withSave(snap.Doc.URI, func(st *saveState) { floor = st.floor })
	base := snap.Base
	deleted := snap.HasBase && !exists && (base.Revision != 0 || base.Hash != "")
	next := max(floor, 0) + 1
	switch {
	case exists:
		rev, readable := store.RevisionOf(disk)
		if !readable {
			rev = snap.Note.Revision() // the buffer repairs a broken block: go on from its number
		}
		next = max(rev, floor) + 1
	case deleted:
		next = max(base.Revision, floor) + 1
	}
	var out SaveDecision
	switch {
	case deleted && base.MovedTo != "":
		out.Recreated = fmt.Sprintf("%s was promoted to %s after this buffer read revision %d; saving this buffer on the old path makes a second copy of the note here (revision %d). Open the note where it went, and delete this copy unless it was meant.",
			snap.Note.Ref(), base.MovedTo, base.Revision, next)
	case deleted:
		out.Recreated = fmt.Sprintf("%s was deleted on disk after this buffer read revision %d; saving creates it again (revision %d). Delete it again if that was meant.",
			snap.Note.Ref(), base.Revision, next)
	}
	d := snap.Doc
	if !snap.Settings.AutoRevision || (exists && bytes.Equal(disk, d.Text)) {
		return out, nil
	}
	sets := []frontmatter.Set{{Key: "revision", Value: next}, {Key: "updated", Value: snap.Updated()}}
	if snap.Note.Dimension == engine.Device && snap.Note.Machine() == "" {
		if id := snap.Machine(); id != "" {
			sets = append(sets, frontmatter.Set{Key: "machine", Value: id})
		}
	}
	out.Edits = FrontmatterEdits(d.Text, snap.Note.Doc(), sets)
	return out, nil
}

// conflicts reports whether the disk no longer holds what the buffer was based
// on, as the stale-revision diagnostic judges it.
func conflicts(base Base, disk []byte) bool {
	if base.Revision == 0 && base.Hash == "" {
		return true // created on disk while the buffer was new
	}
	if rev, _ := store.RevisionOf(disk); rev != base.Revision {
		return true
	}
	return base.Hash != "" && store.Hash(disk) != base.Hash
}

// FrontmatterEdits are the edits giving a buffer's frontmatter sets; none when
// its frontmatter does not parse. Edits that would not change anything are
// left out.
func FrontmatterEdits(text []byte, doc *frontmatter.Document, sets []frontmatter.Set) []Edit {
	edits, ok := frontmatter.SetFields(text, doc, sets)
	if !ok {
		return nil
	}
	out := edits[:0:0]
	for _, e := range edits {
		if string(text[e.Span.Start:e.Span.End]) != e.Text {
			out = append(out, e)
		}
	}
	return out
}

// saveConflict records a save over a disk that moved on: the tree is brought
// up to the disk (the stale-revision diagnostic judges against it) and the
// question is asked once per open conflict.
func (s *Session) saveConflict(snap *Snapshot, disk []byte) *SaveConflict {
	d, base := snap.Doc, snap.Base
	diskRev, _ := store.RevisionOf(disk)
	if e := snap.Memory.Note(snap.Path); e == nil || e.Hash() != store.Hash(disk) {
		if snap.Memory.Refresh(snap.Path) {
			s.changed(snap.Memory)
		}
	}
	// A version the disk held before it (an agent's revision that an editor's
	// unasked save then wrote over) keeps its number: the next revision goes
	// above it too, so no two versions ever share one.
	floor := diskRev
	if o, ok := snap.Memory.OverwriteAt(snap.Path); ok {
		floor = max(floor, o.LostRevision)
	}
	ask := false
	s.withSave(d.URI, func(st *saveState) {
		st.floor = max(st.floor, floor)
		floor = st.floor
		if !st.asking {
			st.asking, ask = true, true
			st.disk, st.written, st.base = disk, store.Hash(d.Text), base.Text
		}
	})
	if !ask {
		return &SaveConflict{}
	}
	ref := snap.Note.Ref()
	var msg string
	switch {
	case base.Revision == 0 && base.Hash == "":
		msg = fmt.Sprintf("%s was created on disk (revision %d) while this buffer was new.", ref, diskRev)
	case diskRev != base.Revision:
		msg = fmt.Sprintf("%s is at revision %d on disk, written after this buffer read revision %d.", ref, diskRev, base.Revision)
	default:
		msg = fmt.Sprintf("%s changed on disk since this buffer read it (still revision %d: edited outside mf-lsp).", ref, diskRev)
	}
	msg = "mf-lsp: " + msg + " The save was not merged with it and the revision was not bumped. " +
		fmt.Sprintf("Take the disk version into the buffer, or keep yours as revision %d?", floor+1)
	return &SaveConflict{Ask: true, Question: msg, Actions: conflictActions(base.Text, disk, d.Text)}
}

// conflictActions are the answers the question offers for a conflict between
// base (the version the buffer was based on; nil when unknown), disk and buffer.
func conflictActions(base, disk, buffer []byte) []string {
	actions := []string{ActionTakeDisk, ActionKeepMine, ActionCompare}
	if base != nil {
		if _, ok := textmerge.Merge(string(base), string(disk), string(buffer)); ok {
			actions = append(actions, ActionMerge)
		}
	}
	return actions
}

// withSave runs fn on the save state of an open buffer under the session lock;
// not at all when the buffer is closed (its state went with it).
func (s *Session) withSave(uri string, fn func(st *saveState)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ds, ok := s.docs[uri]; ok {
		fn(&ds.save)
	}
}

// Answered closes the conflict question of uri: the next conflict asks again.
func (s *Session) Answered(uri string) {
	s.withSave(uri, func(st *saveState) { st.asking = false })
}

// ConflictDisk is the disk version the open conflict of uri found, and its
// revision; nil when there is none.
func (s *Session) ConflictDisk(uri string) ([]byte, int) {
	var disk []byte
	s.withSave(uri, func(st *saveState) { disk = st.disk })
	rev, _ := store.RevisionOf(disk)
	return disk, rev
}

// Resolution is a whole-buffer replacement answering a conflict.
type Resolution struct {
	// Text replaces the buffer's whole Buffer (the version it was computed for).
	Text   string
	Buffer []byte
	// Revision is the revision the buffer gets (Keep mine, Merge); 0 for Take disk.
	Revision int
	// Edits, when set, are used instead of Text: frontmatter edits of Buffer.
	Edits []Edit
	// OnDisk: the resolution is on disk already (Keep mine after the editor
	// wrote the buffer): the editor's buffer takes the edit and equals the disk.
	OnDisk bool
}

// TakeDisk replaces the buffer of uri with the disk version: the disk's current
// content, or, when the editor's own save has since written the buffer over
// it, the content the conflict found there. It rebases the buffer on the disk.
// ok is false when the buffer is not open or there is no disk version.
func (s *Session) TakeDisk(uri string) (Resolution, bool) {
	return s.withOpen(uri, func(ds *docState) (Resolution, bool) {
		disk, exists := s.rebaseOnDisk(ds)
		st := &ds.save
		remembered, written := st.disk, st.written
		if exists {
			rev, _ := store.RevisionOf(disk)
			st.floor = max(st.floor, rev)
		}
		// The disk counts only when it moved past what the conflict found there: an
		// agent wrote again. Otherwise it holds the editor's own save, or a save
		// still being written, and the version to take is the one remembered.
		content := disk
		if remembered != nil {
			remRev, _ := store.RevisionOf(remembered)
			diskRev, readable := store.RevisionOf(disk)
			movedOn := exists && readable && diskRev > remRev && store.Hash(disk) != written
			if !movedOn {
				content = remembered
			}
		}
		if content == nil {
			return Resolution{}, false
		}
		return Resolution{Text: string(content), Buffer: ds.doc.Text}, true
	})
}

// KeepMine makes the buffer of uri the next revision after the disk's (and
// after any revision a conflict saw there): revision = that + 1, updated = now,
// as frontmatter edits. It rebases the buffer on the disk, so the next save
// goes through. ok is false when the buffer is not open or its frontmatter does
// not parse.
//
// When the disk holds exactly the buffer (the editor wrote it anyway after the
// conflicting save: a server cannot veto a save), that next revision is also
// written to disk at once, revision-checked against those bytes, so the disk
// never keeps the un-bumped save until the user happens to write again
// (Resolution.OnDisk). Unsaved edits are never written.
func (s *Session) KeepMine(uri string) (Resolution, bool) {
	lockRoot := s.lockRootOf(uri)
	return s.withOpen(uri, func(ds *docState) (Resolution, bool) {
		disk, exists := s.rebaseOnDisk(ds)
		diskRev := diskRevision(disk, exists)
		ds.save.floor = max(ds.save.floor, diskRev)
		next := ds.save.floor + 1
		text := ds.doc.Text
		edits := FrontmatterEdits(text, frontmatter.Parse(text), []frontmatter.Set{{Key: "revision", Value: next}, {Key: "updated", Value: engine.FormatTime(s.opts.Now())}})
		if len(edits) == 0 {
			return Resolution{}, false
		}
		r := Resolution{Buffer: text, Revision: next, Edits: edits}
		out := frontmatter.Apply(text, edits)
		ds.save.kept = nil
		if exists && lockRoot != "" && bytes.Equal(disk, text) {
			if err := store.Write(lockRoot, ds.doc.Path, out, store.Expect{Revision: diskRev, Hash: store.Hash(disk)}); err != nil {
				s.opts.Logf("keep mine: %s not written (%v); the next save writes revision %d", ds.doc.Path, err, next)
			} else {
				ds.base, ds.hasBase = Base{Revision: next, Hash: store.Hash(out), Text: out}, true
				r.OnDisk = true
			}
		}
		if !r.OnDisk && lockRoot != "" {
			ds.save.kept = &keptMine{buffer: text, note: out}
		}
		return r, true
	})
}

// KeepMineApplied records whether the client applied Keep mine's edit to
// the buffer of uri. Applied, the buffer's next save writes the revision;
// refused, the server writes it once the editor's save of the buffer lands,
// or now when it landed already.
func (s *Session) KeepMineApplied(uri string, applied bool) {
	s.withKept(uri, func(st *saveState) bool {
		k := st.kept
		if applied || k.saved {
			st.kept = nil
			return !applied
		}
		k.refused = true
		return false
	})
}

// keptSaved is Saved's part of a Keep mine not yet on disk: the save of the
// buffer it was answered for landed. The write waits for the client's
// answer to the edit unless it came (refused) already.
func (s *Session) keptSaved(uri string, saved []byte) {
	s.withKept(uri, func(st *saveState) bool {
		k := st.kept
		switch {
		case !bytes.Equal(k.buffer, saved):
			st.kept = nil // another text was saved: its own save numbered it
			return false
		case k.refused:
			st.kept = nil
			return true
		default:
			k.saved = true
			return false
		}
	})
}

// withKept runs step on the save state of the open buffer uri when it has a
// Keep mine not yet on disk, under the session lock; when step says so, that
// revision is written (writeKept) once the lock is let go.
func (s *Session) withKept(uri string, step func(st *saveState) (write bool)) {
	s.mu.Lock()
	ds, ok := s.docs[uri]
	if !ok || ds.save.kept == nil {
		s.mu.Unlock()
		return
	}
	k, path := ds.save.kept, ds.doc.Path
	write := step(&ds.save)
	s.mu.Unlock()
	if write {
		s.writeKept(uri, path, k)
	}
}

// writeKept writes the revision a "Keep mine" promised for the buffer just
// saved (k.buffer), when the disk holds exactly that buffer: the save
// landed after the answer. Revision-checked against those bytes; anything
// else on disk (another writer since) is left alone, and the next save asks.
func (s *Session) writeKept(uri, path string, k *keptMine) {
	lockRoot := s.lockRootOf(uri)
	disk := readNote(path)
	saved := k.buffer
	if lockRoot == "" || !bytes.Equal(disk, saved) {
		return
	}
	note := k.note
	next, _ := store.RevisionOf(note)
	// Another writer may have taken the promised number while the save was
	// on its way (its version is in the history, written over by this save):
	// the buffer then goes above it, as no two versions share a revision.
	if top := s.highestKept(path); top >= next {
		next = top + 1
		sets := []frontmatter.Set{{Key: "revision", Value: next}, {Key: "updated", Value: engine.FormatTime(s.opts.Now())}}
		note = frontmatter.Apply(saved, FrontmatterEdits(saved, frontmatter.Parse(saved), sets))
	}
	rev, _ := store.RevisionOf(disk)
	if err := store.Write(lockRoot, path, note, store.Expect{Revision: rev, Hash: store.Hash(disk)}); err != nil {
		s.opts.Logf("keep mine: %s not written after its save (%v); the next save bumps the revision", path, err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ds, ok := s.docs[uri]; ok {
		ds.base, ds.hasBase = Base{Revision: next, Hash: store.Hash(note), Text: note}, true
		ds.save.floor = max(ds.save.floor, next)
	}
}

// highestKept is the highest revision the local history holds of the note at
// path; 0 when it holds none or the tree is not loaded.
func (s *Session) highestKept(path string) int {
	t, err := s.treeFor(path)
	if err != nil || t == nil || t.memory == nil {
		return 0
	}
	h, rel, ok := t.memory.History(path)
	if !ok {
		return 0
	}
	vs, err := h.Versions(rel)
	if err != nil {
		return 0
	}
	top := 0
	for _, v := range vs {
		top = max(top, v.Revision)
	}
	return top
}

// lockRootOf is the memory root whose lock serializes writes to the open
// buffer uri's note; "" when it is not open or its tree is not loaded.
func (s *Session) lockRootOf(uri string) string {
	s.mu.Lock()
	ds := s.docs[uri]
	s.mu.Unlock()
	if ds == nil || ds.doc.Path == "" {
		return ""
	}
	t, err := s.treeFor(ds.doc.Path)
	if err != nil || t == nil || t.memory == nil {
		return ""
	}
	return t.memory.Paths.LockRoot(ds.doc.Path)
}

// Merge makes the buffer of uri the three-way merge of the version it was
// based on, the disk version the conflict found, and the buffer, at the next
// revision. ok is false when they changed the same lines (or any of them is
// unknown).
func (s *Session) Merge(uri string) (Resolution, bool) {
	return s.withOpen(uri, func(ds *docState) (Resolution, bool) {
		base, theirs := ds.save.base, ds.save.disk
		if base == nil || theirs == nil {
			return Resolution{}, false
		}
		merged, ok := textmerge.Merge(string(base), string(theirs), string(ds.doc.Text))
		if !ok {
			return Resolution{}, false
		}
		diskRev := diskRevision(s.rebaseOnDisk(ds))
		theirRev, _ := store.RevisionOf(theirs)
		ds.save.floor = max(ds.save.floor, diskRev, theirRev)
		next := ds.save.floor + 1
		src := []byte(merged)
		if edits, ok := frontmatter.SetFields(src, frontmatter.Parse(src), []frontmatter.Set{{Key: "revision", Value: next}, {Key: "updated", Value: engine.FormatTime(s.opts.Now())}}); ok {
			src = frontmatter.Apply(src, edits)
		}
		return Resolution{Text: string(src), Buffer: ds.doc.Text, Revision: next}, true
	})
}

// withOpen runs fn on the state of the open file buffer uri under the session
// lock; ok is false when there is none.
func (s *Session) withOpen(uri string, fn func(ds *docState) (Resolution, bool)) (Resolution, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ds, open := s.docs[uri]
	if !open || ds.doc.Path == "" {
		return Resolution{}, false
	}
	return fn(ds)
}

// diskRevision is the revision of the disk's bytes; 0 when there is no file.
func diskRevision(disk []byte, exists bool) int {
	if !exists {
		return 0
	}
	rev, _ := store.RevisionOf(disk)
	return rev
}
