package lsp

import (
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// hover answers textDocument/hover. Placeholder until the engine is ready: no hover.
func (s *Server) hover(_ *glsp.Context, _ *protocol.HoverParams) (*protocol.Hover, error) {
	return nil, nil
}
