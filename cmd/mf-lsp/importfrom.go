package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/magicfrog/mf-lsp/session"
)

// hasFromFlag reports whether import's arguments ask for another host's
// memory (--from) rather than a portable tree.
func hasFromFlag(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--from" || a == "-from" || strings.HasPrefix(a, "--from=") || strings.HasPrefix(a, "-from=") {
			return true
		}
	}
	return false
}

// runImportFrom is `mf-lsp import --from SOURCE PATH...`: the import command
// calls it when --from is given, with all of import's arguments.
func runImportFrom(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCLI("import", "mf-lsp import --from claude|agents|cursor|openclaw PATH... [--apply] [--split] [--scope ID]", `
Import memory another agent host keeps, as notes (docs/import.md):

  claude    CLAUDE.md, CLAUDE.local.md, .claude/CLAUDE.md, .claude/rules/ and
            nested CLAUDE.md of a project -> task notes claude/...;
            ~/.claude/CLAUDE.md and ~/.claude/rules/ -> user notes
            claude/user/...; @path imports are followed (five hops) while
            they stay inside the folder named, each imported .md a note
  agents    AGENTS.md -> task note AGENTS.md; a nested one keeps its folder
            (packages/api/AGENTS.md)
  cursor    .cursor/rules/*.mdc -> task notes: alwaysApply: true rules (and
            a legacy .cursorrules) as cursor/NAME.md, every other rule as the
            skill skills/cursor/NAME.md; description, globs and alwaysApply
            are kept in the frontmatter
  openclaw  a workspace: memory/ and MEMORY.md -> the agent's journal (as
            import --journal does), skills/ -> agent skills, other Markdown
            (SOUL.md, USER.md, AGENTS.md, ...) -> agent notes openclaw/NAME.md

Without --apply it prints the plan and writes nothing: one line per note
(new, unchanged, or exists: a note with other content is already there and is
kept), its destination, its tokens (o200k) and its source; a line per file
left out, and why; a summary. With --apply it writes the new notes, each at
revision 1; nothing is ever overwritten, so importing again changes nothing.
Exit code 1 when a file was left out (kept notes are not an error).`, stdout, stderr)
	from := c.FS.String("from", "", "what to import: `SOURCE` claude, agents, cursor or openclaw")
	apply := c.FS.Bool("apply", false, "write the notes (without it: print the plan only)")
	split := c.FS.Bool("split", false, "one note per top-level heading of each file (the text before the first heading is NAME/intro.md)")
	scope := c.FS.String("scope", "", "the `ID` prefix of the notes: an agent ID (openclaw) or a task ID (claude, agents, cursor); default: shared notes")
	pos, code, done := c.Parse(args, 1, 1<<20)
	if done {
		return code
	}
	req := session.HostImportRequest{From: *from, Paths: pos, Split: *split, Owner: *scope}
	if err := req.Check(); err != nil {
		return c.UsageError("--from: %v", err)
	}
	m, err := c.Open(true)
	if err != nil {
		return c.Fail("%v", err)
	}
	plan, err := session.PlanHostImport(m, req)
	if err != nil {
		return c.Fail("%v", err)
	}
	if !*apply {
		session.WriteHostImportPlan(stdout, plan)
		fmt.Fprintln(stdout, "nothing written: run again with --apply to import")
		if len(plan.Skipped) > 0 {
			return exitError
		}
		return exitOK
	}
	for _, d := range session.HostImportDimensions(plan) {
		if err := c.RequireWritable(m, d); err != nil {
			return c.Fail("%v", err)
		}
	}
	res, err := session.ApplyHostImport(m, plan)
	if res != nil {
		for _, s := range plan.Skipped {
			fmt.Fprintf(stdout, "skipped %s\n", s)
		}
		session.WriteHostImportResult(stdout, res)
	}
	if err != nil {
		return c.Fail("%v", err)
	}
	if len(plan.Skipped) > 0 || len(res.Skipped) > 0 { // kept notes are not an error
		return exitError
	}
	return exitOK
}
