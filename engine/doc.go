// Package engine is the memory model of mf-lsp: it loads one project's tree of
// notes (Markdown files with YAML frontmatter) from the five dimensions and their
// layers into a Memory, and answers what an agent is shown from it.
//
// A Memory knows where each dimension lives (Paths, Location), which agents,
// tasks and machine a Scope names (the roster in magicfrog.json and the project's
// binding), every loaded Note with its Owner, and the problems met while loading.
// From it come the effective view (View, StatusOf: which note wins a key and what
// it shadows), the <memory> block an agent boots from (Render, with the journal's
// boot set and the token budget), revision-checked writes and promotions (written
// through package store), registration of new agent and task IDs, and export and
// import of the portable tree.
//
// The engine works on byte offsets and plain values; it knows nothing of the
// Language Server Protocol.
package engine
