package lsp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"time"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
	"github.com/magicfrog/mf-lsp/engine/safefs"
	"github.com/magicfrog/mf-lsp/engine/store"
)

// Saving a memory note (docs/protocol.md, "Save"):
//
//   - textDocument/willSaveWaitUntil bumps `revision` and sets `updated` when the
//     autoRevision setting is on and the disk still holds the version the buffer was
//     based on (Server.Base: its revision and, where known, its content hash; never
//     the mtime). The new revision is one more than the disk's, or than the highest
//     revision a conflict showed on disk for this buffer, so that saving twice, or
//     saving after "Keep mine as next revision", never skips or repeats a number. A
//     note without frontmatter gets a block; a device note without `machine` is bound
//     to this machine; a note whose frontmatter does not parse is never touched. A
//     buffer identical to the disk gets no edits (nothing is written that changed).
//   - When the disk moved on (an agent, another editor), the answer is no edits: the
//     save is not silently merged. The stale-revision diagnostic is published at once
//     and window/showMessageRequest offers "Take disk version" and "Keep mine as next
//     revision", applied with workspace/applyEdit. The editor writes the buffer as it
//     is anyway (a language server cannot veto a save), so the disk version is kept
//     in memory for "Take disk version".
//   - When the note was deleted on disk, the save re-creates it: the revision goes on
//     from the one that was deleted, and a warning says so.

// Exact action titles (docs/protocol.md).
const (
	ActionTakeDisk = "Take disk version"
	ActionKeepMine = "Keep mine as next revision"
)

// saveTracker is what save-time conflict handling remembers per buffer.
type saveTracker struct {
	mu   sync.Mutex
	uris map[protocol.DocumentUri]*saveState
}

type saveState struct {
	// floor is the highest revision a conflict showed on disk: the next revision
	// written from this buffer is above it even when the editor's own write took
	// the disk back to an older revision.
	floor int
	// asking: a conflict question is open; another save does not ask again.
	asking bool
	// disk is the disk's content when the conflict was seen, and written the hash of
	// the buffer the conflicting save wrote over it.
	disk    []byte
	written string
	// base is the version the buffer was based on when the conflict was seen
	// (nil when unknown): the common ancestor of a Merge.
	base []byte
}

// saveTrackers holds one tracker per Server (this file owns no Server field).
var saveTrackers sync.Map // *Server → *saveTracker

func (s *Server) saves() *saveTracker {
	if t, ok := saveTrackers.Load(s); ok {
		return t.(*saveTracker)
	}
	t, _ := saveTrackers.LoadOrStore(s, &saveTracker{uris: map[protocol.DocumentUri]*saveState{}})
	return t.(*saveTracker)
}

// with runs fn on uri's state under the tracker's lock.
func (t *saveTracker) with(uri protocol.DocumentUri, fn func(st *saveState)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := t.uris[uri]
	if st == nil {
		st = &saveState{}
		t.uris[uri] = st
	}
	fn(st)
}

func (s *Server) willSaveWaitUntil(_ *glsp.Context, p *protocol.WillSaveTextDocumentParams) ([]protocol.TextEdit, error) {
	uri := p.TextDocument.URI
	d, open := s.Docs.Get(uri)
	if !open {
		return []protocol.TextEdit{}, nil
	}
	n, ok := s.Note(uri)
	if !ok || n.Doc == nil {
		return []protocol.TextEdit{}, nil
	}
	disk, err := safefs.ReadFile(n.Path, store.MaxRead)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.LogMessage(protocol.MessageTypeWarning, "mf-lsp: cannot read %s before saving: %v; revision not bumped", n.Path, err)
		return []protocol.TextEdit{}, nil
	}
	base, hasBase := s.Base(uri)
	if hasBase && exists && conflicts(base, disk) {
		s.saveConflict(n, d, base, disk)
		return []protocol.TextEdit{}, nil
	}
	var floor int
	s.saves().with(uri, func(st *saveState) { floor = st.floor })
	deleted := hasBase && !exists && (base.Revision != 0 || base.Hash != "")
	next := max(floor, 0) + 1
	switch {
	case exists:
		rev, readable := store.RevisionOf(disk)
		if !readable {
			rev = n.Note.Revision() // the buffer repairs a broken block: go on from its number
		}
		next = max(rev, floor) + 1
	case deleted:
		next = max(base.Revision, floor) + 1
	}
	if deleted {
		s.ShowMessage(protocol.MessageTypeWarning,
			"mf-lsp: %s was deleted on disk after this buffer read revision %d; saving creates it again (revision %d). Delete it again if that was meant.",
			n.Note.Ref(), base.Revision, next)
	}
	if !s.Settings().AutoRevision || (exists && bytes.Equal(disk, d.Text)) {
		return []protocol.TextEdit{}, nil
	}
	sets := []frontmatter.Set{{Key: "revision", Value: next}, {Key: "updated", Value: engine.FormatTime(s.now())}}
	if n.Note.Dimension == engine.Device && n.Note.Machine() == "" {
		if id := n.Memory.MachineOf(s.Scope(n.Memory)); id != "" {
			sets = append(sets, frontmatter.Set{Key: "machine", Value: id})
		}
	}
	return frontmatterEdits(d, n.Note.Doc, sets), nil
}

