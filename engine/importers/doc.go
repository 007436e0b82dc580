// Package importers reads memory that other agent hosts keep — Claude Code's
// CLAUDE.md files, AGENTS.md, Cursor's .cursor/rules/*.mdc, an OpenClaw
// workspace — and plans it as notes: which file becomes which note, in which
// dimension, under which key, at how many tokens. Applying a plan writes the
// new notes through the engine (expected revision 0: a note that exists is
// never overwritten) and an OpenClaw journal through rollup.ImportJournal.
//
// The package knows nothing of LSP or the command line; docs/import.md
// describes the mapping each source gets.
package importers
