package lsp

import (
	"context"

	"github.com/tliron/glsp"

	"github.com/magicfrog/mf-lsp/engine/participant"
	"github.com/magicfrog/mf-lsp/session"
)

// searchCommand: magicfrog.search {query, limit} → session.SearchResult, the
// session participant's search (the shell's `mf-lsp search`). A query with
// nothing to search for is InvalidParams (invalid-argument); an undecided
// participant is several-agents, as for render.
func (s *Server) searchCommand(_ *glsp.Context, a session.SearchArgs) (any, error) {
	cmd := session.SearchCmd.Name
	if a.Query == "" {
		return nil, MissingArg(cmd, "query")
	}
	if err := a.Check(); err != nil {
		return nil, Errorf(CodeInvalidParams, "%s: %v", cmd, err)
	}
	return s.withSnapshot(cmd, "", func(_ context.Context, snap *session.Snapshot) (any, error) {
		res, err := session.Search(snap, a)
		switch {
		case participant.IsRefusal(err):
			return nil, withCause(Errorf(CodeInvalidParams, "%s: %v", cmd, err), err)
		case err != nil:
			return nil, CodedError(cmd, err)
		}
		return res, nil
	}), nil
}
