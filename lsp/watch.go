package lsp

import (
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/session"
)

// The session watches memory itself (engine/watch): the data directory is
// usually outside the workspace, so the client's file watching would not see
// an agent's writes there. The client's events are taken too: the same refresh.

func (s *Server) didChangeWatchedFiles(_ *glsp.Context, p *protocol.DidChangeWatchedFilesParams) error {
	paths := make([]string, 0, len(p.Changes))
	for _, c := range p.Changes {
		if path, err := session.URIToPath(c.URI); err == nil {
			paths = append(paths, path)
		}
	}
	s.sess.Refresh(paths)
	return nil
}
