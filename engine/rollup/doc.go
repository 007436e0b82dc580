// Package rollup runs the Fractal journal's rollups (SPEC §6) on a loaded
// memory tree: it plans them, runs a summarizer, and writes the results with
// the engine's revision-checked writes. The rules (periods, file kinds, which
// rollup reads what, the built-in summarizer, the prompt, lessons) are package
// journal's; this package is where they meet the disk.
//
// A journal is a fractal layer in one dimension and scope (Journal); every one
// that holds files is listed by Journals. Plan returns the jobs of a request:
// one period ("day 2026-11-30", "week 2026-W48", "month 2026-11"), or
// everything due: complete periods whose output is missing or stale, oldest
// first, days before the weeks that read them before the months, plus every
// rollup reading an output about to be rewritten.
//
// A rollup records what it read in its frontmatter:
//
//	rollup: week
//	period: 2026-W48
//	sources: [{key: refined/2026-11-23.md, revision: 1, hash: 3f…}, …]
//
// key is the layer-relative path, hash the hex sha256 of the file's bytes
// (engine.Note.Hash). It is stale when a source's revision or hash differs
// or a source was added or removed. Outputs without `sources:` (hand-written,
// imported) are never planned by due; an explicit request rewrites them.
//
// Run reads the sources, calls the summarizer, checks every source again and
// runs the summarizer a second time when one changed meanwhile; a second
// change fails with a SourceChangedError. The output is written with the
// revision and hash it had before (a concurrent writer makes the write fail
// with an engine.StaleError, nothing written). Raw dailies are only read. A
// job whose output records exactly the current sources does nothing
// (UpToDate). A monthly's Result carries the lessons MEMORY.md lacks;
// Promote writes them, PlanLessons computes the same change for review.
//
// Summarizers: Builtin (journal.Summarize) and Command, a user's command line
// split like a shell's and run directly, with journal.Prompt on stdin and
// Markdown expected on stdout, under a timeout (DefaultTimeout). CheckOutput
// refuses output with none of the rollup's "## " sections.
//
// Today makes today's raw daily; ImportJournal takes an existing agent
// workspace (memory/YYYY-MM-DD.md, refined/, weekly/, monthly/,
// sticky-notes/, MEMORY.md) into a journal. docs/journal.md is the user's
// guide.
package rollup
