package main

import (
	"fmt"
	"io"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/rollup"
	"github.com/magicfrog/mf-lsp/session"
)

func runToday(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCLI("today", "mf-lsp today [flags]", `
Print the path of today's raw daily note in a journal (the journal layer of
layers.json), creating it when missing with frontmatter (revision 1, updated)
and a "# YYYY-MM-DD (Weekday)" title. An existing note is never touched; a
note created meanwhile by someone else is simply returned. "created PATH" is
reported on stderr when the note was made. A --scope that is not a registered
agent or task ID is refused (exit 2) unless --register adds it.`, stdout, stderr)
	var jf journalFlags
	jf.register(c, "task", "the `DIMENSION` whose journal holds the note")
	today := c.FS.String("today", "", "the day, `YYYY-MM-DD` (default: the local date)")
	register := registerFlag(c)
	if _, code, done := c.Parse(args, 0, 0); done {
		return code
	}
	d, err := jf.oneDim()
	if err != nil {
		return c.UsageError("--dimension: %v", err)
	}
	day, err := engine.Today(*today)
	if err != nil {
		return c.UsageError("--today: %v", err)
	}
	m, err := c.OpenDataDir()
	if err != nil {
		return c.Fail("%v", err)
	}
	daily, err := session.Today(m, d, jf.scope, *register, day)
	if code, ok := unregistered(c, err); ok {
		return code
	}
	if err != nil {
		return c.Fail("%v", err)
	}
	if daily.Registered != "" {
		fmt.Fprintf(stderr, "registered %s %q in %s\n", d, jf.scope, daily.Registered)
	}
	if daily.Created {
		fmt.Fprintf(stderr, "created %s\n", daily.Path)
	}
	fmt.Fprintln(stdout, daily.Path)
	return exitOK
}

// runImportJournal is `mf-lsp import --journal DIR`: the import command calls it
// when --journal is given, with all of import's arguments.
func runImportJournal(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCLI("import", "mf-lsp import --journal DIR [--dimension DIM] [--scope ID]", `
Import an existing agent journal (memory/YYYY-MM-DD.md, memory/refined/,
memory/weekly/, memory/monthly/, memory/sticky-notes/, and MEMORY.md at the
workspace root or in memory/; a folder without memory/ is read as the memory
folder) into a dimension's journal layer. Files without frontmatter get one
(revision 1, updated = the file's modification time in UTC); every other byte
is kept. Links, hidden names and paths that could leave the tree are refused; a
note never replaces a newer one.

Prints one line per file: "imported FROM -> PATH", "unchanged FROM",
"kept FROM: why" (the destination is not older), "ignored FROM: why" (not a
journal note), "skipped FROM: why" (refused), then a summary. Exit code 1 when a
file was refused (kept and ignored files are not an error). A --scope that is
not a registered agent or task ID is refused (exit 2) unless --register adds it.`, stdout, stderr)
	var jf journalFlags
	jf.register(c, "task", "the `DIMENSION` whose journal receives the files")
	dir := c.FS.String("journal", "", "the agent workspace `DIR` to import")
	register := registerFlag(c)
	pos, code, done := c.Parse(args, 0, 1)
	if done {
		return code
	}
	if *dir == "" && len(pos) == 1 {
		*dir = pos[0]
	}
	if *dir == "" || (len(pos) == 1 && pos[0] != *dir) {
		return c.UsageError("want one workspace folder: --journal DIR")
	}
	d, err := jf.oneDim()
	if err != nil {
		return c.UsageError("--dimension: %v", err)
	}
	m, err := c.OpenDataDir()
	if err != nil {
		return c.Fail("%v", err)
	}
	rep, registered, err := session.ImportJournal(m, *dir, d, jf.scope, *register)
	if code, ok := unregistered(c, err); ok {
		return code
	}
	if registered != "" {
		fmt.Fprintf(stderr, "registered %s %q in %s\n", d, jf.scope, registered)
	}
	if err != nil {
		return c.Fail("%v", err)
	}
	kept, refused := 0, 0
	for _, f := range rep.Files {
		note := ""
		if f.Why != "" {
			note = " (" + f.Why + ")"
		}
		switch f.Status {
		case rollup.Imported:
			fmt.Fprintf(stdout, "imported %s -> %s%s\n", f.From, f.To, note)
		case rollup.Unchanged:
			fmt.Fprintf(stdout, "unchanged %s\n", f.From)
		case rollup.Kept:
			kept++
			fmt.Fprintf(stdout, "kept %s: %s\n", f.From, f.Why)
		case rollup.Ignored:
			fmt.Fprintf(stdout, "ignored %s: %s\n", f.From, f.Why)
		default:
			refused++
			fmt.Fprintf(stdout, "skipped %s: %s\n", f.From, f.Why)
		}
	}
	fmt.Fprintf(stdout, "imported %d, unchanged %d, kept %d, ignored %d, skipped %d into %s\n",
		rep.Count(rollup.Imported), rep.Count(rollup.Unchanged), kept, rep.Count(rollup.Ignored), refused, rep.Journal)
	if refused > 0 {
		return exitError
	}
	return exitOK
}
