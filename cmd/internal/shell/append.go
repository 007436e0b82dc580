package shell

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/errcode"
	"github.com/magicfrog/mf-lsp/engine/participant"
)

// ParticipantFlags are --task, --agent and --machine for the commands that act
// as one participant (mcp, append): one agent, not a list.
type ParticipantFlags struct {
	task, agent, machine string
}

func (f *ParticipantFlags) Register(c *Cmd) {
	c.FS.StringVar(&f.task, "task", "", "the task `ID` (default: the project binding's task; \"\" for none)")
	c.FS.StringVar(&f.agent, "agent", "", "the agent `ID` this participant is (default: $"+participant.AgentEnv+", else the project binding's one agent)")
	c.FS.StringVar(&f.machine, "machine", "", "the machine `ID` whose device notes are in scope (default: this machine's)")
}

// within is the scope whose folders the participant's load reads
// (engine.Options.Within): the agent --agent or $MAGICFROG_AGENT names and
// the task --task names, as Resolve picks them; what they leave unnamed is
// the binding's.
func (f *ParticipantFlags) Within(getenv func(string) string) engine.Scope {
	var s engine.Scope
	s.Task = f.task
	switch {
	case f.agent != "":
		s.Agents = []string{f.agent}
	case getenv(participant.AgentEnv) != "":
		s.Agents = []string{getenv(participant.AgentEnv)}
	}
	return s
}

// Participant opens memory and makes the participant the flags, the
// environment and the binding say; with, when given, completes its options
// (the commands that search set the embedding provider there: embedenv,
// which this package does not link, so mf-hook links no HTTP client).
func (f *ParticipantFlags) Participant(c *Cmd, today string, with func(*participant.Options)) (*participant.Participant, error) {
	m, err := c.Open(true)
	if err != nil {
		return nil, err
	}
	g := participant.Given{Task: f.task, Agent: f.agent, Machine: f.machine,
		TaskSet: c.IsSet("task"), AgentSet: c.IsSet("agent"), MachineSet: c.IsSet("machine")}
	s, err := participant.Resolve(m, g, os.Getenv)
	if err != nil {
		return nil, err // several agents: RefusedScope reports it
	}
	// The first search of the process reads the index's stored copy
	// (search and mcp are the commands that search).
	o := participant.Options{Scope: s, Today: today, SearchCacheDir: c.caches.Search}
	if with != nil {
		with(&o)
	}
	return participant.New(m, o)
}

func (e *Env) Append(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := e.New("append", "mf-lsp append [--dimension DIM[/ID]] [--today YYYY-MM-DD] [--agent ID] [--task ID] < TEXT", `
Append the text on stdin, as a block of its own, to today's daily note of a
journal, making the note (frontmatter and a dated title) when missing: the same
append as the MCP tool memory_append, for shell hooks (a Claude Code Stop hook,
a git post-commit hook). Each try writes with the revision it read and is
repeated when another writer got there first, so concurrent appends all land,
each once. Prints the note's path; "created PATH" on stderr when the note was
made.`, stdout, stderr)
	var pf ParticipantFlags
	pf.Register(c)
	dim := c.FS.String("dimension", "", "whose journal, `DIM[/ID]`: task (the project's; the default in a project), agent/ID (an agent's own; the default elsewhere), user, account, device")
	today := c.FS.String("today", "", "the day, `YYYY-MM-DD` (default: the local date)")
	if _, code, done := c.Parse(args, 0, 0); done {
		return code
	}
	day, err := engine.Today(*today)
	if err != nil {
		return c.UsageError("--today %q: want YYYY-MM-DD", *today)
	}
	text, err := io.ReadAll(io.LimitReader(stdin, engine.MaxNoteSize+1))
	if err != nil {
		return c.Fail("reading the text from stdin: %v", err)
	}
	// An append writes only into the participant's own journal
	// (Participant.ParsePlace refuses another agent's or task's), so, as the
	// MCP server does, it loads only what its scope can show
	// (engine.Options.ScopeOnly) and hashes a note only when asked
	// (SumsOnDemand): a hook's append on every commit read and hashed every
	// note of the tree, 0.4 s of CPU at 10,000 notes of 200 B-8 KB.
	c.ScopeOnly, c.Within, c.SumsOnDemand = true, pf.Within(os.Getenv), true
	// The process ends with the append: the note written is not read back
	// into a tree nothing reads again (engine.Options.OneShot).
	c.OneShot = true
	p, err := pf.Participant(c, *today, nil) // an append embeds nothing
	if err != nil {
		return RefusedScope(c, err, "")
	}
	for _, w := range p.Warnings() {
		fmt.Fprintf(stderr, "mf-lsp append: warning: %s\n", w)
	}
	res, err := p.Append(*dim, string(text), day)
	if code, ok := NotANote(c, err); ok {
		return code
	}
	switch {
	case participant.IsRefusal(err):
		return c.UsageError("%v", err)
	case errors.Is(err, participant.ErrBusy):
		fmt.Fprintf(stderr, "mf-lsp append: %v\n", err)
		return ExitStale
	case err != nil:
		return c.Fail("%v", err)
	}
	if res.Created {
		fmt.Fprintf(stderr, "created %s\n", res.Path)
	}
	fmt.Fprintln(stdout, res.Path)
	return ExitOK
}

// NotANote reports a write refused because what it would write is not a note
// (engine.NotANoteError: the rule that failed is named): bad input, exit 2,
// nothing written. The message is the engine's, as MCP's tools send it.
func NotANote(c *Cmd, err error) (int, bool) {
	if _, ok := engine.AsNotANote(err); !ok {
		return 0, false
	}
	fmt.Fprintf(c.Stderr, "mf-lsp %s: %v; nothing was written\n", c.Name, err)
	CodeLine(c, err)
	return ExitUsage, true
}

// CodeLine says a refusal's code on a line of its own, as the several-agents
// refusal does (RefusedScope), with the rule that failed when there is one:
// "  code: not-a-note; rule: nul-byte". The MCP tools and the language server
// carry the same errcode.Data; a script reads this line, not the words.
func CodeLine(c *Cmd, err error) {
	d, ok := errcode.DataOf(err)
	if !ok {
		return
	}
	line := "  code: " + string(d.Code)
	if d.Rule != "" {
		line += "; rule: " + d.Rule
	}
	fmt.Fprintln(c.Stderr, line)
}
