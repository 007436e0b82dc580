// Package lsp is the language server's protocol edge over package session.
//
// A handler converts what the client sent (URI → path, UTF-16 position → byte
// offset through a Mapper), asks the session (Session.Snapshot and the
// session's feature functions), and converts the answer back to glsp's
// protocol_3_16 types; one file per feature, registered in handlers.go. The
// session holds memory, open documents, save trackers and watching; this
// package holds only the connection: lifecycle, progress, messages to the
// user, and the JSON-RPC transport.
//
// The read loop never waits for memory: a request that arrives while a tree
// loads is answered at once (no lens, no symbols, ContentModified for hover),
// and a document opened meanwhile gets its diagnostics when the load finishes.
package lsp
