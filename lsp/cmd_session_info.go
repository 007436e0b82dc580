package lsp

import (
	"context"

	"github.com/tliron/glsp"

	"github.com/magicfrog/mf-lsp/session"
)

// sessionInfoCommand: magicfrog.sessionInfo {} → session.Info, once memory is
// loaded.
func (s *Server) sessionInfoCommand(_ *glsp.Context, _ session.NoArgs) (any, error) {
	return s.withSnapshot(session.SessionInfoCmd.Name, "", func(_ context.Context, snap *session.Snapshot) (any, error) {
		return session.InfoOf(snap), nil
	}), nil
}
