package main

import (
	"errors"
	"fmt"

	"github.com/magicfrog/mf-lsp/cmd/internal/shell"
	"github.com/magicfrog/mf-lsp/engine"
)

// registerFlag is --register on the commands that write (write, today,
// promote): an agent or task ID that is not registered is added to the
// roster or the project's tasks in the same step, instead of refused.
func registerFlag(c *cli) *bool {
	return c.FS.Bool("register", false, "add an agent or task ID that is not registered yet to magicfrog.json \"agents\" or the project's config.json \"tasks\" (otherwise such a write is refused, exit 2)")
}

// unregistered reports a write refused because its ID is not registered: bad
// usage (exit 2) naming the fix.
func unregistered(c *cli, err error) (int, bool) {
	var u *engine.UnregisteredError
	if !errors.As(err, &u) {
		return 0, false
	}
	fmt.Fprintf(c.Stderr, "mf-lsp %s: %v\n", c.Name, u)
	shell.CodeLine(c, err)
	fmt.Fprintf(c.Stderr, "  to register it in the same step, run again with --register (adds it to %s)\n", registerFileName(u.Dimension))
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
		fmt.Fprintf(c.Stderr, "registered the ID in %s\n", res.Registered)
	}
	switch {
	case res.Legacy != "" && res.LegacyRemoved:
		fmt.Fprintf(c.Stderr, "continued the legacy note %s (revision %d): it is now %s, and the legacy file was removed\n", res.Legacy, res.Revision-1, res.Path)
	case res.Legacy != "":
		fmt.Fprintf(c.Stderr, "continued the legacy note %s (revision %d) as %s; the legacy file was kept: %s\n", res.Legacy, res.Revision-1, res.Path, res.LegacyKept)
	}
}
