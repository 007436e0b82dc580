package main

import (
	"fmt"
	"io"
	"strings"
)

func runExport(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCLI("export", "mf-lsp export DIR [--with-device]", `
Write the chain dimensions as a portable tree of Markdown files in DIR:
account/..., user/..., agent/[ID/]..., task/[ID/]..., frontmatter intact. Device
notes are left out unless --with-device is given; then they go under
machine/... with their machine binding. A file already in DIR with other
content is never overwritten: the export fails before writing anything.

Prints "exported N notes to DIR", then a "skipped: ..." line per note left out
(a legacy note whose canonical twin has the same path).`, stdout, stderr)
	withDevice := c.fs.Bool("with-device", false, "also export device notes, under machine/")
	pos, code, done := c.parse(args, 1, 1)
	if done {
		return code
	}
	m, err := c.open(true)
	if err != nil {
		return c.fail("%v", err)
	}
	res, err := m.Export(pos[0], *withDevice)
	if err != nil {
		return c.fail("%v", err)
	}
	fmt.Fprintf(stdout, "exported %d notes to %s\n", res.Written, pos[0])
	for _, s := range res.Skipped {
		fmt.Fprintf(stdout, "skipped: %s\n", s)
	}
	return exitOK
}

func runImport(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if hasFromFlag(args) { // another host's memory: CLAUDE.md, AGENTS.md, … (importfrom.go)
		return runImportFrom(args, stdin, stdout, stderr)
	}
	for _, a := range args {
		if a == "--journal" || a == "-journal" || strings.HasPrefix(a, "--journal=") || strings.HasPrefix(a, "-journal=") {
			// An agent workspace's journal, not a portable tree (docs/journal.md).
			return runImportJournal(args, stdin, stdout, stderr)
		}
	}
	c := newCLI("import", "mf-lsp import DIR | mf-lsp import --journal DIR [--dimension DIM] [--scope ID] | mf-lsp import --from SOURCE PATH... [--apply]", `
Read a portable tree (as export writes it) into memory: machine/ lands in
device, project/ in task; revisions and machine bindings travel as they are. A
note never replaces a newer revision: a destination at a higher revision, or at
the same revision with other content, is kept. No path may leave the target:
absolute paths, "..", links and files that are not notes are refused.

Prints an "imported PATH" line per note written, a "kept: ..." line per note
kept back because the destination is not older, then a summary line
"imported N, unchanged N, kept N, refused N". Each refused file is reported on
stderr ("refused: ..."); the exit code is 1 when any file was refused, 0
otherwise (kept notes are not an error).`, stdout, stderr)
	pos, code, done := c.parse(args, 1, 1)
	if done {
		return code
	}
	m, err := c.openDataDir()
	if err != nil {
		return c.fail("%v", err)
	}
	res, err := m.Import(pos[0])
	if err != nil {
		return c.fail("%v", err)
	}
	for _, p := range res.Imported {
		fmt.Fprintf(stdout, "imported %s\n", p)
	}
	kept, refused := 0, 0
	for _, s := range res.Skipped {
		if s.Kept { // the destination is at least as new: not an error
			kept++
			fmt.Fprintf(stdout, "kept: %s\n", s)
			continue
		}
		refused++
		fmt.Fprintf(stderr, "refused: %s\n", s)
	}
	fmt.Fprintf(stdout, "imported %d, unchanged %d, kept %d, refused %d\n", len(res.Imported), res.Unchanged, kept, refused)
	if refused > 0 {
		return exitError
	}
	return exitOK
}
