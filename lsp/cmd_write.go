package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/tliron/glsp"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/rollup"
)

// The commands that write memory: magicfrog.promote, magicfrog.export,
// magicfrog.import, magicfrog.today, magicfrog.registerAgent and
// magicfrog.resolveConflict. Each runs Async and, when the tree changed, tells the client
// (magicfrog/memoryChanged) and republishes open buffers.

type promoteArg struct {
	noteArg
	To    string  `json:"to"`
	Scope *string `json:"scope"`
	Layer string  `json:"layer"`
	Copy  bool    `json:"copy"`
	// SourceRevision and DestRevision are what the editor showed: the
	// promotion is a compare-and-swap on both ends (engine.PromoteRequest).
	// An absent destRevision is 0: the destination must not exist.
	SourceRevision *int `json:"sourceRevision"`
	DestRevision   int  `json:"destRevision"`
	Register       bool `json:"register"`
}

// promoteCommand: magicfrog.promote {uri, to, scope, layer, copy}.
//
// to is a dimension (agent, user, account, and also task and device: the
// legacy-location fix moves a note to its own dimension's canonical tree) or
// "skills": the skills layer of the note's own dimension and ID. scope is the
// destination's ID prefix (agent or task): absent, "skills" keeps the note's own
// and every other destination is the shared one. layer names a destination layer
// besides to (e.g. {to: "user", layer: "skills"}).
//
// The note moved is the one on disk: an open buffer with unsaved changes is
// refused (save first). Both ends are checked by engine.Promote: a source that
// changed since it was read, or a destination newer than the source, refuses
// the promotion with RequestFailed and writes nothing. sourceRevision and
// destRevision are the revisions the editor showed (the code actions carry
// them); destRevision absent is 0, "must not exist", so an existing
// destination is never overwritten blind.
func (s *Server) promoteCommand(_ *glsp.Context, arg json.RawMessage) (any, error) {
	const cmd = "magicfrog.promote"
	var a promoteArg
	path, err := decodeNoteArg(cmd, arg, &a)
	if err != nil {
		return nil, err
	}
	if a.To == "" {
		return nil, MissingArg(cmd, "to")
	}
	var to engine.Dimension
	layer := a.Layer
	if a.To == "skills" {
		if layer != "" && layer != "skills" {
			return nil, Errorf(CodeInvalidParams, "%s: to \"skills\" and layer %q contradict each other", cmd, layer)
		}
		layer = "skills"
	} else if to, err = engine.ParseDimension(a.To); err != nil {
		return nil, Errorf(CodeInvalidParams, "%s: argument \"to\": %v (want agent, user, account, task, device or skills)", cmd, err)
	}
	if a.Scope != nil {
		if err := engine.CheckOwnerID(*a.Scope); err != nil {
			return nil, Errorf(CodeInvalidParams, "%s: argument \"scope\": %v", cmd, err)
		}
	}
	if a.Scope != nil && *a.Scope != "" && to != 0 && !to.HasOwners() {
		return nil, Errorf(CodeInvalidParams, "%s: %s notes have no ID; drop \"scope\"", cmd, to)
	}
	// Snapshot the buffer on the loop: later edits run concurrently with fn.
	var buffer []byte
	if d, open := s.Docs.Get(a.URI); open {
		buffer = d.Text
	}
	return s.withMemory(func(*engine.Memory) (any, error) {
		m, ok := s.memoryFor(path)
		if !ok {
			return nil, Errorf(CodeInvalidParams, "%s: %s is not a memory note", cmd, a.URI)
		}
		// Read the disk now rather than trust the index: the file watcher may not
		// have reported a note written a moment ago.
		m.Refresh(path)
		src := m.Note(path)
		if src == nil {
			return nil, Errorf(CodeInvalidParams, "%s: %s is not a note on disk (save it first)", cmd, a.URI)
		}
		if buffer != nil && !bytes.Equal(buffer, src.Src) {
			return nil, Errorf(CodeRequestFailed, "%s: %s has unsaved changes or differs from the disk: save it first; nothing was moved", cmd, filepath.Base(path))
		}
		req := engine.PromoteRequest{From: src, To: to, ToLayer: layer, Copy: a.Copy,
			ExpectSourceRevision: a.SourceRevision, ExpectDestRevision: a.DestRevision, Register: a.Register}
		if to == 0 {
			req.To, req.ToOwner = src.Dimension, src.Owner
		}
		if a.Scope != nil {
			req.ToOwner = *a.Scope
		}
		if layer != "" {
			if _, ok := m.Layers().ByName(layer); !ok {
				return nil, Errorf(CodeInvalidParams, "%s: no layer %q (see layers.json)", cmd, layer)
			}
		}
		res, err := m.Promote(req)
		if res != nil || err == nil {
			s.memoryChanged(m)
		}
		if err != nil {
			var end *engine.EndError
			if errors.As(err, &end) {
				return nil, Errorf(CodeRequestFailed, "refused: the %s is at revision %d: %v", end.End, end.Err.Revision, err)
			}
			var u *engine.UnregisteredError
			if errors.As(err, &u) {
				return nil, Errorf(CodeRequestFailed, "refused: %v", u)
			}
			if st, ok := engine.IsStale(err); ok {
				return nil, Errorf(CodeRequestFailed, "stale: current revision %d: %v", st.Revision, err)
			}
			return nil, err
		}
		return map[string]any{"uri": PathToURI(res.Path), "revision": res.Revision, "moved": res.Removed}, nil
	}), nil
}

