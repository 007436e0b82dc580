// Package base is the part of the operations layer (session) that the hook
// commands need, and nothing else: loading a tree once (OpenMemory), the
// caches a process keeps (OpenCaches), rendering the blocks a scope as given
// asks for (RenderEach: `render`), writing one into an agent host's file
// (CheckHostFile, WriteBlockInto: `render --into`, magicfrog.renderInto).
//
// It is a package of its own, beneath session, so that a binary that only
// renders and appends (cmd/mf-hook) links neither the checks (diagnostics,
// gitleaks) nor the editor's features: session builds on it, and both
// binaries' commands call it. It imports no protocol.
package base
