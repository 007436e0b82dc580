package lsp

import (
	"encoding/json"

	"github.com/tliron/glsp"
)

// decodeParams decodes a request's raw params into v, answering what cannot be
// decoded with InvalidParams. It is the one place the server reads params past glsp's
// decoding, where that falls short: protocol.IntegerOrString has a value-receiver
// UnmarshalJSON, so progress tokens, Diagnostic.Code and the like come back nil, and
// executeCommand's Arguments would be []any. glsp stays the source of the protocol
// types; a handler that needs what glsp loses declares the few fields it reads as
// json.RawMessage and decodes through here (codeAction, executeCommand, progress).
func decodeParams(ctx *glsp.Context, v any) error {
	if err := json.Unmarshal(ctx.Params, v); err != nil {
		return Errorf(CodeInvalidParams, "invalid params for %s: %v", ctx.Method, err)
	}
	return nil
}