// dirArg resolves a folder argument: absolute, or relative to the project.
func (s *Server) dirArg(command, dir string) (string, error) {
	if dir == "" {
		return "", MissingArg(command, "dir")
	}
	if filepath.IsAbs(dir) {
		return filepath.Clean(dir), nil
	}
	project := s.Settings().ProjectDir
	if project == "" {
		return "", Errorf(CodeInvalidParams, "%s: argument \"dir\" %q is relative and there is no workspace folder to resolve it against; give an absolute path", command, dir)
	}
	return filepath.Join(project, dir), nil
}

// exportCommand: magicfrog.export {dir, withDevice, allMachines} → {written,
// skipped, leftOut}.
func (s *Server) exportCommand(_ *glsp.Context, arg json.RawMessage) (any, error) {
	const cmd = "magicfrog.export"
	var a struct {
		Dir         string `json:"dir"`
		WithDevice  bool   `json:"withDevice"`
		AllMachines bool   `json:"allMachines"`
	}
	if err := DecodeArg(cmd, arg, &a); err != nil {
		return nil, err
	}
	dir, err := s.dirArg(cmd, a.Dir)
	if err != nil {
		return nil, err
	}
	return s.withMemory(func(m *engine.Memory) (any, error) {
		res, err := m.ExportWith(dir, engine.ExportOptions{WithDevice: a.WithDevice, AllMachines: a.AllMachines})
		if err != nil {
			return nil, err
		}
		skipped := res.Skipped
		if skipped == nil {
			skipped = []string{}
		}
		leftOut := append([]string{}, res.OtherMachines...)
		return map[string]any{"written": res.Written, "skipped": skipped, "leftOut": leftOut}, nil
	}), nil
}

// importCommand: magicfrog.import {dir} → {imported, unchanged, skipped}.
func (s *Server) importCommand(_ *glsp.Context, arg json.RawMessage) (any, error) {
	const cmd = "magicfrog.import"
	var a struct {
		Dir string `json:"dir"`
	}
	if err := DecodeArg(cmd, arg, &a); err != nil {
		return nil, err
	}
	dir, err := s.dirArg(cmd, a.Dir)
	if err != nil {
		return nil, err
	}
	return s.withMemory(func(m *engine.Memory) (any, error) {
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			return nil, Errorf(CodeInvalidParams, "%s: %s is not a folder", cmd, dir)
		}
		res, err := m.Import(dir)
		if res != nil && (len(res.Imported) > 0 || len(res.Config) > 0) {
			s.memoryChanged(m)
		}
		if err != nil {
			return nil, err
		}
		type skip struct {
			From   string `json:"from"`
			Reason string `json:"reason"`
			Kept   bool   `json:"kept"`
		}
		out := struct {
			Imported  int      `json:"imported"`
			URIs      []string `json:"uris"`
			Unchanged int      `json:"unchanged"`
			Skipped   []skip   `json:"skipped"`
			Config    []string `json:"config"`
			// LayersDiffer: this data directory's layers.json differs from
			// the tree's, which was not taken.
			LayersDiffer string `json:"layersDiffer,omitempty"`
		}{Imported: len(res.Imported), URIs: []string{}, Unchanged: res.Unchanged, Skipped: []skip{},
			Config: append([]string{}, res.Config...), LayersDiffer: res.LayersDiffer}
		for _, p := range res.Imported {
			out.URIs = append(out.URIs, PathToURI(p))
		}
		for _, sk := range res.Skipped {
			out.Skipped = append(out.Skipped, skip{From: sk.From, Reason: sk.Reason, Kept: sk.Kept})
		}
		return out, nil
	}), nil
}

