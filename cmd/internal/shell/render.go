package shell

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/session/base"
)

const renderUsage = "mf-lsp render [--task ID] [--agent ID | --each-agent] [--machine ID] [--budget TOKENS] [--previous GEN] [--today YYYY-MM-DD] [--earlier N] [--into FILE]"

const renderAbout = `
Print the <memory> block an agent reads: the effective view of the scope, most
specific dimension first, skills listed, journal files outside the boot set left
out. A journal's boot set is, in this order: today's daily, yesterday's daily,
the last completed week's weekly, MEMORY.md, the sticky notes; --earlier N adds
the refined days of the N days before yesterday (after yesterday's daily,
oldest first). The scope defaults to the project binding (.magicfrog/config.json) and this
machine; --task, --agent and --machine override it.

render reads only what its blocks can hold: the folder of a registered agent
or task (agent/<id>/, the task root's <id>/) is read only when the scope names
it (--agent's agents, else the binding's; --task's task, else the binding's).
Files that cannot be read are listed on stderr as warnings: those of the
folders render reads, so a broken file in another agent's or task's folder is
not reported here (mf-lsp tree and check read everything).

A block is for one participant: the task plus one agent, which sees its own
agent notes and no other agent's. --agent picks the agent, else
$MAGICFROG_AGENT, else the binding's one agent; when the binding names several
and none is chosen, render exits 2 naming them (code several-agents).
--each-agent prints one block per agent of the binding (or of --agent), one
after the other. Notes under a folder that is neither a registered ID nor
shared (agent/<folder>/ not on the roster, a task-root folder shaped like a task
ID that is not the project's) are in no block: each block lists them as
<omitted path=… reason="unregistered-scope"/> without their bodies, and render
warns about each such folder on stderr.

With --into FILE the block goes into a managed section of FILE (a CLAUDE.md,
an AGENTS.md, any Markdown file) between the marker comments
"<!-- mf-lsp:begin ... -->" and "<!-- mf-lsp:end -->", instead of stdout: the
section is replaced, or appended when FILE has no markers yet (FILE is created
when missing); every byte outside the markers stays as it was. When the section
already holds this block nothing is written. Notes imported from FILE itself
(import --from records the source file in "imported-from", and the file an
@import chain starts at in "imported-via") are left out of its section, which
the host reads already, and a comment line at the section's top names them:
"<!-- mf-lsp: left out N notes imported from this file: REF, ... -->". Two marker pairs, a marker
without its pair, and a FILE that is a symbolic link are refused (exit 1).
FILE must be Markdown (.md, .mdc, .markdown) and outside the data directory
and the project's .magicfrog/ (mf-lsp's own notes and configuration, links
resolved): anything else is refused, unchanged (exit 2).
Prints "FILE: OUTCOME (generation GEN, N tokens)". --into takes one block:
not with --each-agent.`

func (e *Env) Render(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := e.New("render", renderUsage, renderAbout, stdout, stderr)
	var sf ScopeFlags
	sf.Register(c)
	var f renderFlags
	f.register(c)
	if _, code, done := c.Parse(args, 0, 0); done {
		return code
	}
	if code, bad := f.check(c); bad {
		return code
	}
	// Every block rendered here is of the flags' IDs, else the binding's (as
	// participant.Bound decides): the load skips every other registered agent's and
	// task's folder.
	//
	// Large notes keep their frontmatter only, and are not hashed at load
	// (engine.Options.SumsOnDemand): the block holds few of the notes its
	// scope loads (the winners of each key, the boot set of the journals),
	// and at 100,000 notes of 8-64 KB keeping every text took 0.8 GB of
	// peak RSS (1.2 GB with --budget) for a block of 0.19 GB. The notes in
	// the block are read again, twice: once for the generation, once as
	// written.
	c.ScopeOnly, c.FrontmatterOnly, c.SumsOnDemand = true, true, true
	m, err := c.Open(true)
	if err != nil {
		return c.Fail("%v", err)
	}
	if f.into != "" && f.each {
		return c.UsageError("--into writes one block into the file: pick the agent with --agent, not --each-agent")
	}
	req := base.BlocksRequest{Given: sf.Given(c), Each: f.each, Budget: f.budget, Previous: f.previous, Today: f.today, Earlier: f.earlier, Into: f.into}
	if f.into == "" {
		req.Out = stdout // each block written as rendered, never held whole
	}
	code := ExitOK
	err = base.RenderEach(m, req, os.Getenv, func(i int, blk *engine.Block) bool {
		if i == 0 {
			warnUnregistered(c, blk)
		}
		if f.into != "" {
			code = renderInto(c, m, f.into, blk)
			return false
		}
		return true
	})
	if err != nil {
		return RefusedScope(c, err, "or print one block each with --each-agent")
	}
	return code
}

