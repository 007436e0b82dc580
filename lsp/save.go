package lsp

import (
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// willSaveWaitUntil answers textDocument/willSaveWaitUntil: the edits applied before
// the buffer is written (the autoRevision bump of revision/updated). Placeholder until
// the engine is ready: no edits.
func (s *Server) willSaveWaitUntil(_ *glsp.Context, _ *protocol.WillSaveTextDocumentParams) ([]protocol.TextEdit, error) {
	return []protocol.TextEdit{}, nil
}
