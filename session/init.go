package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/magicfrog/mf-lsp/engine"
)

// Init makes a data directory and binds a project to it (`mf-lsp init`,
// docs/cli.md#init), in its steps: the IDs checked, the data directory
// (folders, layers.json, the roster, the machine ID), then the project (its
// folders and the binding, rebound when another task is asked for). It never
// overwrites a file, except the binding's task on a rebind.

// initLayers is the layers.json init writes: the two default layers and the
// Fractal journal.
var initLayers = []engine.Layer{
	{Name: "core", Prefix: ""},
	{Name: "skills", Prefix: "skills/"},
	{Name: "journal", Prefix: "journal/", Kind: engine.KindFractal},
}

// InitRequest is the binding init makes: the project's task and agents
// (the agents also make the roster of a new data directory).
type InitRequest struct {
	Task   string
	Agents []string
}

// InitLine is one thing init did to a path: Verb "made", "kept" or
// "changed", the path (a folder's ends with the separator) and a note.
type InitLine struct {
	Verb string
	Path string
	Note string
}

// Initialized is what init did, a line per path in order. AgentsKept: the
// project was bound already and the agents asked for were not applied to
// its configuration (ConfigFile).
type Initialized struct {
	Lines      []InitLine
	AgentsKept bool
	ConfigFile string
}

// BadIDError: a task or agent ID that cannot name a folder.
type BadIDError struct {
	Dimension engine.Dimension
	ID        string
	Err       error
}

func (e *BadIDError) Error() string {
	return fmt.Sprintf("%q: not a usable ID: %v", e.ID, e.Err)
}
func (e *BadIDError) Unwrap() error { return e.Err }

// keptText is the note of a file init found and left as it is.
const keptText = " (already there, not changed)"

// Init does r on m's data directory and project. On an error the lines say
// what was done before it.
func Init(m *engine.Memory, r InitRequest) (Initialized, error) {
	out := Initialized{ConfigFile: m.Paths.ProjectConfigFile()}
	if err := checkInitIDs(m, r); err != nil {
		return out, err
	}
	if err := initDataDir(m.Paths, r, &out); err != nil {
		return out, err
	}
	return out, initProject(m, r, &out)
}

// checkInitIDs refuses a task or agent ID no folder can have.
func checkInitIDs(m *engine.Memory, r InitRequest) error {
	if r.Task != "" {
		if _, err := m.PathOf(engine.Task, r.Task, "x.md"); err != nil {
			return &BadIDError{Dimension: engine.Task, ID: r.Task, Err: err}
		}
	}
	for _, a := range r.Agents {
		if _, err := m.PathOf(engine.Agent, a, "x.md"); err != nil {
			return &BadIDError{Dimension: engine.Agent, ID: a, Err: err}
		}
	}
	return nil
}

func (out *Initialized) say(made bool, path, note string) {
	verb := "kept"
	if made {
		verb = "made"
	}
	out.Lines = append(out.Lines, InitLine{Verb: verb, Path: path, Note: note})
}

func keptNote(made bool) string {
	if made {
		return ""
	}
	return keptText
}

// mkdirs makes each folder, saying whether it made it.
func (out *Initialized) mkdirs(dirs ...string) error {
	for _, d := range dirs {
		made, err := mkdir(d)
		if err != nil {
			return err
		}
		out.say(made, d+string(filepath.Separator), "")
	}
	return nil
}

// initDataDir makes the data directory's folders, layers.json, the roster
// (magicfrog.json) and the machine ID.
func initDataDir(p engine.Paths, r InitRequest, out *Initialized) error {
	dirs := []string{p.DataDir, p.MemoryDir()}
	for _, d := range []engine.Dimension{engine.Account, engine.User, engine.Agent, engine.Device} {
		dirs = append(dirs, p.CanonicalRoot(d))
	}
	if err := out.mkdirs(dirs...); err != nil {
		return err
	}
	layers, _ := json.MarshalIndent(map[string]any{"layers": initLayers}, "", "  ")
	roster, _ := json.MarshalIndent(engine.Roster{Agents: append([]string{}, r.Agents...)}, "", "  ")
	for _, f := range []struct {
		path string
		data []byte
	}{{p.LayersFile(), layers}, {p.RosterFile(), roster}} {
		made, err := createFile(f.path, append(f.data, '\n'))
		if err != nil {
			return err
		}
		out.say(made, f.path, keptNote(made))
	}
	_, statErr := os.Stat(p.MachineIDFile())
	id, err := engine.ReadMachineID(p, true)
	if err != nil {
		return err
	}
	out.say(statErr != nil, p.MachineIDFile(), " (this machine is "+id+")")
	return nil
}

// initProject makes the project's .magicfrog/ folders and its binding; a
// project bound already is rebound to the task asked for, the earlier task
// staying in "tasks" so that its folder keeps reading as its notes.
func initProject(m *engine.Memory, r InitRequest, out *Initialized) error {
	p := m.Paths
	bind := engine.Binding{Task: r.Task, Agents: append([]string(nil), r.Agents...)}
	cfg, _ := json.MarshalIndent(bind, "", "  ")
	if err := out.mkdirs(filepath.Dir(p.ProjectConfigFile()), p.TaskDir()); err != nil {
		return err
	}
	made, err := createFile(p.ProjectConfigFile(), append(cfg, '\n'))
	if err != nil {
		return err
	}
	rebound := false
	if !made && r.Task != "" {
		previous, changed, err := m.Bind(r.Task)
		if err != nil {
			return err
		}
		if rebound = changed; changed {
			note := fmt.Sprintf(" (bound to task %s)", r.Task)
			if previous != "" {
				note = fmt.Sprintf(" (rebound from task %s to %s; %s stays in \"tasks\", so its notes stay its own)", previous, r.Task, previous)
			}
			out.Lines = append(out.Lines, InitLine{Verb: "changed", Path: p.ProjectConfigFile(), Note: note})
		}
	}
	if !rebound {
		out.say(made, p.ProjectConfigFile(), keptNote(made))
	}
	out.AgentsKept = !made && len(r.Agents) > 0
	return nil
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
