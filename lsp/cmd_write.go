package lsp

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/session"
)

// The commands that write memory: magicfrog.promote, magicfrog.export,
// magicfrog.import, magicfrog.today and magicfrog.registerAgent/registerTask
// (magicfrog.resolveConflict is in save.go). Each runs Async and, when the
// tree changed, tells the client (magicfrog/memoryChanged) and republishes
// open buffers.

// promoteCommand: magicfrog.promote {uri, to, scope, layer, copy}.
//
// to is a dimension (agent, user, account, and also task and device: the
// legacy-location fix moves a note to its own dimension's canonical tree) or
// "skills": the skills layer of the note's own dimension and ID. scope is the
// destination's ID prefix (agent or task): absent, "skills" keeps the note's own
// and every other destination is the shared one. layer names a destination layer
// besides to (e.g. {to: "user", layer: "skills"}).
//
// An open buffer is promoted as it is: unsaved edits are saved at the
// destination with the note, when the buffer is based on what the disk holds
// (else it is refused: save and answer the conflict first). A moved note that
// was open is shown where it went: window/showDocument when the client has it,
// else a message naming the new path, so no edit is left on a vanished file.
// Both ends are checked by engine.Promote: a source that
// changed since it was read, or a destination newer than the source, refuses
// the promotion with RequestFailed and writes nothing. sourceRevision and
// destRevision are the revisions the editor showed (the code actions carry
// them); destRevision absent is 0, "must not exist", so an existing
// destination is never overwritten blind.
func (s *Server) promoteCommand(_ *glsp.Context, a session.PromoteArgs) (any, error) {
	cmd := session.PromoteCmd.Name
	path, err := argURI(cmd, a.URI)
	if err != nil {
		return nil, err
	}
	p, err := a.Promotion(path)
	if err != nil {
		return nil, Errorf(CodeInvalidParams, "%s: %v", cmd, err)
	}
	// Snapshot the buffer on the loop: later edits run concurrently with fn.
	d, open := s.Docs.Get(a.URI)
	if open {
		p.Buffer = d.Text
	}
	return s.withSnapshot(cmd, path, func(_ context.Context, snap *session.Snapshot) (any, error) {
		if open && snap.HasBase {
			base := snap.Base
			p.Base = &base
		}
		out, changed, err := session.Promote(snap.Memory, p)
		if err == nil && open && out.Moved {
			// Before the republish: a buffer left on the old path says where
			// the note went.
			if to, err := session.URIToPath(out.URI); err == nil {
				s.sess.PromotedAway(a.URI, to)
			}
		}
		if changed {
			s.memoryChanged()
		}
		if err != nil {
			return nil, promoteFailed(cmd, a.URI, path, err)
		}
		if open && out.Moved {
			s.showMoved(path, out.URI)
		}
		return out, nil
	}), nil
}

// showMoved tells the client where an open note went: window/showDocument
// when it has it, else a message naming the new path (docs/protocol.md).
func (s *Server) showMoved(from string, to protocol.DocumentUri) {
	if !s.supportsShowDocument() {
		s.ShowMessage(protocol.MessageTypeInfo, "mf-lsp: %s moved to %s: open it there (this editor does not open documents for the server)", from, pathOf(to))
		return
	}
	s.Go("show the moved note", func(ctx context.Context) {
		if _, err := s.showDocument(ctx, to); err != nil {
			s.log.Printf("%v", err)
		}
	})
}

// promoteFailed is the error a refused promotion answers: InvalidParams for
// what the arguments got wrong, RequestFailed for what the editor's view of
// the note got wrong (unsaved, stale, an unregistered destination).
func promoteFailed(cmd, uri, path string, err error) error {
	var noLayer *session.NoLayerError
	var end *engine.EndError
	var u *engine.UnregisteredError
	switch {
	case errors.Is(err, session.ErrNotOnDisk):
		return Errorf(CodeInvalidParams, "%s: %s is %v", cmd, uri, err)
	case errors.Is(err, session.ErrUnsaved):
		return Errorf(CodeRequestFailed, "%s: %s %v", cmd, filepath.Base(path), err)
	case errors.As(err, &noLayer):
		return Errorf(CodeInvalidParams, "%s: %v", cmd, err)
	case errors.As(err, &end):
		return Errorf(CodeRequestFailed, "refused: the %s is at revision %d: %v", end.End, end.Err.Revision, err)
	case errors.As(err, &u):
		return Errorf(CodeRequestFailed, "refused: %v", u)
	}
	if st, ok := engine.IsStale(err); ok {
		return Errorf(CodeRequestFailed, "stale: current revision %d: %v", st.Revision, err)
	}
	return err
}