// conflicts reports whether the disk no longer holds what the buffer was based on,
// as the stale-revision diagnostic judges it.
func conflicts(base engineBase, disk []byte) bool {
	if base.Revision == 0 && base.Hash == "" {
		return true // created on disk while the buffer was new
	}
	if rev, _ := store.RevisionOf(disk); rev != base.Revision {
		return true
	}
	return base.Hash != "" && store.Hash(disk) != base.Hash
}

// frontmatterEdits are the LSP edits giving the buffer's frontmatter sets; none when its
// frontmatter does not parse. Edits that would not change anything are left out.
func frontmatterEdits(d *Document, doc *frontmatter.Document, sets []frontmatter.Set) []protocol.TextEdit {
	edits, ok := frontmatter.SetFields(d.Text, doc, sets)
	out := []protocol.TextEdit{}
	if !ok {
		return out
	}
	m := d.Mapper()
	for _, e := range edits {
		if string(d.Text[e.Span.Start:e.Span.End]) == e.Text {
			continue
		}
		r, err := m.OffsetRange(e.Span.Start, e.Span.End)
		if err != nil {
			return []protocol.TextEdit{}
		}
		out = append(out, protocol.TextEdit{Range: r, NewText: e.Text})
	}
	return out
}

// saveConflict reports a save over a disk that moved on: the stale-revision
// diagnostic now, and the question (once per open conflict).
func (s *Server) saveConflict(n *Located, d *Document, base engineBase, disk []byte) {
	diskRev, _ := store.RevisionOf(disk)
	// Diagnostics judge against the loaded tree: make sure it has the disk's version
	// even if the file watcher has not reported the write yet.
	if e := n.Memory.Note(n.Path); e == nil || e.Hash != store.Hash(disk) {
		if n.Memory.Refresh(n.Path) {
			s.memoryChanged(n.Memory)
		} else {
			s.publishFor(d)
		}
	} else {
		s.publishFor(d)
	}
	ask := false
	s.saves().with(d.URI, func(st *saveState) {
		st.floor = max(st.floor, diskRev)
		if !st.asking {
			st.asking, ask = true, true
			st.disk, st.written, st.base = disk, store.Hash(d.Text), base.Text
		}
	})
	if !ask {
		return
	}
	ref := n.Note.Ref()
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
		fmt.Sprintf("Take the disk version into the buffer, or keep yours as revision %d?", diskRev+1)
	actions := conflictActions(base.Text, disk, d.Text)
	var question func()
	question = func() {
		s.ShowMessageRequest(protocol.MessageTypeWarning, msg, actions, func(choice string, err error) {
			if err == nil && choice == ActionCompare && s.sendCompare(d.URI) {
				question() // compared: now choose
				return
			}
			s.saves().with(d.URI, func(st *saveState) { st.asking = false })
			if err != nil {
				s.log.Printf("save conflict question for %s: %v", d.URI, err)
				return
			}
			switch choice {
			case ActionTakeDisk:
				s.resolveTakeDisk(d.URI)
			case ActionKeepMine:
				s.resolveKeepMine(d.URI)
			case ActionMerge:
				s.resolveMerge(d.URI)
			}
		})
	}
	question()
}

// rebaseOnDisk makes the buffer's base whatever the disk holds now. The disk is read
// under the workspace lock, so a didSave rebasing at the same time (onSave) cannot
// be overwritten with an older read.
func (s *Server) rebaseOnDisk(uri protocol.DocumentUri, path string) (disk []byte, exists bool) {
	s.ws.mu.Lock()
	defer s.ws.mu.Unlock()
	b := engineBase{}
	if data, err := safefs.ReadFile(path, store.MaxRead); err == nil {
		disk, exists = data, true
		b.Revision, _ = store.RevisionOf(data)
		b.Hash = store.Hash(data)
		b.Text = data
	}
	s.ws.bases[uri] = b
	return disk, exists
}

