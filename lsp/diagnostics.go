package lsp

import (
	"context"
	"time"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/diagnostics"
	"github.com/magicfrog/mf-lsp/session"
)

// Diagnostics are pushed: on open, change and save of a buffer, for every open
// buffer when a tree finished loading, and when memory changes on disk (an
// agent's write, another editor, a rollup). The findings are
// session.Findings; this file only converts them.

// publishFor schedules the diagnostics of one document on the diagnostics
// worker (diagworker.go) and returns at once: the run publishes the document's
// version current when it starts, nothing while its tree loads (the session's
// Loaded republishes then).
func (s *Server) publishFor(d *Document) { s.diags.schedule(d.URI) }

// diagnosticsOf computes the diagnostics of d; ok is false while its tree
// loads.
func (s *Server) diagnosticsOf(d *Document) (_ []protocol.Diagnostic, ok bool) {
	n, err := s.note(d.URI)
	switch {
	case err == session.ErrLoading:
		return nil, false
	case err != nil:
		return nil, true
	}
	findings := session.Findings(n.Snapshot)
	out := make([]protocol.Diagnostic, 0, len(findings))
	for _, f := range findings {
		if diag, ok := s.toDiagnostic(n.Mapper, f); ok {
			out = append(out, diag)
		}
	}
	return out, true
}

// republish recomputes the diagnostics of every open buffer.
func (s *Server) republish() {
	for _, d := range s.Docs.All() {
		s.publishFor(d)
	}
}

func (s *Server) toDiagnostic(m *Mapper, f diagnostics.Finding) (protocol.Diagnostic, bool) {
	rng, err := m.OffsetRange(f.Span.Start, f.Span.End)
	if err != nil {
		return protocol.Diagnostic{}, false
	}
	sev := severity(f.Severity)
	code := protocol.IntegerOrString{Value: f.Code}
	source := "mf-lsp"
	diag := protocol.Diagnostic{Range: rng, Severity: &sev, Code: &code, Source: &source, Message: f.Message}
	if f.Data != nil {
		diag.Data = f.Data
	}
	// A note that takes no part in the view is greyed out.
	if f.Code == diagnostics.CodeShadowed || f.Code == diagnostics.CodeOutOfScope {
		diag.Tags = []protocol.DiagnosticTag{protocol.DiagnosticTagUnnecessary}
	}
	for _, r := range f.Related {
		diag.RelatedInformation = append(diag.RelatedInformation, protocol.DiagnosticRelatedInformation{
			Location: protocol.Location{URI: session.PathToURI(r.Path), Range: s.rangeInFile(r.Path, r.Span)},
			Message:  r.Message,
		})
	}
	return diag, true
}

// rangeInFile maps a byte span of a file on disk (or its open buffer) to a range.
func (s *Server) rangeInFile(path string, span session.Span) protocol.Range {
	if span == (session.Span{}) {
		return protocol.Range{}
	}
	r, err := NewMapper(s.sess.Source(path)).OffsetRange(span.Start, span.End)
	if err != nil {
		return protocol.Range{}
	}
	return r
}

func severity(s diagnostics.Severity) protocol.DiagnosticSeverity {
	switch s {
	case diagnostics.Error:
		return protocol.DiagnosticSeverityError
	case diagnostics.Warning:
		return protocol.DiagnosticSeverityWarning
	case diagnostics.Information:
		return protocol.DiagnosticSeverityInformation
	}
	return protocol.DiagnosticSeverityHint
}

// memoryChanged tells the client the tree changed (magicfrog/memoryChanged, with
// the generation of the session's block) and republishes open buffers.
func (s *Server) memoryChanged() {
	s.republish()
	s.notifyMemoryChanged()
}

// notifyMemoryChanged sends magicfrog/memoryChanged with the generation of the
// session's block. Computing it renders the block, which at 100,000 notes is
// not free: it runs on one goroutine beside everything else, after a 50 ms
// pause that gathers a burst of changes, and again only if more came meanwhile,
// so an agent writing fast never queues renders or delays diagnostics.
func (s *Server) notifyMemoryChanged() {
	if !s.wantsNotification(MemoryChangedNotification) {
		return // nothing to render for a client that never asked
	}
	s.mu.Lock()
	s.changeDirty = true
	if s.changePending {
		s.mu.Unlock()
		return
	}
	s.changePending = true
	s.mu.Unlock()
	s.Go("memoryChanged", func(context.Context) {
		time.Sleep(50 * time.Millisecond)
		for {
			s.mu.Lock()
			if !s.changeDirty {
				s.changePending = false
				s.mu.Unlock()
				return
			}
			s.changeDirty = false
			s.mu.Unlock()
			snap, err := s.sess.Snapshot("")
			if err != nil {
				continue
			}
			s.Notify(MemoryChangedNotification, map[string]string{"generation": session.Generation(snap)})
		}
	})
}
