package main

import (
	"fmt"
	"io"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/managed"
)

func runRender(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCLI("render", "mf-lsp render [--task ID] [--agent ID]... [--machine ID] [--budget TOKENS] [--previous GEN] [--today YYYY-MM-DD] [--into FILE]", `
Print the <memory> block an agent reads: the effective view of the scope, most
specific dimension first, skills listed, journal files outside the boot set left
out. The scope defaults to the project binding (.magicfrog/config.json) and this
machine; --task, --agent and --machine override it. Files that cannot be read are
listed on stderr as warnings.

With --into FILE the block goes into a managed section of FILE (a CLAUDE.md,
an AGENTS.md, any Markdown file) between the marker comments
"<!-- mf-lsp:begin ... -->" and "<!-- mf-lsp:end -->", instead of stdout: the
section is replaced, or appended when FILE has no markers yet (FILE is created
when missing); every byte outside the markers stays as it was. When the section
already holds this block nothing is written. Two marker pairs, a marker
without its pair, and a FILE that is a symbolic link are refused (exit 1).
Prints "FILE: OUTCOME (generation GEN, N tokens)".`, stdout, stderr)
	var sf scopeFlags
	sf.register(c)
	budget := c.fs.Int("budget", 0, "the most `TOKENS` (o200k) the block may take; what does not fit is listed as <omitted/> (0: no limit)")
	previous := c.fs.String("previous", "", "the generation `GEN` of the block the agent holds; a changed view says replaces=\"GEN\"")
	today := c.fs.String("today", "", "the journal's today, `YYYY-MM-DD` (default: the local date)")
	into := c.fs.String("into", "", "write the block into the managed section of `FILE` instead of stdout")
	if _, code, done := c.parse(args, 0, 0); done {
		return code
	}
	if *budget < 0 {
		return c.usageError("--budget %d: want 0 (no limit) or more", *budget)
	}
	if _, err := engine.Today(*today); err != nil {
		return c.usageError("--today %q: want YYYY-MM-DD", *today)
	}
	m, err := c.open(true)
	if err != nil {
		return c.fail("%v", err)
	}
	blk, err := m.Render(engine.RenderOptions{Scope: sf.scope(c, m), Budget: *budget, Previous: *previous, Today: *today})
	if err != nil {
		return c.fail("%v", err)
	}
	if *into != "" {
		if err := c.requireDataDir(m); err != nil {
			return c.fail("%v", err)
		}
		outcome, err := managed.WriteInto(m.Paths.MemoryDir(), *into, blk.Text)
		if err != nil {
			return c.fail("%v", err)
		}
		fmt.Fprintf(stdout, "%s: %s (generation %s, %d tokens)\n", *into, outcome, blk.Generation, blk.Tokens)
		return exitOK
	}
	fmt.Fprint(stdout, blk.Text)
	return exitOK
}
