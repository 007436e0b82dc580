package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/magicfrog/mf-lsp/engine"
)

// initLayers is the layers.json init writes: the two default layers and the
// Fractal journal.
var initLayers = []engine.Layer{
	{Name: "core", Prefix: ""},
	{Name: "skills", Prefix: "skills/"},
	{Name: "journal", Prefix: "journal/", Kind: engine.KindFractal},
}

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
	task := c.fs.String("task", "", "the project's task `ID`")
	var agents stringList
	c.fs.Var(&agents, "agent", "an agent `ID` the project is bound to and the roster lists; repeat or separate with commas")
	journalDir := c.fs.String("journal", "", "mount the Fractal or OpenClaw workspace at `PATH` (memory/ and MEMORY.md) as a journal, read and written in place")
	journalDim := c.fs.String("dimension", "", "with --journal: whose journal it is, task or agent/`ID` (default: the bound agent's)")
	if _, code, done := c.parse(args, 0, 0); done {
		return code
	}
	m, err := c.open(false)
	if err != nil {
		return c.fail("%v", err)
	}
	if *task != "" {
		if _, err := m.PathOf(engine.Task, *task, "x.md"); err != nil {
			return c.usageError("--task %q: not a usable ID: %v", *task, err)
		}
	}
	for _, a := range agents {
		if _, err := m.PathOf(engine.Agent, a, "x.md"); err != nil {
			return c.usageError("--agent %q: not a usable ID: %v", a, err)
		}
	}
	p := m.Paths
	say := func(made bool, path, note string) {
		verb := "kept"
		if made {
			verb = "made"
		}
		fmt.Fprintf(stdout, "%s %s%s\n", verb, path, note)
	}
	dirs := []string{p.DataDir, p.MemoryDir()}
	for _, d := range []engine.Dimension{engine.Account, engine.User, engine.Agent, engine.Device} {
		dirs = append(dirs, p.CanonicalRoot(d))
	}
	for _, d := range dirs {
		made, err := mkdir(d)
		if err != nil {
			return c.fail("%v", err)
		}
		say(made, d+string(filepath.Separator), "")
	}
	layers, _ := json.MarshalIndent(map[string]any{"layers": initLayers}, "", "  ")
	roster, _ := json.MarshalIndent(engine.Roster{Agents: append([]string{}, agents...)}, "", "  ")
	for _, f := range []struct {
		path string
		data []byte
	}{{p.LayersFile(), layers}, {p.RosterFile(), roster}} {
		made, err := createFile(f.path, append(f.data, '\n'))
		if err != nil {
			return c.fail("%v", err)
		}
		say(made, f.path, keptNote(made))
	}
	_, statErr := os.Stat(p.MachineIDFile())
	id, err := engine.ReadMachineID(p, true)
	if err != nil {
		return c.fail("%v", err)
	}
	say(statErr != nil, p.MachineIDFile(), " (this machine is "+id+")")

	// The project binding.
	bind := engine.Binding{Task: *task, Agents: append([]string(nil), agents...)}
	cfg, _ := json.MarshalIndent(bind, "", "  ")
	for _, d := range []string{filepath.Dir(p.ProjectConfigFile()), p.TaskDir()} {
		made, err := mkdir(d)
		if err != nil {
			return c.fail("%v", err)
		}
		say(made, d+string(filepath.Separator), "")
	}
	made, err := createFile(p.ProjectConfigFile(), append(cfg, '\n'))
	if err != nil {
		return c.fail("%v", err)
	}
	rebound := false
	if !made && *task != "" {
		// Rebinding keeps the earlier task registered (in "tasks"): its folder
		// must not turn into notes every task shares.
		previous, changed, err := m.Bind(*task)
		if err != nil {
			return c.fail("%v", err)
		}
		if rebound = changed; changed {
			note := fmt.Sprintf(" (bound to task %s)", *task)
			if previous != "" {
				note = fmt.Sprintf(" (rebound from task %s to %s; %s stays in \"tasks\", so its notes stay its own)", previous, *task, previous)
			}
			fmt.Fprintf(stdout, "changed %s%s\n", p.ProjectConfigFile(), note)
		}
	}
	if !rebound {
		say(made, p.ProjectConfigFile(), keptNote(made))
	}
	if !made && len(agents) > 0 {
		fmt.Fprintf(stdout, "  note: --agent was not applied to the existing %s; edit it by hand\n", p.ProjectConfigFile())
	}
	if *journalDir != "" {
		if code := mountJournal(c, m, *journalDir, *journalDim, stdout); code != exitOK {
			return code
		}
	} else if c.isSet("dimension") {
		return c.usageError("--dimension goes with --journal")
	}

	fmt.Fprintf(stdout, `
Next steps:
  echo "Prefer small commits." | mf-lsp write --dimension user --key style/commits.md --expect-revision 0
  mf-lsp tree      the effective view: every key and where it comes from
  mf-lsp render    the <memory> block an agent reads
  Point your editor's mf-lsp client at this data directory (--data-dir %s
  or $MAGICFROG_HOME) to edit notes with diagnostics.
`, p.DataDir)
	return exitOK
}

// mountJournal is init --journal: the workspace at dir becomes the journal of
// dim ("task", "agent/ID"; "" is the bound agent's), kept in place.
func mountJournal(c *cli, m *engine.Memory, dir, dim string, stdout io.Writer) int {
	m.Reload() // the configuration init just made
	if dim == "" {
		agents := m.Binding().Agents
		if len(agents) == 0 {
			return c.usageError("--journal: whose journal is it? Bind an agent (--agent ID) or say --dimension task or agent/ID")
		}
		dim = "agent/" + agents[0]
	}
	name, owner, _ := strings.Cut(dim, "/")
	d, err := engine.ParseDimension(name)
	if err != nil || (d != engine.Agent && d != engine.Task) || strings.Contains(owner, "/") {
		return c.usageError("--dimension %q: a journal is kept in place for task, task/ID or agent/ID", dim)
	}
	if owner != "" && !m.IsRegistered(d, owner) {
		return c.usageError("--dimension %q: %s is not a registered %s ID, so its journal would be in no one's view; add it first (init --agent %s, or the project's \"tasks\")", dim, owner, d, owner)
	}
	changed, err := m.MountJournal(dir, d, owner)
	if err != nil {
		return c.fail("--journal: %v", err)
	}
	abs, _ := filepath.Abs(dir)
	verb := "kept"
	if changed {
		verb = "mounted"
	}
	fmt.Fprintf(stdout, "%s %s as the journal of %s: %s and %s are read and written in place (no copy)\n", verb, abs+string(filepath.Separator), dim,
		filepath.Join(abs, engine.MountMemoryDir)+string(filepath.Separator), filepath.Join(abs, "MEMORY.md"))
	return exitOK
}

func keptNote(made bool) string {
	if made {
		return ""
	}
	return " (already there, not changed)"
}

// mkdir makes a directory and reports whether it made it.
func mkdir(dir string) (bool, error) {
	info, err := os.Stat(dir)
	if err == nil {
		if !info.IsDir() {
			return false, fmt.Errorf("%s exists and is not a directory", dir)
		}
		return false, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	return true, nil
}

// createFile writes a new file; an existing one is kept as it is.
func createFile(path string, data []byte) (bool, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return false, fmt.Errorf("%s: %w", path, err)
	}
	return true, nil
}
