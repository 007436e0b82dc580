package lsp

import (
	"context"
	"encoding/json"
	"os"
	"time"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/diagnostics"
	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/roam"
)

// Roaming (docs/cli.md#sync) from the editor: magicfrog.sync,
// magicfrog.syncStatus and magicfrog.syncResolve, and the code actions of a
// sync-conflict finding.

// syncCommand: magicfrog.sync {remote} → the sync report (roam.Report as
// JSON). It reports $/progress, and republishes open buffers afterwards:
// notes taken from the remote, and conflicts, show at once.
func (s *Server) syncCommand(ctx *glsp.Context, arg json.RawMessage) (any, error) {
	const cmd = "magicfrog.sync"
	var a struct {
		Remote string `json:"remote"`
	}
	if err := DecodeArg(cmd, arg, &a); err != nil {
		return nil, err
	}
	token := WorkDoneToken(ctx)
	return Async(func(rctx context.Context) (any, error) {
		m, err := s.memoryNow()
		if err != nil {
			return nil, err
		}
		p := s.BeginProgress(token, "mf-lsp: sync", false)
		p.Report("fetching, merging, pushing", 0)
		rep, err := roam.Sync(rctx, roam.Options{Memory: m, Remote: a.Remote})
		if err != nil {
			p.End("failed")
			return nil, Errorf(CodeRequestFailed, "%s: %v", cmd, err)
		}
		p.End("done")
		s.memoryChanged(m)
		return rep, nil
	}), nil
}

// syncStatusCommand: magicfrog.syncStatus {offline} → what a sync would do
// (roam.Report), changing nothing; the status bar's source.
func (s *Server) syncStatusCommand(_ *glsp.Context, arg json.RawMessage) (any, error) {
	const cmd = "magicfrog.syncStatus"
	var a struct {
		Offline bool `json:"offline"`
	}
	if err := DecodeArg(cmd, arg, &a); err != nil {
		return nil, err
	}
	return Async(func(rctx context.Context) (any, error) {
		m, err := s.memoryNow()
		if err != nil {
			return nil, err
		}
		rep, err := roam.Sync(rctx, roam.Options{Memory: m, Status: true, Offline: a.Offline})
		if err != nil {
			return nil, Errorf(CodeRequestFailed, "%s: %v", cmd, err)
		}
		return rep, nil
	}), nil
}

// syncResolveCommand: magicfrog.syncResolve {path, keep: "mine"|"theirs"}
// ends a sync conflict as mf-lsp sync resolve does; null.
func (s *Server) syncResolveCommand(_ *glsp.Context, arg json.RawMessage) (any, error) {
	const cmd = "magicfrog.syncResolve"
	var a struct {
		Path string `json:"path"`
		Keep string `json:"keep"`
	}
	if err := DecodeArg(cmd, arg, &a); err != nil {
		return nil, err
	}
	if a.Path == "" {
		return nil, MissingArg(cmd, "path")
	}
	if a.Keep != "mine" && a.Keep != "theirs" {
		return nil, Errorf(CodeInvalidParams, "%s: argument \"keep\" must be \"mine\" or \"theirs\", got %q", cmd, a.Keep)
	}
	return s.withMemory(func(m *engine.Memory) (any, error) {
		if err := roam.Resolve(context.Background(), m, a.Path, a.Keep, time.Now()); err != nil {
			return nil, Errorf(CodeRequestFailed, "%s: %v", cmd, err)
		}
		m.Reload()
		s.memoryChanged(m)
		return nil, nil
	}), nil
}

// syncConflictActions: Take theirs, Keep mine, and Merge, an edit that puts
// both versions between conflict markers for the user to review.
func (s *Server) syncConflictActions(n *Located, f diagnostics.Finding) []protocol.CodeAction {
	rel, _ := f.Data["path"].(string)
	if rel == "" {
		return nil
	}
	theirsFile, _ := f.Data["theirs"].(string)
	resolve := func(title, keep string) protocol.CodeAction {
		return *commandAction(title, "magicfrog.syncResolve", map[string]any{"path": rel, "keep": keep})
	}
	takeTitle := "Take theirs"
	if theirsFile == "" {
		takeTitle = "Take theirs (delete this note)"
	}
	out := []protocol.CodeAction{resolve(takeTitle, "theirs"), resolve("Keep mine", "mine")}
	if theirsFile == "" || n.Note == nil {
		return out
	}
	theirs, err := os.ReadFile(theirsFile)
	if err != nil {
		return out
	}
	src := n.Note.Src
	rng, err := n.Mapper.OffsetRange(0, len(src))
	if err != nil {
		return out
	}
	merged := string(roam.MergeText(src, theirs))
	out = append(out, protocol.CodeAction{
		Title: "Merge (both versions in the note; review, save, then Keep mine)",
		Edit:  &protocol.WorkspaceEdit{Changes: map[protocol.DocumentUri][]protocol.TextEdit{n.URI: {{Range: rng, NewText: merged}}}},
	})
	return out
}
