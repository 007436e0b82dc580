// Package lsp is the language server's protocol edge over package session.
//
// A handler decodes what the client sent, converts it (URI → path, UTF-16
// position → byte offset through a Mapper), calls the session (a snapshot and
// one of the session's functions), and converts the answer back to glsp's
// protocol_3_16 types; one file per feature, registered in handlers.go
// (requests) and commands.go (workspace/executeCommand). The session holds
// memory, open documents, save trackers, watching and every decision; this
// package holds only the connection: lifecycle, progress, messages to the
// user, client capabilities, and the JSON-RPC transport.
//
// Memory is reached one way on each side of the read loop. Handlers on the
// loop take Server.note (a Located: the session's Snapshot with the note's
// URI and Mapper) or Session.Snapshot, which never wait. A request that
// arrives while its tree loads is moved beside the loop (whenLoaded,
// loading.go): hover, lens, symbols and actions wait a short grace, then are
// answered without the tree (ContentModified for hover, empty otherwise); a
// save waits for the load, so that its revision is bumped. A document opened
// meanwhile gets its diagnostics when the load finishes. Commands run beside the loop and reach
// memory through withSnapshot, which waits for the tree with the request's
// context; a tree that could not be opened is an error the user can read.
package lsp
