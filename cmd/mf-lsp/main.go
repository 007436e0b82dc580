// Command mf-lsp curates AI-agent memory: with no arguments (or --stdio, which
// vscode-languageclient adds) it serves the Language Server Protocol on stdio;
// subcommands give the engine to the shell. docs/cli.md documents them.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/lsp"
	"github.com/magicfrog/mf-lsp/session/base"
)

func main() {
	stop := startProfile(os.Getenv("MF_LSP_CPUPROFILE"), os.Getenv("MF_LSP_MEMPROFILE"))
	code := mainExit(os.Args[1:])
	stop()
	os.Exit(code)
}

// heapProfileAtShutdown is where the server writes its heap profile when the
// client asks it to shut down (MF_LSP_MEMPROFILE; see startProfile).
var heapProfileAtShutdown string

// mainExit is main without os.Exit, so tests can run the command in-process.
func mainExit(args []string) int {
	runEnv.Caches = base.OpenCaches()
	defer runEnv.Caches.Flush()
	if len(args) == 0 || (len(args) == 1 && args[0] == "--stdio") {
		return serve(runEnv.Caches.Tokens)
	}
	if args[0] == "mcp" {
		boundHeapHeadroom() // a long-lived server too: its garbage is bounded
	}
	return run(args, os.Stdin, os.Stdout, os.Stderr)
}

// serve runs the language server on stdio; exit code 1 when the client did not shut
// it down cleanly (LSP: exit without shutdown).
func serve(tokens *engine.TokenCache) int {
	boundHeapHeadroom()
	opts := lsp.Options{TokenCache: tokens}
	if heapProfileAtShutdown != "" {
		opts.BeforeShutdown = func() { writeHeapProfile(heapProfileAtShutdown) }
	}
	if err := lsp.Serve(context.Background(), lsp.Stdio(), opts); err != nil {
		fmt.Fprintln(os.Stderr, "mf-lsp:", err)
		return 1
	}
	return 0
}

// command is one subcommand. It returns the process exit code: 0 success, 1 an
// error, 2 bad usage, 3 a stale or refused write (see docs/cli.md).
type command func(args []string, stdin io.Reader, stdout, stderr io.Writer) int

// commands maps a subcommand's name to its function: adding a subcommand is one
// note here (and, for `mf-lsp help`, one line in summaries).
var commands = map[string]command{
	"render":   runEnv.Render,
	"tree":     runTree,
	"write":    runWrite,
	"promote":  runPromote,
	"export":   runExport,
	"import":   runImport,
	"init":     runInit,
	"version":  runEnv.Version,
	"rollup":   runRollup,
	"today":    runToday,
	"check":    runCheck,
	"schedule": runSchedule,
	"mcp":      runMCP,
	"append":   runEnv.Append,
	"sync":     runSync,
	"history":  runHistory,
	"restore":  runRestore,
	"search":   runSearch,
	"skills":   runSkills,
}

// summaries are the one-line descriptions `mf-lsp help` lists.
var summaries = map[string]string{
	"render":   "print the <memory> block for a scope",
	"tree":     "print the effective view: every key, its winner, what it shadows",
	"write":    "write a note from stdin, revision-checked",
	"promote":  "move or copy a note to another dimension, scope or layer",
	"export":   "write memory as a portable tree of Markdown files",
	"import":   "read a portable tree into memory; never replaces a newer revision",
	"init":     "make a data directory and bind the current project",
	"version":  "print the version of mf-lsp and of Go",
	"rollup":   "roll up the journal: day, week, month, or everything due",
	"today":    "print (and create if missing) today's daily note in a journal",
	"check":    "run the editor's checks on notes: file:line:col findings or JSON",
	"schedule": "install, show or remove the journal's nightly/weekly/monthly rollup jobs (cron or systemd)",
	"mcp":      "serve memory to an agent over the Model Context Protocol (stdio or HTTP)",
	"append":   "append stdin to today's daily note, retrying under the revision check",
	"sync":     "roam: merge memory with a git remote, note by note (sync status, sync resolve, sync accept|reject)",
	"history":  "list the versions of a note: the local history, and the sync remote's",
	"restore":  "bring back a version from the local or the sync history",
	"search":   "search the notes in scope, best passage first (memory_search)",
	"skills":   "write the skills in scope into an agent host's skill folder (DIR/<name>/SKILL.md)",
}

// run dispatches a subcommand.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			if cmd, ok := commands[args[1]]; ok {
				return cmd([]string{"--help"}, stdin, stdout, stderr)
			}
			fmt.Fprintf(stderr, "mf-lsp help: unknown command %q\n", args[1])
			return exitUsage
		}
		listCommands(stdout)
		return exitOK
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "mf-lsp: unknown command %q\n", name)
		listCommands(stderr)
		return exitUsage
	}
	return cmd(args[1:], stdin, stdout, stderr)
}

func listCommands(w io.Writer) {
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	fmt.Fprint(w, `mf-lsp curates AI-agent memory.

Usage:
  mf-lsp                 serve the Language Server Protocol on stdio
  mf-lsp COMMAND [flags] run a command

Commands:
`)
	for _, name := range names {
		s := summaries[name]
		if s == "" {
			s = "(see mf-lsp " + name + " --help)"
		}
		fmt.Fprintf(w, "  %-9s %s\n", name, s)
	}
	fmt.Fprint(w, `
Every command takes --data-dir DIR and --project DIR (default: the current
directory) and --help. Exit codes: 0 ok, 1 error, 2 bad usage, 3 stale or
refused write, 4 sync conflicts, 5 notes held back for secrets, 6 remote
configuration held (sync accept|reject). See docs/cli.md.
`)
}
