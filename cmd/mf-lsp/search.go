package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/magicfrog/mf-lsp/cmd/internal/shell"
	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/participant"
	"github.com/magicfrog/mf-lsp/engine/participant/embedenv"
)

func runSearch(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCLI("search", "mf-lsp search [--limit N] [--json] [--today YYYY-MM-DD] [--agent ID] [--task ID] QUERY…", `
Search the notes in the participant's scope, the same search as the MCP tool
memory_search: every journal day and shadowed notes included, best first, each
hit with the passage that answers best and its lines in the note's body. Write
the query as a question; dates in it ("last week", "in May", "on 8 May 2026")
favour the journal days they name, counted from --today. The words of every
argument make one query.`, stdout, stderr)
	var pf shell.ParticipantFlags
	pf.Register(c)
	limit := c.FS.Int("limit", 0, "the most hits, `N` from 1 to 100 (default 10)")
	asJSON := c.FS.Bool("json", false, "print the result as JSON (memory_search's)")
	today := c.FS.String("today", "", "the day dates in the query count from, `YYYY-MM-DD` (default: the local date)")
	pos, code, done := c.Parse(args, 1, math.MaxInt)
	if done {
		return code
	}
	if _, err := engine.Today(*today); err != nil {
		return c.UsageError("--today %q: want YYYY-MM-DD", *today)
	}
	p, err := pf.Participant(c, *today, withEmbeddings)
	if err != nil {
		return c.Fail("%v", err)
	}
	for _, w := range p.Warnings() {
		fmt.Fprintf(stderr, "mf-lsp search: warning: %s\n", w)
	}
	res, err := p.Search(strings.Join(pos, " "), *limit)
	switch {
	case participant.IsRefusal(err):
		return c.UsageError("%v", err)
	case err != nil:
		return c.Fail("%v", err)
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "mf-lsp search: warning: %s\n", w)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return c.Fail("%v", err)
		}
		return exitOK
	}
	for i, h := range res.Hits {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		shadowed := ""
		if !h.Effective {
			shadowed = " (shadowed)"
		}
		fmt.Fprintf(stdout, "%s %s:%d-%d%s score %.3f\n", h.Dimension, h.Key, h.StartLine, h.EndLine, shadowed, h.Score)
		for _, l := range strings.Split(h.Snippet, "\n") {
			fmt.Fprintf(stdout, "    %s\n", l)
		}
	}
	fmt.Fprintf(stderr, "%d of %d matching notes\n", len(res.Hits), res.Total)
	return exitOK
}

// withEmbeddings gives a participant that searches (search, mcp) the
// embedding provider the environment configures.
func withEmbeddings(o *participant.Options) { embedenv.Set(o, os.Getenv) }