// TakeDiskEdit is the edit replacing the buffer of uri with the disk version: the
// disk's current content, or, when the editor's own save has since written the
// buffer over it, the content the conflict found there. It rebases the buffer on
// the disk. ok is false when the buffer is not open or there is no disk version.
func (s *Server) TakeDiskEdit(uri protocol.DocumentUri) (protocol.WorkspaceEdit, bool) {
	d, open := s.Docs.Get(uri)
	path, err := URIToPath(uri)
	if !open || err != nil {
		return protocol.WorkspaceEdit{}, false
	}
	disk, exists := s.rebaseOnDisk(uri, path)
	var remembered []byte
	var written string
	s.saves().with(uri, func(st *saveState) {
		remembered, written = st.disk, st.written
		if exists {
			rev, _ := store.RevisionOf(disk)
			st.floor = max(st.floor, rev)
		}
	})
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
		return protocol.WorkspaceEdit{}, false
	}
	end, err := d.Mapper().OffsetPosition(len(d.Text))
	if err != nil {
		return protocol.WorkspaceEdit{}, false
	}
	return protocol.WorkspaceEdit{Changes: map[protocol.DocumentUri][]protocol.TextEdit{
		uri: {{Range: protocol.Range{End: end}, NewText: string(content)}},
	}}, true
}

// KeepMineEdit is the edit making the buffer of uri the next revision after the
// disk's (and after any revision a conflict saw there): revision = that + 1,
// updated = now. It rebases the buffer on the disk, so the next save goes through.
// ok is false when the buffer is not open or its frontmatter does not parse.
func (s *Server) KeepMineEdit(uri protocol.DocumentUri) (protocol.WorkspaceEdit, int, bool) {
	d, open := s.Docs.Get(uri)
	path, err := URIToPath(uri)
	if !open || err != nil {
		return protocol.WorkspaceEdit{}, 0, false
	}
	disk, exists := s.rebaseOnDisk(uri, path)
	diskRev := 0
	if exists {
		diskRev, _ = store.RevisionOf(disk)
	}
	next := 0
	s.saves().with(uri, func(st *saveState) {
		st.floor = max(st.floor, diskRev)
		next = st.floor + 1
	})
	edits := frontmatterEdits(d, frontmatter.Parse(d.Text), []frontmatter.Set{{Key: "revision", Value: next}, {Key: "updated", Value: engine.FormatTime(s.now())}})
	if len(edits) == 0 {
		return protocol.WorkspaceEdit{}, 0, false
	}
	return protocol.WorkspaceEdit{Changes: map[protocol.DocumentUri][]protocol.TextEdit{uri: edits}}, next, true
}

func (s *Server) resolveTakeDisk(uri protocol.DocumentUri) {
	edit, ok := s.TakeDiskEdit(uri)
	if !ok {
		s.ShowMessage(protocol.MessageTypeWarning, "mf-lsp: there is no disk version of %s to take", uri)
		return
	}
	s.applyEdit(uri, ActionTakeDisk, edit)
}

func (s *Server) resolveKeepMine(uri protocol.DocumentUri) {
	edit, _, ok := s.KeepMineEdit(uri)
	if !ok {
		s.ShowMessage(protocol.MessageTypeWarning, "mf-lsp: cannot set the revision of %s: its frontmatter does not parse", uri)
		return
	}
	s.applyEdit(uri, ActionKeepMine, edit)
}

// applyEdit sends workspace/applyEdit (from a goroutine beside the read loop) and
// republishes the buffer's diagnostics against its new base.
func (s *Server) applyEdit(uri protocol.DocumentUri, label string, edit protocol.WorkspaceEdit) {
	if d, ok := s.Docs.Get(uri); ok {
		s.publishFor(d)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var res protocol.ApplyWorkspaceEditResponse
	if err := s.Call(ctx, string(protocol.ServerWorkspaceApplyEdit), &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: edit}, &res); err != nil {
		s.LogMessage(protocol.MessageTypeWarning, "mf-lsp: %s: workspace/applyEdit failed: %v", label, err)
		return
	}
	if !res.Applied {
		reason := "no reason given"
		if res.FailureReason != nil {
			reason = *res.FailureReason
		}
		s.ShowMessage(protocol.MessageTypeWarning, "mf-lsp: %s was not applied by the editor (%s)", label, reason)
	}
}
