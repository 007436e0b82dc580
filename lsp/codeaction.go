package lsp

import (
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// codeAction answers textDocument/codeAction. Placeholder until diagnostics exist.
func (s *Server) codeAction(_ *glsp.Context, _ *protocol.CodeActionParams) (any, error) {
	return []protocol.CodeAction{}, nil
}
