package lsp

import (
	"context"
	"time"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/diagnostics"
	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
	"github.com/magicfrog/mf-lsp/engine/safefs"
)

// Diagnostics are pushed: on open, change and save of a buffer, and for every open
// buffer when memory changes on disk (an agent's write, another editor, a rollup).
// The checks are the diagnostics package's; this file only converts them.

func (s *Server) publishFor(d *Document) {
	n, ok := s.Note(d.URI)
	if !ok {
		s.PublishDiagnostics(d.URI, &d.Version, nil)
		return
	}
	in := diagnostics.Input{Memory: n.Memory, Note: n.Note, Scope: s.Participant(n.Memory), Today: s.Today(), OpenLoopDays: s.Settings().OpenLoopDays}
	if b, ok := s.Base(d.URI); ok {
		in.Base = &diagnostics.Base{Revision: b.Revision, Hash: b.Hash}
	}
	findings := diagnostics.Check(in)
	out := make([]protocol.Diagnostic, 0, len(findings))
	for _, f := range findings {
		if diag, ok := s.toDiagnostic(n.Mapper, f); ok {
			out = append(out, diag)
		}
	}
	s.PublishDiagnostics(d.URI, &d.Version, out)
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
	if f.Code == "shadowed" || f.Code == "out-of-scope" {
		diag.Tags = []protocol.DiagnosticTag{protocol.DiagnosticTagUnnecessary}
	}
	for _, r := range f.Related {
		diag.RelatedInformation = append(diag.RelatedInformation, protocol.DiagnosticRelatedInformation{
			Location: protocol.Location{URI: PathToURI(r.Path), Range: s.rangeInFile(r.Path, r.Span)},
			Message:  r.Message,
		})
	}
	return diag, true
}

// rangeInFile maps a byte span of a file on disk (or its open buffer) to a range.
func (s *Server) rangeInFile(path string, span frontmatter.Span) protocol.Range {
	if span == (frontmatter.Span{}) {
		return protocol.Range{}
	}
	var src []byte
	if d, ok := s.Docs.Get(PathToURI(path)); ok {
		src = d.Text
	} else if b, err := safefs.ReadFile(path, engine.MaxNoteSize); err == nil {
		src = b
	}
	r, err := NewMapper(src).OffsetRange(span.Start, span.End)
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

// The document hooks: track what each buffer is based on, publish its findings.

func (s *Server) onOpen(d *Document) {
	s.setBase(d.URI, d.Text)
	s.publishFor(d)
}

func (s *Server) onChange(d *Document) { s.publishFor(d) }

func (s *Server) onSave(d *Document) {
	// The disk now holds the buffer: refresh the tree and rebase the buffer on it.
	if path, err := URIToPath(d.URI); err == nil {
		if m, ok := s.memoryFor(path); ok && m.Refresh(path) {
			s.memoryChanged(m)
		}
	}
	s.setBase(d.URI, d.Text)
	s.publishFor(d)
}

func (s *Server) onClose(d *Document) {
	s.dropBase(d.URI)
	s.PublishDiagnostics(d.URI, nil, nil)
}

// memoryChanged tells the client the tree changed (magicfrog/memoryChanged, with
// the generation of the session's block) and republishes open buffers.
func (s *Server) memoryChanged(*engine.Memory) {
	s.republish()
	s.notifyMemoryChanged()
}

// notifyMemoryChanged sends magicfrog/memoryChanged with the generation of the
// session's block. Computing it renders the block, which at 100,000 notes is
// not free: it runs on one goroutine beside everything else, after a 50 ms
// pause that gathers a burst of changes, and again only if more came meanwhile,
// so an agent writing fast never queues renders or delays diagnostics.
func (s *Server) notifyMemoryChanged() {
	s.ws.mu.Lock()
	s.ws.changeDirty = true
	if s.ws.changePending {
		s.ws.mu.Unlock()
		return
	}
	s.ws.changePending = true
	s.ws.mu.Unlock()
	s.Go("memoryChanged", func(context.Context) {
		time.Sleep(50 * time.Millisecond)
		for {
			s.ws.mu.Lock()
			if !s.ws.changeDirty {
				s.ws.changePending = false
				s.ws.mu.Unlock()
				return
			}
			s.ws.changeDirty = false
			s.ws.mu.Unlock()
			m, err := s.Memory()
			if err != nil || m == nil {
				continue
			}
			gen := ""
			st := s.Settings()
			if b, err := m.Render(engine.RenderOptions{Scope: s.Participant(m), Budget: st.Budget, Today: s.Today().String()}); err == nil {
				gen = b.Generation
			}
			s.Notify("magicfrog/memoryChanged", map[string]string{"generation": gen})
		}
	})
}
