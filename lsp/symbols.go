package lsp

import (
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// documentSymbol answers textDocument/documentSymbol. Placeholder until the engine is
// ready.
func (s *Server) documentSymbol(_ *glsp.Context, _ *protocol.DocumentSymbolParams) (any, error) {
	return []protocol.DocumentSymbol{}, nil
}

// workspaceSymbol answers workspace/symbol. Placeholder until the engine is ready.
func (s *Server) workspaceSymbol(_ *glsp.Context, _ *protocol.WorkspaceSymbolParams) ([]protocol.SymbolInformation, error) {
	return []protocol.SymbolInformation{}, nil
}
