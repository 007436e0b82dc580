package session

import (
	"fmt"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/safefs"
	"github.com/magicfrog/mf-lsp/engine/store"
)

// DefaultMaxDocumentBytes bounds an open document. Memory notes are small
// Markdown files; anything this large is not one, and tracking it would only
// cost memory and latency on every keystroke.
const DefaultMaxDocumentBytes = 8 << 20

// Document is one open document at one version. It is immutable: an edit
// replaces the Document, so code holding one (a snapshot, a goroutine) keeps
// a consistent view. Never modify Text.
type Document struct {
	URI        string
	Path       string // "" when URI is not a file URI
	LanguageID string
	Version    int32
	Text       []byte
	// SavedVersion is the version at the last save (-1 if not saved since open).
	SavedVersion int32
}

// Base is the disk version a buffer was loaded from or last saved as.
type Base struct {
	Revision int
	Hash     string // "" when the buffer never matched the disk
	Text     []byte // the disk's bytes when Hash is set: a merge's common ancestor
	// MovedTo is the file a promotion moved the note to from under the buffer,
	// when the client left the buffer on the old path (PromotedAway); the next
	// base the buffer takes (a save, a reopen) has none.
	MovedTo string
}

// TooLargeError says a document is over the size limit and is not tracked.
type TooLargeError struct {
	URI         string
	Size, Limit int
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is %s, over the %s limit for memory notes; mf-lsp ignores it while it is this large",
		e.URI, humanBytes(e.Size), humanBytes(e.Limit))
}

// NotOpenError says a change came for a document that is not open.
type NotOpenError struct{ URI string }

func (e *NotOpenError) Error() string {
	return fmt.Sprintf("didChange for %s, which is not open", e.URI)
}

// docState is everything the session keeps for one open document; closing the
// document drops all of it.
type docState struct {
	doc     *Document
	base    Base
	hasBase bool
	parsed  parsedBuffer
	save    saveState
}

// parsedBuffer caches the note parsed from one version of a buffer.
type parsedBuffer struct {
	doc    *Document // the version parsed (documents are immutable)
	memory *engine.Memory
	tree   uint64 // the tree's version: a new roster or layer can reclassify the note
	note   *engine.Note
	links  *noteLinks // the links of this version's text, found once
}

// Open records a document opened in the client (reopening replaces it) and
// what it is based on on disk. A document over the size limit is not tracked.
func (s *Session) Open(uri, languageID string, version int32, text []byte) (*Document, error) {
	path, _ := URIToPath(uri)
	d := &Document{URI: uri, Path: path, LanguageID: languageID, Version: version, Text: text, SavedVersion: -1}
	base := baseOf(path, text)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(text) > s.maxDoc {
		s.forgetLocked(uri)
		s.tooLarge[uri] = true
		return nil, &TooLargeError{uri, len(text), s.maxDoc}
	}
	delete(s.tooLarge, uri)
	s.forgetLocked(uri)
	st := &docState{doc: d, base: base, hasBase: path != ""}
	s.docs[uri] = st
	if path != "" {
		s.byPath[path] = st
	}
	return d, nil
}

// Change replaces the text of an open document with its next version (the
// protocol edge applies the client's edits). A document ignored as too large
// comes back only with whole texts (whole is false for incremental edits, whose
// base text was dropped): (nil, nil) while it stays ignored.
func (s *Session) Change(uri string, version int32, text []byte, whole bool) (*Document, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.docs[uri]
	if !ok {
		if !s.tooLarge[uri] {
			return nil, &NotOpenError{uri}
		}
		if !whole || len(text) > s.maxDoc {
			return nil, nil
		}
		delete(s.tooLarge, uri)
		path, _ := URIToPath(uri)
		d := &Document{URI: uri, Path: path, Version: version, Text: text, SavedVersion: -1}
		st = &docState{doc: d}
		s.docs[uri] = st
		if path != "" {
			s.byPath[path] = st
		}
		return d, nil
	}
	if len(text) > s.maxDoc {
		s.forgetLocked(uri)
		s.tooLarge[uri] = true
		return nil, &TooLargeError{uri, len(text), s.maxDoc}
	}
	d := *st.doc
	d.Version, d.Text = version, text
	st.doc = &d
	return &d, nil
}

// Document returns the current version of an open document.
func (s *Session) Document(uri string) (*Document, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.docs[uri]
	if !ok {
		return nil, false
	}
	return st.doc, true
}

// Documents returns every open document (in no particular order).
func (s *Session) Documents() []*Document {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Document, 0, len(s.docs))
	for _, st := range s.docs {
		out = append(out, st.doc)
	}
	return out
}

