package main

import (
	"fmt"
	"io"

	"github.com/magicfrog/mf-lsp/engine"
)

func runRender(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCLI("render", "mf-lsp render [--task ID] [--agent ID]... [--machine ID] [--budget TOKENS] [--previous GEN] [--today YYYY-MM-DD] [--earlier N]", `
Print the <memory> block an agent reads: the effective view of the scope, most
specific dimension first, skills listed, journal files outside the boot set left
out. A journal's boot set is, in this order: today's daily, yesterday's daily,
the last completed week's weekly, MEMORY.md, the sticky notes; --earlier N adds
the refined days of the N days before yesterday (after yesterday's daily,
oldest first). The scope defaults to the project binding (.magicfrog/config.json) and this
machine; --task, --agent and --machine override it. Files that cannot be read are
listed on stderr as warnings.`, stdout, stderr)
	var sf scopeFlags
	sf.register(c)
	budget := c.fs.Int("budget", 0, "the most `TOKENS` (o200k) the block may take; what does not fit is listed as <omitted/> (0: no limit)")
	previous := c.fs.String("previous", "", "the generation `GEN` of the block the agent holds; a changed view says replaces=\"GEN\"")
	today := c.fs.String("today", "", "the journal's today, `YYYY-MM-DD` (default: the local date)")
	earlier := c.fs.Int("earlier", 0, "add the journal's refined days of the `N` days before yesterday")
	if _, code, done := c.parse(args, 0, 0); done {
		return code
	}
	if *budget < 0 {
		return c.usageError("--budget %d: want 0 (no limit) or more", *budget)
	}
	if *earlier < 0 {
		return c.usageError("--earlier %d: want 0 or more days", *earlier)
	}
	if _, err := engine.Today(*today); err != nil {
		return c.usageError("--today %q: want YYYY-MM-DD", *today)
	}
	m, err := c.open(true)
	if err != nil {
		return c.fail("%v", err)
	}
	blk, err := m.Render(engine.RenderOptions{Scope: sf.scope(c, m), Budget: *budget, Previous: *previous, Today: *today, Earlier: *earlier})
	if err != nil {
		return c.fail("%v", err)
	}
	fmt.Fprint(stdout, blk.Text)
	return exitOK
}