// todayCommand: magicfrog.today {dimension, scope} → {uri, created}: today's raw
// daily of that journal (default: the task dimension's shared journal), made
// with frontmatter when missing.
func (s *Server) todayCommand(_ *glsp.Context, arg json.RawMessage) (any, error) {
	const cmd = "magicfrog.today"
	var a struct {
		Dimension string `json:"dimension"`
		Scope     string `json:"scope"`
		Register  bool   `json:"register"` // add an unregistered scope ID first
	}
	if err := DecodeArg(cmd, arg, &a); err != nil {
		return nil, err
	}
	d := engine.Task
	if a.Dimension != "" {
		var err error
		if d, err = engine.ParseDimension(a.Dimension); err != nil {
			return nil, Errorf(CodeInvalidParams, "%s: argument \"dimension\": %v", cmd, err)
		}
	}
	if err := engine.CheckOwnerID(a.Scope); err != nil {
		return nil, Errorf(CodeInvalidParams, "%s: argument \"scope\": %v", cmd, err)
	}
	if a.Scope != "" && !d.HasOwners() {
		return nil, Errorf(CodeInvalidParams, "%s: %s notes have no ID; drop \"scope\"", cmd, d)
	}
	return s.withMemory(func(m *engine.Memory) (any, error) {
		if a.Register && a.Scope != "" && !m.IsRegistered(d, a.Scope) {
			if _, _, err := m.Register(d, a.Scope, false); err != nil {
				return nil, Errorf(CodeRequestFailed, "%s: registering %q: %v", cmd, a.Scope, err)
			}
		}
		path, created, err := rollup.Today(m, d, a.Scope, s.Today())
		var u *engine.UnregisteredError
		if errors.As(err, &u) {
			return nil, Errorf(CodeRequestFailed, "%s: %v (argument \"register\": true adds it)", cmd, u)
		}
		if err != nil {
			return nil, err
		}
		if created {
			s.memoryChanged(m)
		}
		return map[string]any{"uri": PathToURI(path), "created": created}, nil
	}), nil
}

// registerAgentCommand: magicfrog.registerAgent {id, shared}. It adds id to the
// roster (<data>/magicfrog.json "agents"), or with shared: true to its "shared"
// list: folders under agent/ that are deliberately every agent's (the "Keep
// shared" fix of unregistered-agent-folder). Other keys of the file are kept;
// the file is replaced atomically (engine.Register).
func (s *Server) registerAgentCommand(_ *glsp.Context, arg json.RawMessage) (any, error) {
	return s.registerID("magicfrog.registerAgent", engine.Agent, arg)
}

// registerTaskCommand: magicfrog.registerTask {id}. It adds id to the project's
// .magicfrog/config.json "tasks" (the fix of unregistered-task-folder).
func (s *Server) registerTaskCommand(_ *glsp.Context, arg json.RawMessage) (any, error) {
	return s.registerID("magicfrog.registerTask", engine.Task, arg)
}

func (s *Server) registerID(cmd string, d engine.Dimension, arg json.RawMessage) (any, error) {
	var a struct {
		ID     string `json:"id"`
		Shared bool   `json:"shared"`
	}
	if err := DecodeArg(cmd, arg, &a); err != nil {
		return nil, err
	}
	if a.ID == "" {
		return nil, MissingArg(cmd, "id")
	}
	if strings.ContainsAny(a.ID, `/\`) || strings.HasPrefix(a.ID, ".") || engine.CheckImportPath(a.ID) != nil {
		return nil, Errorf(CodeInvalidParams, "%s: %q cannot be an %s ID (a single folder name, not hidden)", cmd, a.ID, d)
	}
	return s.withMemory(func(m *engine.Memory) (any, error) {
		file, changed, err := m.Register(d, a.ID, a.Shared)
		if err != nil {
			return nil, err
		}
		if changed {
			s.memoryChanged(m)
		}
		return map[string]any{"uri": PathToURI(file), "changed": changed}, nil
	}), nil
}

// resolveConflictCommand: magicfrog.resolveConflict {uri, choice} answers a
// save-time conflict the way the question does (save.go): "takeDisk" replaces
// the buffer with the disk version (the agent's, even when the editor's own
// save has since written over it), "keepMine" makes the buffer the next
// revision after the disk's. The edit reaches the client as workspace/applyEdit
// and the buffer is based on the disk version from then on.
func (s *Server) resolveConflictCommand(_ *glsp.Context, arg json.RawMessage) (any, error) {
	const cmd = "magicfrog.resolveConflict"
	var a struct {
		noteArg
		Choice string `json:"choice"`
	}
	if _, err := decodeNoteArg(cmd, arg, &a); err != nil {
		return nil, err
	}
	if _, open := s.Docs.Get(a.URI); !open {
		return nil, Errorf(CodeInvalidParams, "%s: %s is not open", cmd, a.URI)
	}
	resolve := map[string]func(string){"takeDisk": s.resolveTakeDisk, "keepMine": s.resolveKeepMine, "merge": s.resolveMerge,
		"compare": func(uri string) { s.sendCompare(uri) }}[a.Choice]
	if resolve == nil {
		return nil, Errorf(CodeInvalidParams, "%s: choice must be \"takeDisk\", \"keepMine\", \"merge\" or \"compare\", got %q", cmd, a.Choice)
	}
	// Off the read loop: the edit is a request to the client, whose reply that
	// loop reads.
	return Async(func(context.Context) (any, error) {
		resolve(a.URI)
		return nil, nil
	}), nil
}
