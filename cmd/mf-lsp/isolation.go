package main

import (
	"errors"
	"fmt"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/errcode"
)

// registerFlag is --register on the commands that write (write, today,
// promote): an agent or task ID that is not registered is added to the
// roster or the project's tasks in the same step, instead of refused.
func registerFlag(c *cli) *bool {
	return c.fs.Bool("register", false, "add an agent or task ID that is not registered yet to magicfrog.json \"agents\" or the project's config.json \"tasks\" (otherwise such a write is refused, exit 2)")
}

// unregistered reports a write refused because its ID is not registered: bad
// usage (exit 2) naming the fix.
func unregistered(c *cli, err error) (int, bool) {
	var u *engine.UnregisteredError
	if !errors.As(err, &u) {
		return 0, false
	}
	fmt.Fprintf(c.stderr, "mf-lsp %s: %v\n", c.name, u)
	codeLine(c, err)
	fmt.Fprintf(c.stderr, "  to register it in the same step, run again with --register (adds it to %s)\n", registerFileName(u.Dimension))
	return exitUsage, true
}

func registerFileName(d engine.Dimension) string {
	if d == engine.Task {
		return `.magicfrog/config.json "tasks"`
	}
	return `magicfrog.json "agents"`
}

// reportWrite says on stderr what a write did besides writing: an ID it
// registered, a legacy note it continued.
func reportWrite(c *cli, res *engine.WriteResult) {
	if res.Registered != "" {
		fmt.Fprintf(c.stderr, "registered the ID in %s\n", res.Registered)
	}
	switch {
	case res.Legacy != "" && res.LegacyRemoved:
		fmt.Fprintf(c.stderr, "continued the legacy note %s (revision %d): it is now %s, and the legacy file was removed\n", res.Legacy, res.Revision-1, res.Path)
	case res.Legacy != "":
		fmt.Fprintf(c.stderr, "continued the legacy note %s (revision %d) as %s; the legacy file was kept: %s\n", res.Legacy, res.Revision-1, res.Path, res.LegacyKept)
	}
}

// notANote reports a write refused because what it would write is not a note
// (engine.NotANoteError: the rule that failed is named): bad input, exit 2,
// nothing written. The message is the engine's, as MCP's tools send it.
func notANote(c *cli, err error) (int, bool) {
	if _, ok := engine.AsNotANote(err); !ok {
		return 0, false
	}
	fmt.Fprintf(c.stderr, "mf-lsp %s: %v; nothing was written\n", c.name, err)
	codeLine(c, err)
	return exitUsage, true
}

// codeLine says a refusal's code on a line of its own, as the several-agents
// refusal does (refusedScope), with the rule that failed when there is one:
// "  code: not-a-note; rule: nul-byte". The MCP tools and the language server
// carry the same errcode.Data; a script reads this line, not the words.
func codeLine(c *cli, err error) {
	d, ok := errcode.DataOf(err)
	if !ok {
		return
	}
	line := "  code: " + string(d.Code)
	if d.Rule != "" {
		line += "; rule: " + d.Rule
	}
	fmt.Fprintln(c.stderr, line)
}