// dirArg resolves a folder argument: absolute, or relative to the project.
func (s *Server) dirArg(command, dir string) (string, error) {
	dir, err := s.sess.Settings().ResolveDir(dir)
	if err != nil {
		return "", Errorf(CodeInvalidParams, "%s: %v", command, err)
	}
	return dir, nil
}

// exportCommand: magicfrog.export {dir, withDevice, allMachines} → {written,
// skipped, leftOut}.
func (s *Server) exportCommand(_ *glsp.Context, a session.ExportArgs) (any, error) {
	cmd := session.ExportCmd.Name
	dir, err := s.dirArg(cmd, a.Dir)
	if err != nil {
		return nil, err
	}
	return s.withSnapshot(cmd, "", func(_ context.Context, snap *session.Snapshot) (any, error) {
		return session.Export(snap.Memory, dir, engine.ExportOptions{WithDevice: a.WithDevice, AllMachines: a.AllMachines})
	}), nil
}

// importCommand: magicfrog.import {dir} → {imported, unchanged, skipped}.
func (s *Server) importCommand(_ *glsp.Context, a session.ImportArgs) (any, error) {
	cmd := session.ImportCmd.Name
	dir, err := s.dirArg(cmd, a.Dir)
	if err != nil {
		return nil, err
	}
	return s.withSnapshot(cmd, "", func(_ context.Context, snap *session.Snapshot) (any, error) {
		out, changed, err := session.Import(snap.Memory, dir)
		if changed {
			s.memoryChanged()
		}
		var notAFolder *session.NotAFolderError
		if errors.As(err, &notAFolder) {
			return nil, Errorf(CodeInvalidParams, "%s: %v", cmd, err)
		}
		if err != nil {
			return nil, err
		}
		return out, nil
	}), nil
}

// todayCommand: magicfrog.today {dimension, scope} → {uri, created}: today's raw
// daily of that journal (default: the task dimension's shared journal), made
// with frontmatter when missing.
func (s *Server) todayCommand(_ *glsp.Context, a session.TodayRequest) (any, error) {
	cmd := session.TodayCmd.Name
	d, err := a.Journal()
	if err != nil {
		return nil, Errorf(CodeInvalidParams, "%s: %v", cmd, err)
	}
	return s.withSnapshot(cmd, "", func(_ context.Context, snap *session.Snapshot) (any, error) {
		out, err := session.Today(snap.Memory, d, a.Scope, a.Register, snap.Today)
		var registering *session.RegisteringError
		if errors.As(err, &registering) {
			return nil, Errorf(CodeRequestFailed, "%s: %v", cmd, err)
		}
		var u *engine.UnregisteredError
		if errors.As(err, &u) {
			return nil, Errorf(CodeRequestFailed, "%s: %v (argument \"register\": true adds it)", cmd, u)
		}
		if err != nil {
			return nil, err
		}
		if out.Created {
			s.memoryChanged()
		}
		return out, nil
	}), nil
}

// registerAgentCommand: magicfrog.registerAgent {id, shared}. It adds id to the
// roster (<data>/magicfrog.json "agents"), or with shared: true to its "shared"
// list: folders under agent/ that are deliberately every agent's (the "Keep
// shared" fix of unregistered-agent-folder). Other keys of the file are kept;
// the file is replaced atomically (engine.Register).
func (s *Server) registerAgentCommand(_ *glsp.Context, a session.RegisterAgentArgs) (any, error) {
	return s.registerID(session.RegisterAgentCmd.Name, engine.Agent, a.ID, a.Shared)
}

// registerTaskCommand: magicfrog.registerTask {id, shared}. It adds id to the
// project's .magicfrog/config.json "tasks", or with shared: true to its
// "shared" (the fixes of unregistered-task-folder).
func (s *Server) registerTaskCommand(_ *glsp.Context, a session.RegisterTaskArgs) (any, error) {
	return s.registerID(session.RegisterTaskCmd.Name, engine.Task, a.ID, a.Shared)
}

func (s *Server) registerID(cmd string, d engine.Dimension, id string, shared bool) (any, error) {
	if id == "" {
		return nil, MissingArg(cmd, "id")
	}
	if !session.RegistrableID(id) {
		return nil, Errorf(CodeInvalidParams, "%s: %q cannot be an %s ID (a single folder name, not hidden)", cmd, id, d)
	}
	return s.withSnapshot(cmd, "", func(_ context.Context, snap *session.Snapshot) (any, error) {
		out, err := session.Register(snap.Memory, d, id, shared)
		if err != nil {
			return nil, err
		}
		if out.Changed {
			s.memoryChanged()
		}
		return out, nil
	}), nil
}
