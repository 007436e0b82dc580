package lsp

import (
	"context"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/diagnostics"

	"github.com/magicfrog/mf-lsp/session"
)

// Roaming (docs/cli.md#sync) from the editor: magicfrog.sync,
// magicfrog.syncStatus and magicfrog.syncResolve, and the code actions of a
// sync-conflict finding.

// syncCommand: magicfrog.sync {remote} → the sync report (roam.Report as
// JSON). It reports $/progress, and republishes open buffers afterwards:
// notes taken from the remote, and conflicts, show at once.
func (s *Server) syncCommand(ctx *glsp.Context, a session.SyncArgs) (any, error) {
	cmd := session.SyncCmd.Name
	token := WorkDoneToken(ctx)
	return s.withSnapshot(cmd, "", func(rctx context.Context, snap *session.Snapshot) (any, error) {
		p := s.BeginProgress(token, "mf-lsp: sync", false)
		p.Report("fetching, merging, pushing", 0)
		rep, err := session.Sync(rctx, snap.Memory, a.Remote)
		if err != nil {
			p.End("failed")
			return nil, Errorf(CodeRequestFailed, "%s: %v", cmd, err)
		}
		p.End("done")
		s.memoryChanged()
		return rep, nil
	}), nil
}

// syncStatusCommand: magicfrog.syncStatus {offline} → what a sync would do
// (roam.Report), changing nothing; the status bar's source.
func (s *Server) syncStatusCommand(_ *glsp.Context, a session.SyncStatusArgs) (any, error) {
	cmd := session.SyncStatusCmd.Name
	return s.withSnapshot(cmd, "", func(rctx context.Context, snap *session.Snapshot) (any, error) {
		rep, err := session.SyncStatus(rctx, snap.Memory, a.Offline)
		if err != nil {
			return nil, Errorf(CodeRequestFailed, "%s: %v", cmd, err)
		}
		return rep, nil
	}), nil
}

// syncResolveCommand: magicfrog.syncResolve {path, keep: "mine"|"theirs"}
// ends a sync conflict as mf-lsp sync resolve does; null.
func (s *Server) syncResolveCommand(_ *glsp.Context, a session.SyncResolveArgs) (any, error) {
	cmd := session.SyncResolveCmd.Name
	if a.Path == "" {
		return nil, MissingArg(cmd, "path")
	}
	if a.Keep != "mine" && a.Keep != "theirs" {
		return nil, Errorf(CodeInvalidParams, "%s: argument \"keep\" must be \"mine\" or \"theirs\", got %q", cmd, a.Keep)
	}
	return s.withSnapshot(cmd, "", func(_ context.Context, snap *session.Snapshot) (any, error) {
		if err := session.ResolveSyncConflict(context.Background(), snap.Memory, a.Path, a.Keep, s.now()); err != nil {
			return nil, Errorf(CodeRequestFailed, "%s: %v", cmd, err)
		}
		s.memoryChanged()
		return nil, nil
	}), nil
}

// syncConflictActions: Take theirs and Keep mine (magicfrog.syncResolve), and
// Merge, an edit that puts both versions between conflict markers for the
// user to review (session.SyncConflictFixes).
func (s *Server) syncConflictActions(n *Located, f diagnostics.Finding) []protocol.CodeAction {
	src := n.Src()
	var out []protocol.CodeAction
	for _, fix := range session.SyncConflictFixes(src, f.Data) {
		if fix.Keep != "" {
			out = append(out, *commandAction(fix.Title, session.SyncResolveCmd.Name, session.SyncResolveArgs{Path: fix.Path, Keep: fix.Keep}))
			continue
		}
		rng, err := n.Mapper.OffsetRange(0, len(src))
		if err != nil {
			continue
		}
		out = append(out, protocol.CodeAction{
			Title: fix.Title,
			Edit:  &protocol.WorkspaceEdit{Changes: map[protocol.DocumentUri][]protocol.TextEdit{n.URI: {{Range: rng, NewText: fix.Merged}}}},
		})
	}
	return out
}
