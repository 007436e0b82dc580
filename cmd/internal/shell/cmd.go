package shell

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
	"github.com/magicfrog/mf-lsp/session/base"
)

// Cmd is one subcommand's flag set with the flags every subcommand shares.
type Cmd struct {
	Name    string
	Usage   string // "mf-lsp render [flags]"
	About   string // what the command does, a paragraph or two
	FS      *flag.FlagSet
	DataDir string
	Project string
	Scope   *ScopeFlags // the command's scope flags, if it has them: the IDs they name are IDs
	Stdout  io.Writer
	Stderr  io.Writer
	// ScopeOnly loads only what the views of the scope flags' IDs (else the
	// binding's) can hold (engine.Options.ScopeOnly): render, which reads
	// nothing else.
	ScopeOnly bool
	// Within names, with ScopeOnly, the IDs whose folders are read without
	// making them IDs (engine.Options.Within): mcp.
	Within engine.Scope
	// FrontmatterOnly loads large notes' frontmatter only
	// (engine.Options.BodiesOnDemand): tree, which prints no body, so a
	// memory of large notes does not take its text's size in memory.
	FrontmatterOnly bool
	// SumsOnDemand, with FrontmatterOnly (or a load that reads large notes
	// on demand anyway, mcp's), hashes a large note only when asked
	// (engine.Options.SumsOnDemand): render, mcp.
	SumsOnDemand bool
	// OneShot says the command's memory is read once and never again
	// (engine.Options.OneShot): append.
	OneShot bool
	// Load opens the memory; nil is base.OpenMemory (mcp loads and watches
	// in one walk: watch.Open).
	Load func(engine.Options) (*engine.Memory, error)
	// caches go to the memory Open loads (Env).
	caches base.Caches
}

// New is the subcommand name's flag set with the shared flags (--data-dir,
// --project), opening memory with e's caches; usage and about are its --help.
func (e *Env) New(name, usage, about string, stdout, stderr io.Writer) *Cmd {
	c := &Cmd{Name: name, Usage: usage, About: about, Stdout: stdout, Stderr: stderr, caches: e.Caches}
	c.FS = flag.NewFlagSet("mf-lsp "+name, flag.ContinueOnError)
	c.FS.SetOutput(io.Discard)
	c.FS.Usage = func() {}
	c.FS.StringVar(&c.DataDir, "data-dir", "", "the MagicFrog data `DIR` (default: $MAGICFROG_HOME, $XDG_DATA_HOME/magicfrog, ~/.local/share/magicfrog)")
	c.FS.StringVar(&c.Project, "project", "", "the project `DIR` whose .magicfrog/ holds task memory (default: the current directory)")
	return c
}

// parse parses args, allowing flags before and after positional arguments
// (`mf-lsp export out --with-device`); "--" ends the flags. It returns the
// positional arguments, or done=true and the exit code when the command must
// stop: 0 after --help, 2 after bad usage (reported on stderr).
func (c *Cmd) Parse(args []string, minPos, maxPos int) (pos []string, code int, done bool) {
	for {
		err := c.FS.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			c.PrintHelp(c.Stdout)
			return nil, ExitOK, true
		}
		if err != nil {
			return nil, c.UsageError("%v", err), true
		}
		rest := c.FS.Args()
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
		return nil, c.UsageError("missing argument"), true
	case len(pos) > maxPos:
		return nil, c.UsageError("unexpected argument %q", pos[maxPos]), true
	}
	return pos, ExitOK, false
}

// usageError reports bad usage on stderr and returns exit code 2.
func (c *Cmd) UsageError(format string, args ...any) int {
	fmt.Fprintf(c.Stderr, "mf-lsp %s: %s\nusage: %s\nrun 'mf-lsp %s --help' for details\n", c.Name, fmt.Sprintf(format, args...), c.Usage, c.Name)
	return ExitUsage
}

// fail reports an error on stderr and returns exit code 1.
func (c *Cmd) Fail(format string, args ...any) int {
	fmt.Fprintf(c.Stderr, "mf-lsp %s: %s\n", c.Name, fmt.Sprintf(format, args...))
	return ExitError
}

