// Command mf-hook is the lean binary for the commands an agent's hook runs on
// every event: version, append and render, with mf-lsp's flags, output and
// exit codes (both binaries dispatch to the same functions,
// cmd/internal/shell). It links neither the language server nor the MCP
// server, the checks (diagnostics, gitleaks) nor sync (go-git's transports),
// so a call costs about what starting a Go program costs: Go runs the
// initializers of every package a binary links, whatever the command. Every
// other command is mf-lsp's.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/magicfrog/mf-lsp/cmd/internal/shell"
	"github.com/magicfrog/mf-lsp/session/base"
)

func main() {
	env := &shell.Env{Caches: base.OpenCaches()}
	code := run(env, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	env.Caches.Flush()
	os.Exit(code)
}

// run dispatches a hook command, mf-lsp's own, over env.
func run(env *shell.Env, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	commands := map[string]func(args []string, stdin io.Reader, stdout, stderr io.Writer) int{
		"version": env.Version,
		"append":  env.Append,
		"render":  env.Render,
	}
	if len(args) == 0 {
		usage(stderr)
		return shell.ExitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			if cmd, ok := commands[args[1]]; ok {
				return cmd([]string{"--help"}, stdin, stdout, stderr)
			}
		}
		usage(stdout)
		return shell.ExitOK
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "mf-hook: unknown command %q: mf-hook runs only version, append and render; every command is mf-lsp's\n", args[0])
		usage(stderr)
		return shell.ExitUsage
	}
	return cmd(args[1:], stdin, stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprint(w, `mf-hook runs the commands an agent's hook calls on every event, as mf-lsp
runs them (the same flags, output and exit codes), in a lean binary.

Usage:
  mf-hook version        print the version of mf-lsp and of Go
  mf-hook append [flags] append stdin to today's daily note
  mf-hook render [flags] print the <memory> block for a scope

Run 'mf-hook COMMAND --help' for a command's flags; see docs/cli.md.
`)
}
