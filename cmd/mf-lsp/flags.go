package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/errcode"
	"github.com/magicfrog/mf-lsp/engine/participant"
	"github.com/magicfrog/mf-lsp/session"
)

// cli is one subcommand's flag set with the flags every subcommand shares.
type cli struct {
	name    string
	usage   string // "mf-lsp render [flags]"
	about   string // what the command does, a paragraph or two
	fs      *flag.FlagSet
	dataDir string
	project string
	scope   *scopeFlags // the command's scope flags, if it has them: the IDs they name are IDs
	stdout  io.Writer
	stderr  io.Writer
	// scopeOnly loads only what the views of the scope flags' IDs (else the
	// binding's) can hold (engine.Options.ScopeOnly): render, which reads
	// nothing else.
	scopeOnly bool
	// within names, with scopeOnly, the IDs whose folders are read without
	// making them IDs (engine.Options.Within): mcp.
	within engine.Scope
	// frontmatterOnly loads large notes' frontmatter only
	// (engine.Options.BodiesOnDemand): tree, which prints no body, so a
	// memory of large notes does not take its text's size in memory.
	frontmatterOnly bool
	// load opens the memory; nil is engine.Open (mcp loads and watches in
	// one walk: watch.Open).
	load func(engine.Options) (*engine.Memory, error)
}

func newCLI(name, usage, about string, stdout, stderr io.Writer) *cli {
	c := &cli{name: name, usage: usage, about: about, stdout: stdout, stderr: stderr}
	c.fs = flag.NewFlagSet("mf-lsp "+name, flag.ContinueOnError)
	c.fs.SetOutput(io.Discard)
	c.fs.Usage = func() {}
	c.fs.StringVar(&c.dataDir, "data-dir", "", "the MagicFrog data `DIR` (default: $MAGICFROG_HOME, $XDG_DATA_HOME/magicfrog, ~/.local/share/magicfrog)")
	c.fs.StringVar(&c.project, "project", "", "the project `DIR` whose .magicfrog/ holds task memory (default: the current directory)")
	return c
}

// parse parses args, allowing flags before and after positional arguments
// (`mf-lsp export out --with-device`); "--" ends the flags. It returns the
// positional arguments, or done=true and the exit code when the command must
// stop: 0 after --help, 2 after bad usage (reported on stderr).
func (c *cli) parse(args []string, minPos, maxPos int) (pos []string, code int, done bool) {
	for {
		err := c.fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			c.printHelp(c.stdout)
			return nil, exitOK, true
		}
		if err != nil {
			return nil, c.usageError("%v", err), true
		}
		rest := c.fs.Args()
		if len(rest) == 0 {
			break
		}
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	switch {
	case len(pos) < minPos:
		return nil, c.usageError("missing argument"), true
	case len(pos) > maxPos:
		return nil, c.usageError("unexpected argument %q", pos[maxPos]), true
	}
	return pos, exitOK, false
}

// usageError reports bad usage on stderr and returns exit code 2.
func (c *cli) usageError(format string, args ...any) int {
	fmt.Fprintf(c.stderr, "mf-lsp %s: %s\nusage: %s\nrun 'mf-lsp %s --help' for details\n", c.name, fmt.Sprintf(format, args...), c.usage, c.name)
	return exitUsage
}

// fail reports an error on stderr and returns exit code 1.
func (c *cli) fail(format string, args ...any) int {
	fmt.Fprintf(c.stderr, "mf-lsp %s: %s\n", c.name, fmt.Sprintf(format, args...))
	return exitError
}

// isSet reports whether a flag was given on the command line.
func (c *cli) isSet(name string) bool {
	set := false
	c.fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

func (c *cli) printHelp(w io.Writer) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n\nFlags:\n", c.usage, strings.TrimSpace(c.about))
	c.fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		fmt.Fprintf(w, "%s\n      %s\n", line, usage)
	})
	fmt.Fprint(w, "\nExit codes: 0 ok, 1 error, 2 bad usage, 3 stale or refused write.\n")
}

// projectDir is --project, or the current directory. A directory without
// .magicfrog/ is still the project: it simply has no task notes.
func (c *cli) projectDir() (string, error) {
	if c.project != "" {
		info, err := os.Stat(c.project)
		if err != nil {
			return "", fmt.Errorf("project: %w", err)
		}
		if !info.IsDir() {
			return "", fmt.Errorf("project: %s is not a directory", c.project)
		}
		return c.project, nil
	}
	return os.Getwd()
}

// open loads memory. Problems (files that could not be read) are printed on
// stderr as warnings: they never stop the rest of the tree from loading. With
// c.scopeOnly only the files of the folders it reads are looked at.
func (c *cli) open(warn bool) (*engine.Memory, error) {
	project, err := c.projectDir()
	if err != nil {
		return nil, err
	}
	opts := engine.Options{DataDir: c.dataDir, ProjectDir: project, TokenCache: runCaches.Tokens, SecretScans: runCaches.Scans}
	if c.scope != nil {
		// An agent or task the flags name is an ID for this command, registered
		// or not (SPEC §2): its folder reads as its own notes.
		opts.Named = engine.Scope{Task: c.scope.task, Agents: c.scope.agents}
		if a := os.Getenv(engine.AgentEnv); a != "" && !c.isSet("agent") {
			opts.Named.Agents = []string{a} // the agent participant.Resolve will pick
		}
	}
	opts.ScopeOnly, opts.Within, opts.BodiesOnDemand = c.scopeOnly, c.within, c.frontmatterOnly
	load := session.OpenMemory
	if c.load != nil {
		load = c.load
	}
	m, err := load(opts)
	if err != nil {
		return nil, err
	}
	if warn {
		if _, err := os.Stat(m.Paths.DataDir); err != nil {
			fmt.Fprintf(c.stderr, "mf-lsp %s: warning: data directory %s does not exist (run mf-lsp init, or pass --data-dir)\n", c.name, m.Paths.DataDir)
		}
		for _, p := range m.Problems() {
			fmt.Fprintf(c.stderr, "mf-lsp %s: warning: %s\n", c.name, p.Error())
		}
	}
	return m, nil
}