// Saved records a save: the document's current version is what is on disk. It
// writes a "Keep mine" answered before this save landed (writeKept), refreshes
// the tree holding it and rebases the buffer on the disk.
func (s *Session) Saved(uri string) (*Document, bool) {
	s.mu.Lock()
	st, ok := s.docs[uri]
	if !ok {
		s.mu.Unlock()
		return nil, false
	}
	d := *st.doc
	d.SavedVersion = d.Version
	st.doc = &d
	t := s.treeOfLocked(d.Path)
	s.mu.Unlock()
	s.keptSaved(uri, d.Text)
	if t != nil && t.memory != nil && t.memory.Refresh(d.Path) {
		s.changed(t.memory)
	}
	s.rebase(uri, d.Text)
	return &d, true
}

// Close forgets a document closed in the client, and every lone tree no open
// document is in any more.
func (s *Session) Close(uri string) (*Document, bool) {
	s.mu.Lock()
	st, ok := s.docs[uri]
	s.forgetLocked(uri)
	delete(s.tooLarge, uri)
	dropped := s.dropUnusedLoneLocked()
	s.mu.Unlock()
	for _, t := range dropped {
		t.close()
	}
	if !ok {
		return nil, false
	}
	return st.doc, true
}

func (s *Session) forgetLocked(uri string) {
	st, ok := s.docs[uri]
	if !ok {
		return
	}
	delete(s.docs, uri)
	if st.doc.Path != "" && s.byPath[st.doc.Path] == st {
		delete(s.byPath, st.doc.Path)
	}
}

// PromotedAway records that a promotion moved the note of the open buffer uri
// to the file to, and the client left the buffer where it was (it neither
// applies a RenameFile nor opens documents for the server: eglot 1.9, Vim +
// yegappan). The buffer's stale-revision finding then names where the note
// went, and so does the warning of a save that would write a second copy of
// it at the old path.
func (s *Session) PromotedAway(uri, to string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.docs[uri]; ok && st.hasBase {
		st.base.MovedTo = to
	}
}

// rebase records what a buffer is based on after a save: the disk version when
// the buffer holds exactly the disk's bytes, else only the revision it names.
// A save whose bytes the disk no longer holds does not take the buffer back
// from a later base the disk still holds: Keep mine, answered while the
// editor wrote anyway, writes the next revision and rebases the buffer on it,
// and the editor's didSave for the older bytes may come after (Neovim 0.12:
// the next :write was asked about again, "revision 6 on disk, written after
// this buffer read revision 1").
func (s *Session) rebase(uri string, text []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.docs[uri]
	if !ok {
		return
	}
	b := baseOf(st.doc.Path, text)
	if b.Hash == "" && st.hasBase && st.base.Hash != "" && st.base.Revision > b.Revision {
		if disk := readNote(st.doc.Path); disk != nil && store.Hash(disk) == st.base.Hash {
			return
		}
	}
	st.base, st.hasBase = b, st.doc.Path != ""
}

// rebaseOnDisk makes the buffer's base whatever the disk holds now. The disk is
// read under the session lock, so a save rebasing at the same time cannot be
// overwritten with an older read.
func (s *Session) rebaseOnDisk(st *docState) (disk []byte, exists bool) {
	b := Base{}
	if data, err := safefs.ReadFile(st.doc.Path, store.MaxRead); err == nil {
		disk, exists = data, true
		b.Revision, _ = store.RevisionOf(data)
		b.Hash = store.Hash(data)
		b.Text = data
	}
	st.base, st.hasBase = b, true
	return disk, exists
}

// baseOf is the disk version behind a buffer: the disk's when the buffer holds
// exactly its bytes, or when the buffer names the disk's next revision (it is
// that revision being made from the disk version: a promotion's WorkspaceEdit
// bumps the buffer, then moves the file, and the editor opens the moved note
// so), else only the revision the buffer names.
func baseOf(path string, text []byte) Base {
	b := Base{}
	if path == "" {
		return b
	}
	disk, err := safefs.ReadFile(path, engine.MaxNoteSize)
	bufRev, _ := store.RevisionOf(text)
	diskRev, readable := store.RevisionOf(disk)
	if err == nil && (string(disk) == string(text) || (readable && bufRev == diskRev+1)) {
		b.Revision = diskRev
		b.Hash = store.Hash(disk)
		b.Text = disk
	} else {
		b.Revision = bufRev
	}
	return b
}

func humanBytes(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// readNote is a note file's bytes, nil when unreadable.
func readNote(path string) []byte {
	b, err := safefs.ReadFile(path, engine.MaxNoteSize)
	if err != nil {
		return nil
	}
	return b
}
