package session

import (
	"github.com/magicfrog/mf-lsp/diagnostics"
	"github.com/magicfrog/mf-lsp/engine/mdlinks"
)

// Findings are the diagnostics of the snapshot's note, judged against what its
// open buffer was based on.
func Findings(snap *Snapshot) []diagnostics.Finding { return diagnostics.Check(findingsInput(snap)) }

// FindingsWithFixes is Findings with the fixes diagnostics proposes for each
// (what a code action request needs; publishing does without them, as they
// cost a lookup per link and per key).
func FindingsWithFixes(snap *Snapshot) []diagnostics.Finding {
	in := findingsInput(snap)
	in.WithFixes, in.Now = true, snap.session.Now()
	return diagnostics.Check(in)
}

func findingsInput(snap *Snapshot) diagnostics.Input {
	in := diagnostics.Input{Memory: snap.Memory, Note: snap.Note, Scope: snap.Participant, Today: snap.Today, OpenLoopDays: snap.Settings.OpenLoopDays, SyncState: snap.session.opts.SyncState}
	if nl := snap.links; nl != nil {
		src, body := snap.Src(), snap.Note.BodyStart()
		in.MarkdownLinks = func() []mdlinks.Link { return nl.markdown(src, body) }
	}
	if snap.Doc != nil && snap.HasBase {
		in.Base = &diagnostics.Base{Revision: snap.Base.Revision, Hash: snap.Base.Hash, MovedTo: snap.Base.MovedTo}
	}
	return in
}

// Source is the bytes of a file as the session has them: its open buffer,
// else the disk (nil when unreadable). Related information of a finding may
// point into any file.
func (s *Session) Source(path string) []byte {
	s.mu.Lock()
	ds := s.byPath[path]
	s.mu.Unlock()
	if ds != nil {
		return ds.doc.Text
	}
	return readNote(path)
}
