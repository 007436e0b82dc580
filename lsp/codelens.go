package lsp

import (
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// codeLens answers textDocument/codeLens. Placeholder until the engine is ready.
func (s *Server) codeLens(_ *glsp.Context, _ *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	return []protocol.CodeLens{}, nil
}
