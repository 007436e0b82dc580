package session

import (
	"bytes"
	"context"
	"errors"
	"os"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/journal"
	"github.com/magicfrog/mf-lsp/engine/participant"
)

// Snapshot is what a feature sees: one tree, the session's scope and clock,
// and, for a note, the note as its open buffer has it. It is immutable (the
// tree it names may refresh under it, as engine.Memory allows; the note and
// the document do not change), so a feature may keep it beyond the request.
type Snapshot struct {
	Memory   *engine.Memory
	Settings Settings
	// Scope is the session scope (the settings, else the project binding);
	// Participant is the one agent an editor answers for, as
	// participant.Resolve decides (the settings, $MAGICFROG_AGENT, the
	// binding). When it refused (several agents and none chosen), Refused is
	// its error and Participant has no agent: hover and code lens say so,
	// render and the effective view answer the error.
	Scope, Participant engine.Scope
	Refused            error
	// Today is the journal's today: the setting, else the local date.
	Today journal.Day

	// Path is the note's file; "" for a snapshot of the tree alone.
	Path string
	// Note is parsed from the open buffer, else the loaded note.
	Note *engine.Note
	// Doc is the open buffer; nil when the note is not open.
	Doc *Document
	// Base is what the open buffer was based on, when HasBase.
	Base    Base
	HasBase bool

	session *Session
	tree    *tree
	// links are the open buffer's links, found once per version and shared
	// by its diagnostics and every request on it; nil when not open.
	links *noteLinks
}

// Snapshot is the one way to memory. For path "" it is the main tree; for a
// file, the tree that holds it, with the note as its open buffer has it. It
// never waits: ErrLoading while the tree loads (a lone tree starts loading
// beside the caller), ErrNotNote for files that are not memory notes, and the
// error that kept the main tree from opening.
func (s *Session) Snapshot(path string) (*Snapshot, error) {
	t, err := s.treeFor(path)
	if err != nil {
		return nil, err
	}
	m := t.memory
	st := s.Settings()
	scope := st.Scope(m)
	who, refused := resolveParticipant(m, st)
	snap := &Snapshot{Memory: m, Settings: st, Scope: scope, Participant: who, Refused: refused, Today: s.today(st), session: s, tree: t}
	if path == "" {
		return snap, nil
	}
	snap.Path = path
	s.mu.Lock()
	ds := s.byPath[path]
	var d *Document
	if ds != nil {
		d, snap.Base, snap.HasBase = ds.doc, ds.base, ds.hasBase
	}
	s.mu.Unlock()
	if d == nil {
		snap.Note = m.Note(path)
		if snap.Note != nil && !snap.Note.Resident() {
			// Features read the snapshot's note whole: take its text once
			// (checked against the load's hash) and answer from that.
			src, err := snap.Note.Text()
			if err != nil {
				return nil, err
			}
			if snap.Note, _, _ = m.Parse(path, src); snap.Note == nil {
				return nil, ErrNotNote
			}
		}
	} else {
		snap.Doc = d
		snap.Note, snap.links = s.parse(ds, m, d)
	}
	if snap.Note == nil {
		return nil, ErrNotNote
	}
	return snap, nil
}

// resolveParticipant is the participant the settings name in m
// (participant.Resolve), with no agent when it refused, and why.
func resolveParticipant(m *engine.Memory, st Settings) (engine.Scope, error) {
	who, refused := participant.Resolve(m, st.Given(), os.Getenv)
	if refused != nil {
		who.Agents = nil
	}
	return who, refused
}

// AwaitSnapshot is Snapshot for work beside a read loop (a command): it
// waits, until ctx is done (ErrLoading then), for the main tree and for the
// tree of path, then snapshots. A path the main tree locates but holds no note
// at (a note written a moment ago that the index has not seen, which promote
// reads from the disk) gets the main tree's snapshot, with Note nil.
func (s *Session) AwaitSnapshot(ctx context.Context, path string) (*Snapshot, error) {
	if err := s.await(ctx, ""); err != nil {
		return nil, ErrLoading
	}
	main, err := s.Snapshot("")
	if err != nil || path == "" {
		return main, err
	}
	_ = s.await(ctx, path)
	snap, err := s.Snapshot(path)
	if errors.Is(err, ErrNotNote) {
		if _, ok := main.Memory.Locate(path); ok {
			return main, nil
		}
	}
	return snap, err
}

// today is the journal's today: the setting, else the clock's local date.
func (s *Session) today(st Settings) journal.Day {
	if st.Today != "" {
		if d, err := journal.ParseDay(st.Today); err == nil {
			return d
		}
	}
	return journal.DayOf(s.opts.Now())
}

// parse is the note of an open buffer: the loaded note when it keeps its
// whole text and the buffer holds those bytes (its token counts and rendered
// element are cached there), else the buffer parsed once per version, so
// that hovering over a large edited note does not tokenize it again on every
// request, and an open note is resident however large (engine.ResidentMax).
//
// The buffer's links (noteLinks) are kept per version of its text, whatever
// tree parsed it: after an edit the diagnostics and the first request each
// read the links of a 45 KB note (goldmark, 1.6 ms), on two CPUs at once.
func (s *Session) parse(ds *docState, m *engine.Memory, d *Document) (*engine.Note, *noteLinks) {
	s.mu.Lock()
	c := ds.parsed
	if c.doc != d || c.links == nil {
		c = parsedBuffer{doc: d, links: &noteLinks{}}
		ds.parsed = c
	}
	s.mu.Unlock()
	if e := m.Note(d.Path); e != nil && e.Resident() {
		if src, _ := e.Text(); bytes.Equal(src, d.Text) {
			return e, c.links
		}
	}
	tree := m.Version()
	if c.memory == m && c.tree == tree && c.note != nil {
		return c.note, c.links
	}
	e, _, ok := m.Parse(d.Path, d.Text)
	if !ok || e == nil {
		return nil, nil
	}
	s.mu.Lock()
	if ds.parsed.doc == d {
		ds.parsed.memory, ds.parsed.tree, ds.parsed.note = m, tree, e
	}
	s.mu.Unlock()
	return e, c.links
}

// Machine is the session's machine ID: the scope's, else the tree's.
func (snap *Snapshot) Machine() string { return snap.Memory.MachineOf(snap.Scope) }

// Src is the note's bytes: the open buffer's, else the file's. A snapshot's
// note is always resident (Snapshot reads a note kept in part once), so
// this never reads the disk.
func (snap *Snapshot) Src() []byte {
	src, _ := snap.Note.Text()
	return src
}

// Updated is the session's clock as an `updated` value.
func (snap *Snapshot) Updated() string { return engine.FormatTime(snap.session.opts.Now()) }