// requireDataDir refuses to write into a data directory that does not exist:
// a mistyped --data-dir must not grow a stray memory tree.
func (c *cli) requireDataDir(m *engine.Memory) error {
	info, err := os.Stat(m.Paths.DataDir)
	if err != nil || !info.IsDir() {
		return fmt.Errorf("data directory %s does not exist: run mf-lsp init, or pass --data-dir", m.Paths.DataDir)
	}
	return nil
}

// openDataDir opens memory, with open's warnings, for a command that writes
// into the data directory: it must exist (requireDataDir).
func (c *cli) openDataDir() (*engine.Memory, error) {
	m, err := c.open(true)
	if err != nil {
		return nil, err
	}
	if err := c.requireDataDir(m); err != nil {
		return nil, err
	}
	return m, nil
}

// requireWritable refuses writes that would make a memory root out of nothing:
// the data directory must exist for data-directory notes, and the project's
// .magicfrog/ for task notes (a stray `write --dimension task` in the wrong
// folder must not make one).
func (c *cli) requireWritable(m *engine.Memory, d engine.Dimension) error {
	if d != engine.Task {
		return c.requireDataDir(m)
	}
	dir := filepath.Dir(m.Paths.TaskDir())
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return fmt.Errorf("%s does not exist: task notes live in a project; run mf-lsp init there, or pass --project", dir)
	}
	return nil
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }
func (l *stringList) Set(s string) error {
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			*l = append(*l, part)
		}
	}
	return nil
}

// scopeFlags are --task, --agent (repeatable) and --machine: who is looking.
type scopeFlags struct {
	task    string
	agents  stringList
	machine string
}

func (s *scopeFlags) register(c *cli) {
	c.scope = s
	c.fs.StringVar(&s.task, "task", "", "the task `ID` (default: the project binding's task)")
	c.fs.Var(&s.agents, "agent", "an agent `ID`; repeat or separate with commas (default: the project binding's agents; given, it replaces them)")
	c.fs.StringVar(&s.machine, "machine", "", "the machine `ID` whose device notes are shown (default: this machine's, <data>/machine-id)")
}

// scope is the project binding's scope with the flags applied, no agent
// chosen (participant.Bound).
func (s *scopeFlags) scope(c *cli, m *engine.Memory) engine.Scope {
	return participant.Bound(m, s.given(c))
}

// given is what the flags say, for participant.Resolve: --agent's list
// replaces the binding's agents (one of them is the participant; several are
// refused there).
func (s *scopeFlags) given(c *cli) participant.Given {
	return participant.Given{Task: s.task, TaskSet: c.isSet("task"), Machine: s.machine, MachineSet: c.isSet("machine"),
		Agents: s.agents, AgentsSet: c.isSet("agent"), AgentsFrom: "--agent"}
}

// refusedScope reports a scope participant.Resolve refused: several agents and
// none chosen is bad usage (exit 2), with its code and choices on a line of
// their own (what scripts read: docs/cli.md) and hint, what this command
// offers besides; any other error is exit 1.
func refusedScope(c *cli, err error, hint string) int {
	d, ok := errcode.DataOf(err)
	if !ok || d.Code != errcode.SeveralAgents {
		return c.fail("%v", err)
	}
	fmt.Fprintf(c.stderr, "mf-lsp %s: %v\n", c.name, err)
	fmt.Fprintf(c.stderr, "  code: %s; choices: %s\n", d.Code, strings.Join(d.Choices, ", "))
	if hint != "" {
		fmt.Fprintf(c.stderr, "  %s\n", hint)
	}
	return exitUsage
}

// parseWhere reads DIM or DIM/ID (promote's --from and --to).
func parseWhere(s string) (engine.Dimension, string, error) {
	dim, id, _ := strings.Cut(s, "/")
	d, err := engine.ParseDimension(dim)
	if err != nil {
		return 0, "", err
	}
	if strings.Contains(id, "/") {
		return 0, "", fmt.Errorf("%q: want DIMENSION or DIMENSION/ID", s)
	}
	if id != "" && !d.HasOwners() {
		return 0, "", fmt.Errorf("%q: %s notes have no ID", s, d)
	}
	return d, id, nil
}

// where names a dimension and scope: "agent/larry", "user".
func where(d engine.Dimension, scope string) string {
	if scope != "" {
		return d.String() + "/" + scope
	}
	return d.String()
}

// journalFlags are --dimension and --scope: which journal a command acts on.
type journalFlags struct {
	dimension string
	scope     string
}

func (j *journalFlags) register(c *cli, dimDefault, dimHelp string) {
	j.dimension = dimDefault
	c.fs.StringVar(&j.dimension, "dimension", dimDefault, dimHelp)
	c.fs.StringVar(&j.scope, "scope", "", "the agent or task `ID` prefix of the journal (default: the dimension's shared journal)")
}

// dim parses --dimension; "" is 0 (every dimension).
func (j *journalFlags) dim() (engine.Dimension, error) {
	if j.dimension == "" {
		return 0, nil
	}
	return engine.ParseDimension(j.dimension)
}

// oneDim is --dimension for commands that act on one journal: it must name a
// dimension.
func (j *journalFlags) oneDim() (engine.Dimension, error) {
	d, err := j.dim()
	if err != nil {
		return 0, err
	}
	if d == 0 {
		return 0, fmt.Errorf("want account, user, agent, task or device")
	}
	return d, nil
}
