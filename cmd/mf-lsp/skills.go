package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/magicfrog/mf-lsp/cmd/internal/shell"
	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/session"
	"github.com/magicfrog/mf-lsp/session/base"
)

func runSkills(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	c := newCLI("skills", "mf-lsp skills --into DIR [--task ID] [--agent ID] [--machine ID]", `
Write each skill in scope (the notes of a skills layer that the <memory> block
lists) as DIR/<name>/SKILL.md: the Agent Skills layout that Claude Code
(.claude/skills), Codex and OpenClaw read, with "name" and "description"
frontmatter and the note's body. <name> is the note's "name:" (else its file
name, or its folder's for skills/NAME/SKILL.md) as lower-case letters, digits
and hyphens; the description is the note's "description:" (else its first
line of text). The scope is render's: the project binding and this machine,
--task, --agent and --machine override it; one agent.

Each file it writes carries a mark in its frontmatter ("metadata:" with
"managed-by: mf-lsp", the note's ref as "source" and its content hash as
"hash"). Only marked files are ever changed: a marked SKILL.md is updated when
the note changed and removed (with its folder, when empty) when its skill left
the scope; a SKILL.md without the mark is never touched, and the skill of that
name is reported "untouched". Edits to a marked file are replaced: edit the
note. DIR is made when missing; DIR inside the data directory or the project's
.magicfrog/, or that is a symbolic link, is refused (exit 2).

Prints one line per skill, "OUTCOME NAME FILE <- REF" (created, updated,
unchanged, removed, untouched, skipped: why), then "skills: N created, N
updated, N unchanged, N removed, N untouched, N skipped". Exit 1 when a skill
was skipped or untouched, 0 otherwise. Nothing changed writes nothing, so it
can run from schedule (install --skills-into DIR), a hook or the editor
(magicfrog.skillsInto) at will.`, stdout, stderr)
	var sf shell.ScopeFlags
	sf.Register(c)
	into := c.FS.String("into", "", "the skills folder `DIR` to keep, e.g. .claude/skills (required)")
	logFile := c.FS.String("log", "", "append the report (stdout and stderr) to `FILE`, between a \"=== TIME\" and an \"=== exit N\" line (the scheduled job uses it)")
	if _, code, done := c.Parse(args, 0, 0); done {
		return code
	}
	if *logFile != "" {
		log, err := openRollupLog(*logFile)
		if err != nil {
			return c.Fail("--log: %v", err)
		}
		fmt.Fprintf(log, "=== %s mf-lsp skills %s\n", time.Now().UTC().Format(time.RFC3339), strings.Join(args, " "))
		c.Stdout, c.Stderr, stdout, stderr = log, log, log, log
		defer func() {
			fmt.Fprintf(log, "=== exit %d\n", code)
			log.Close()
		}()
	}
	if *into == "" {
		return c.UsageError("--into DIR is required: the folder the skills go into (e.g. .claude/skills)")
	}
	m, err := c.Open(true)
	if err != nil {
		return c.Fail("%v", err)
	}
	if err := c.RequireDataDir(m); err != nil {
		return c.Fail("%v", err)
	}
	scope := sf.Scope(c, m)
	if len(scope.Agents) > 1 {
		return c.UsageError("the skills are one agent's, and the scope names %d agents: pick one with --agent ID", len(scope.Agents))
	}
	rows, err := session.SkillsFor(m, engine.RenderOptions{Scope: scope}, *into)
	var refused *base.HostFileError
	if errors.As(err, &refused) {
		fmt.Fprintf(stderr, "mf-lsp skills: %v\n", err)
		return exitUsage
	}
	count := map[session.SkillOutcome]int{}
	for _, r := range rows {
		count[r.Outcome]++
		line := fmt.Sprintf("%s %s %s", r.Outcome, r.Name, r.File)
		if r.Ref != "" {
			line += " <- " + r.Ref
		}
		switch r.Outcome {
		case session.SkillForeign:
			line += ": not written by mf-lsp, left alone"
		case session.SkillSkipped:
			line = fmt.Sprintf("skipped %s: %s", r.Ref, r.Why)
		}
		fmt.Fprintln(stdout, line)
	}
	if err != nil {
		return c.Fail("%v", err)
	}
	fmt.Fprintf(stdout, "skills: %d created, %d updated, %d unchanged, %d removed, %d untouched, %d skipped\n",
		count[session.SkillCreated], count[session.SkillUpdated], count[session.SkillUnchanged], count[session.SkillRemoved], count[session.SkillForeign], count[session.SkillSkipped])
	if count[session.SkillForeign]+count[session.SkillSkipped] > 0 {
		return exitError
	}
	return exitOK
}
