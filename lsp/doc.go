// Package lsp is mf-lsp's language server: it serves the Language Server Protocol
// (3.16, with glsp's protocol types) for memory notes over one JSON-RPC connection,
// stdio in production.
//
// For each open note it publishes the diagnostics of package diagnostics and
// answers hover (where the note stands in the effective view and its chain, or the
// target of a link), code lens, code actions (quick fixes, promotions, rollups),
// document and workspace symbols, and the workspace/executeCommand commands of
// docs/protocol.md. It loads the project's memory through package engine, keeps it
// in step with the disk, and turns a save over a newer revision into a conflict the
// user resolves. It converts at the edge: UTF-16 positions to byte offsets, URIs to
// paths, protocol types to the engine's.
package lsp