// renderFlags are render's flags besides the scope.
type renderFlags struct {
	budget, earlier       int
	previous, today, into string
	each                  bool
}

func (f *renderFlags) register(c *Cmd) {
	c.FS.IntVar(&f.budget, "budget", 0, "the most `TOKENS` (o200k) the block may take; what does not fit is listed as <omitted/> (0: no limit)")
	c.FS.StringVar(&f.previous, "previous", "", "the generation `GEN` of the block the agent holds; a changed view says replaces=\"GEN\"")
	c.FS.StringVar(&f.today, "today", "", "the journal's today, `YYYY-MM-DD` (default: the local date)")
	c.FS.StringVar(&f.into, "into", "", "write the block into the managed section of `FILE` instead of stdout")
	c.FS.BoolVar(&f.each, "each-agent", false, "print one block per agent of the binding (or of --agent)")
	c.FS.IntVar(&f.earlier, "earlier", 0, "add the journal's refined days of the `N` days before yesterday")
}

// check refuses (exit 2, bad true) flags out of range or at odds with each
// other.
func (f *renderFlags) check(c *Cmd) (code int, bad bool) {
	switch {
	case f.each && f.previous != "":
		return c.UsageError("--previous names one block's generation: it cannot go with --each-agent"), true
	case f.budget < 0:
		return c.UsageError("--budget %d: want 0 (no limit) or more", f.budget), true
	case f.earlier < 0:
		return c.UsageError("--earlier %d: want 0 or more days", f.earlier), true
	}
	if _, err := engine.Today(f.today); err != nil {
		return c.UsageError("--today %q: want YYYY-MM-DD", f.today), true
	}
	return ExitOK, false
}

// renderInto writes blk into the managed section of file (render --into).
func renderInto(c *Cmd, m *engine.Memory, file string, blk *engine.Block) int {
	if err := c.RequireDataDir(m); err != nil {
		return c.Fail("%v", err)
	}
	w, err := base.WriteBlockInto(m, file, blk)
	var refused *base.HostFileError
	if errors.As(err, &refused) {
		fmt.Fprintf(c.Stderr, "mf-lsp %s: %v\n", c.Name, err)
		return ExitUsage
	}
	if err != nil {
		return c.Fail("%v", err)
	}
	fmt.Fprintf(c.Stdout, "%s: %s (generation %s, %d tokens)\n", w.Path, w.Outcome, w.Generation, w.Tokens)
	return ExitOK
}

// warnUnregistered says on stderr, once per folder, which unregistered
// folders the block left out and how to settle each.
func warnUnregistered(c *Cmd, blk *engine.Block) {
	type folder struct {
		dim engine.Dimension
		id  string
	}
	count := map[folder]int{}
	var order []folder
	for _, o := range blk.Omitted {
		if o.Reason != engine.ReasonUnregistered {
			continue
		}
		f := folder{o.Note.Dimension, o.Note.Owner}
		if count[f] == 0 {
			order = append(order, f)
		}
		count[f]++
	}
	for _, f := range order {
		fix := `register it in magicfrog.json "agents", or keep it shared ("shared")`
		if f.dim == engine.Task {
			fix = `register it in .magicfrog/config.json "tasks", or keep it shared ("shared")`
		}
		fmt.Fprintf(c.Stderr, "mf-lsp %s: warning: %s/%s/ is not a registered ID: its %d note(s) are in no block (listed as omitted); %s\n",
			c.Name, f.dim, f.id, count[f], fix)
	}
}