// isSet reports whether a flag was given on the command line.
func (c *Cmd) IsSet(name string) bool {
	set := false
	c.FS.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

func (c *Cmd) PrintHelp(w io.Writer) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n\nFlags:\n", c.Usage, strings.TrimSpace(c.About))
	c.FS.VisitAll(func(f *flag.Flag) {
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
func (c *Cmd) ProjectDir() (string, error) {
	if c.Project != "" {
		info, err := os.Stat(c.Project)
		if err != nil {
			return "", fmt.Errorf("project: %w", err)
		}
		if !info.IsDir() {
			return "", fmt.Errorf("project: %s is not a directory", c.Project)
		}
		return c.Project, nil
	}
	return os.Getwd()
}

// open loads memory. Problems (files that could not be read) are printed on
// stderr as warnings: they never stop the rest of the tree from loading. With
// c.ScopeOnly only the files of the folders it reads are looked at.
func (c *Cmd) Open(warn bool) (*engine.Memory, error) {
	project, err := c.ProjectDir()
	if err != nil {
		return nil, err
	}
	opts := engine.Options{DataDir: c.DataDir, ProjectDir: project, TokenCache: c.caches.Tokens, SecretScans: c.caches.Scans}
	if c.Scope != nil {
		// An agent or task the flags name is an ID for this command, registered
		// or not (SPEC §2): its folder reads as its own notes.
		opts.Named = engine.Scope{Task: c.Scope.Task, Agents: c.Scope.Agents}
		if a := os.Getenv(engine.AgentEnv); a != "" && !c.IsSet("agent") {
			opts.Named.Agents = []string{a} // the agent participant.Resolve will pick
		}
	}
	opts.ScopeOnly, opts.Within, opts.BodiesOnDemand, opts.SumsOnDemand, opts.OneShot = c.ScopeOnly, c.Within, c.FrontmatterOnly, c.SumsOnDemand, c.OneShot
	load := base.OpenMemory
	if c.Load != nil {
		load = c.Load
	}
	m, err := load(opts)
	if err != nil {
		return nil, err
	}
	if warn {
		if _, err := os.Stat(m.Paths.DataDir); err != nil {
			fmt.Fprintf(c.Stderr, "mf-lsp %s: warning: data directory %s does not exist (run mf-lsp init, or pass --data-dir)\n", c.Name, m.Paths.DataDir)
		}
		for _, p := range m.Problems() {
			fmt.Fprintf(c.Stderr, "mf-lsp %s: warning: %s\n", c.Name, p.Error())
		}
	}
	return m, nil
}

// requireDataDir refuses to write into a data directory that does not exist:
// a mistyped --data-dir must not grow a stray memory tree.
func (c *Cmd) RequireDataDir(m *engine.Memory) error {
	info, err := os.Stat(m.Paths.DataDir)
	if err != nil || !info.IsDir() {
		return fmt.Errorf("data directory %s does not exist: run mf-lsp init, or pass --data-dir", m.Paths.DataDir)
	}
	return nil
}

// openDataDir opens memory, with open's warnings, for a command that writes
// into the data directory: it must exist (requireDataDir).
func (c *Cmd) OpenDataDir() (*engine.Memory, error) {
	m, err := c.Open(true)
	if err != nil {
		return nil, err
	}
	if err := c.RequireDataDir(m); err != nil {
		return nil, err
	}
	return m, nil
}

// requireWritable refuses writes that would make a memory root out of nothing:
// the data directory must exist for data-directory notes, and the project's
// .magicfrog/ for task notes (a stray `write --dimension task` in the wrong
// folder must not make one).
func (c *Cmd) RequireWritable(m *engine.Memory, d engine.Dimension) error {
	if d != engine.Task {
		return c.RequireDataDir(m)
	}
	dir := filepath.Dir(m.Paths.TaskDir())
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return fmt.Errorf("%s does not exist: task notes live in a project; run mf-lsp init there, or pass --project", dir)
	}
	return nil
}

// StringList is a repeatable string flag.
type StringList []string

func (l *StringList) String() string { return strings.Join(*l, ",") }
func (l *StringList) Set(s string) error {
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			*l = append(*l, part)
		}
	}
	return nil
}

// ScopeFlags are --task, --agent (repeatable) and --machine: who is looking.
type ScopeFlags struct {
	Task    string
	Agents  StringList
	Machine string
}

func (s *ScopeFlags) Register(c *Cmd) {
	c.Scope = s
	c.FS.StringVar(&s.Task, "task", "", "the task `ID` (default: the project binding's task)")
	c.FS.Var(&s.Agents, "agent", "an agent `ID`; repeat or separate with commas (default: the project binding's agents; given, it replaces them)")
	c.FS.StringVar(&s.Machine, "machine", "", "the machine `ID` whose device notes are shown (default: this machine's, <data>/machine-id)")
}

// scope is the project binding's scope with the flags applied, no agent
// chosen (participant.Bound).
func (s *ScopeFlags) Scope(c *Cmd, m *engine.Memory) engine.Scope {
	return participant.Bound(m, s.Given(c))
}

// given is what the flags say, for participant.Resolve: --agent's list
// replaces the binding's agents (one of them is the participant; several are
// refused there).
func (s *ScopeFlags) Given(c *Cmd) participant.Given {
	return participant.Given{Task: s.Task, TaskSet: c.IsSet("task"), Machine: s.Machine, MachineSet: c.IsSet("machine"),
		Agents: s.Agents, AgentsSet: c.IsSet("agent"), AgentsFrom: "--agent"}
}

// RefusedScope reports a scope participant.Resolve refused: several agents and
// none chosen is bad usage (exit 2), with its code and choices on a line of
// their own (what scripts read: docs/cli.md) and hint, what this command
// offers besides; any other error is exit 1.
func RefusedScope(c *Cmd, err error, hint string) int {
	d, ok := errcode.DataOf(err)
	if !ok || d.Code != errcode.SeveralAgents {
		return c.Fail("%v", err)
	}
	fmt.Fprintf(c.Stderr, "mf-lsp %s: %v\n", c.Name, err)
	fmt.Fprintf(c.Stderr, "  code: %s; choices: %s\n", d.Code, strings.Join(d.Choices, ", "))
	if hint != "" {
		fmt.Fprintf(c.Stderr, "  %s\n", hint)
	}
	return ExitUsage
}

// Exit codes shared by every subcommand.
const (
	ExitOK    = 0
	ExitError = 1
	ExitUsage = 2
	ExitStale = 3
)

// Env is what a binary's main makes once for its commands: the caches a run
// keeps in the user's cache folder (docs/architecture.md, "Token-count cache",
// "Secret-scan cache"): token counts outlive the process, so an agent's next
// boot with a budget does not tokenize again; so do clean secret scans, for
// check's sake (not the server's, which scans every version of what is
// typed). main opens them (base.OpenCaches) before any command runs and
// flushes them after; Env.New hands them to each command's Cmd, whose Open
// passes them to the memory it opens (engine.Options): a command takes no
// argument that could carry them. The zero Env has none: tests that call a
// command write nothing.
type Env struct {
	Caches base.Caches
}
