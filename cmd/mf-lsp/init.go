package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/magicfrog/mf-lsp/cmd/internal/shell"
	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/session"
)

func runInit(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCLI("init", "mf-lsp init [--task ID] [--agent ID]... [--journal PATH [--dimension task|agent/ID]]", `
Make a data directory and bind the project to it. In the data directory:
memory/ with the account, user, agent and device folders, memory/layers.json
(core, skills, and a fractal journal layer), magicfrog.json (the agent roster,
from --agent) and machine-id. In the project: .magicfrog/config.json (the
binding: --task and --agent) and .magicfrog/memory/ for task notes.

Init is idempotent: it never overwrites an existing file, with one exception:
--task on a project already bound to another task rebinds it, and the earlier
task stays in the config's "tasks" so that its folder keeps reading as that
task's notes. --journal PATH mounts an existing Fractal or OpenClaw workspace
(PATH/memory/ and PATH/MEMORY.md) as the journal of --dimension (default: the
bound agent's), recorded in the binding's "journals": read and written where
it is, never copied. It prints a "made PATH" or "kept PATH" line for each, then the
next steps.`, stdout, stderr)
	task := c.FS.String("task", "", "the project's task `ID`")
	var agents shell.StringList
	c.FS.Var(&agents, "agent", "an agent `ID` the project is bound to and the roster lists; repeat or separate with commas")
	journalDir := c.FS.String("journal", "", "mount the Fractal or OpenClaw workspace at `PATH` (memory/ and MEMORY.md) as a journal, read and written in place")
	journalDim := c.FS.String("dimension", "", "with --journal: whose journal it is, task or agent/`ID` (default: the bound agent's)")
	if _, code, done := c.Parse(args, 0, 0); done {
		return code
	}
	m, err := c.Open(false)
	if err != nil {
		return c.Fail("%v", err)
	}
	res, err := session.Init(m, session.InitRequest{Task: *task, Agents: agents})
	var bad *session.BadIDError
	if errors.As(err, &bad) {
		return c.UsageError("--%s %v", bad.Dimension, bad)
	}
	for _, l := range res.Lines {
		fmt.Fprintf(stdout, "%s %s%s\n", l.Verb, l.Path, l.Note)
	}
	if err != nil {
		return c.Fail("%v", err)
	}
	if res.AgentsKept {
		fmt.Fprintf(stdout, "  note: --agent was not applied to the existing %s; edit it by hand\n", res.ConfigFile)
	}
	if *journalDir != "" {
		if code := mountJournal(c, m, *journalDir, *journalDim, stdout); code != exitOK {
			return code
		}
	} else if c.IsSet("dimension") {
		return c.UsageError("--dimension goes with --journal")
	}
	fmt.Fprintf(stdout, `
Next steps:
  echo "Prefer small commits." | mf-lsp write --dimension user --key style/commits.md --expect-revision 0
  mf-lsp tree      the effective view: every key and where it comes from
  %-6s render    the <memory> block an agent reads
  Point your editor's mf-lsp client at this data directory (--data-dir %s
  or $MAGICFROG_HOME) to edit notes with diagnostics.
`, hookBinary(), m.Paths.DataDir)
	return exitOK
}

// hookBinary is the binary a hook calls for render and append: mf-hook when
// it sits beside this mf-lsp (the same commands and output, less start-up),
// else mf-lsp.
func hookBinary() string {
	exe, err := os.Executable()
	if err != nil {
		return "mf-lsp"
	}
	if fi, err := os.Stat(filepath.Join(filepath.Dir(exe), "mf-hook"+filepath.Ext(exe))); err == nil && fi.Mode().IsRegular() {
		return "mf-hook"
	}
	return "mf-lsp"
}

// mountJournal is init --journal (session.MountJournal), printed.
func mountJournal(c *cli, m *engine.Memory, dir, dim string, stdout io.Writer) int {
	res, err := session.MountJournal(m, dir, dim)
	var usage *session.JournalMountError
	if errors.As(err, &usage) {
		return c.UsageError("%v", usage)
	}
	if err != nil {
		return c.Fail("%v", err)
	}
	verb := "kept"
	if res.Changed {
		verb = "mounted"
	}
	fmt.Fprintf(stdout, "%s %s as the journal of %s: %s and %s are read and written in place (no copy)\n", verb, res.Dir, res.Dimension, res.MemoryDir, res.MemoryFile)
	return exitOK
}
