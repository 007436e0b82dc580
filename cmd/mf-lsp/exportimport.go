package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/session"
)

func runExport(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCLI("export", "mf-lsp export DIR [--with-device | --all-machines]", `
Write the chain dimensions as a portable tree of Markdown files in DIR:
account/..., user/..., agent/[ID/]..., task/[ID/]..., frontmatter intact, and
magicfrog.json (the roster, shared, the project's tasks) and layers.json at its
top, so the tree reads the same way wherever it is imported. Device notes are
left out unless --with-device is given; then this machine's go under
machine/... with their machine binding, and each device note of another
machine left out is named on stderr; --all-machines includes those too, each
with its binding. Everything is checked before anything is written: DIR may
not be inside a memory root or hold one, and a file already in DIR with other
content, or a link on the way to one, fails the export.

Prints "exported N notes to DIR", then a "skipped: ..." line per note left out
(a legacy note whose canonical twin has the same path).`, stdout, stderr)
	withDevice := c.FS.Bool("with-device", false, "also export this machine's device notes, under machine/")
	allMachines := c.FS.Bool("all-machines", false, "also export every machine's device notes, each with its binding")
	pos, code, done := c.Parse(args, 1, 1)
	if done {
		return code
	}
	m, err := c.Open(true)
	if err != nil {
		return c.Fail("%v", err)
	}
	res, err := session.Export(m, pos[0], engine.ExportOptions{WithDevice: *withDevice, AllMachines: *allMachines})
	if err != nil {
		return c.Fail("%v", err)
	}
	fmt.Fprintf(stdout, "exported %d notes to %s\n", res.Written, pos[0])
	for _, s := range res.Skipped {
		fmt.Fprintf(stdout, "skipped: %s\n", s)
	}
	for _, s := range res.LeftOut {
		fmt.Fprintf(stderr, "left out: %s: another machine's device note (--all-machines includes it)\n", s)
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
absolute paths, "..", links, hidden names, FIFOs and other special files, and
files that are not notes (over 4 MiB, binary, not UTF-8) are refused. Folders
whose name starts with "." (.git/ of a clone of the sync remote, an editor's
folder) are not read: each is an "ignored: DIR/" line, not an error. DIR may
not be inside a memory root or hold one. The tree's magicfrog.json is merged
(agents, shared, and tasks into the project's config.json: the union); its
layers.json is taken when there is none, and a different one is reported on
stderr, never written over. Each configuration change is a "config: ..." line.

Prints an "imported PATH" line per note written, a "kept: ..." line per note
kept back because the destination is not older, then a summary line
"imported N, unchanged N, kept N, refused N". Each refused file is reported on
stderr ("refused: ..."); the exit code is 1 when any file was refused, 0
otherwise (kept notes are not an error).`, stdout, stderr)
	pos, code, done := c.Parse(args, 1, 1)
	if done {
		return code
	}
	m, err := c.OpenDataDir()
	if err != nil {
		return c.Fail("%v", err)
	}
	res, _, err := session.Import(m, pos[0])
	if err != nil {
		return c.Fail("%v", err)
	}
	for _, p := range res.Paths {
		fmt.Fprintf(stdout, "imported %s\n", p)
	}
	for _, l := range res.Config {
		fmt.Fprintf(stdout, "config: %s\n", l)
	}
	for _, d := range res.Ignored {
		fmt.Fprintf(stdout, "ignored: %s (a dot-folder holds no notes)\n", d)
	}
	if res.LayersDiffer != "" {
		fmt.Fprintf(stderr, "warning: %s\n", res.LayersDiffer)
	}
	kept, refused := 0, 0
	for _, s := range res.Skipped {
		if s.Kept { // the destination is at least as new: not an error
			kept++
			fmt.Fprintf(stdout, "kept: %s: %s\n", s.From, s.Reason)
			continue
		}
		refused++
		fmt.Fprintf(stderr, "refused: %s: %s\n", s.From, s.Reason)
	}
	fmt.Fprintf(stdout, "imported %d, unchanged %d, kept %d, refused %d\n", res.Imported, res.Unchanged, kept, refused)
	if refused > 0 {
		return exitError
	}
	return exitOK
}
