package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/magicfrog/mf-lsp/engine/store"
)

// UnregisteredError refuses a write that would put a note under an agent or
// task ID that is not registered (SPEC §2: no write may create an
// unregistered scope). Register adds the ID; a write's Register field does it
// in the same step.
type UnregisteredError struct {
	Dimension Dimension
	ID        string
}

func (e *UnregisteredError) Error() string {
	if e.Dimension == Task {
		return fmt.Sprintf("%q is not one of this project's tasks (.magicfrog/config.json \"task\" or \"tasks\"): a note there would be in no task's view; register it (--register) or pick a registered task", e.ID)
	}
	return fmt.Sprintf("%q is not an agent ID (magicfrog.json \"agents\", or the project's \"agents\"): a note there would be in no agent's view; register it (--register) or pick an agent on the roster", e.ID)
}

// RegisterFile is the file Register changes for d: magicfrog.json for agents,
// the project's config.json for tasks.
func (m *Memory) RegisterFile(d Dimension) string {
	if d == Task {
		return m.Paths.ProjectConfigFile()
	}
	return m.Paths.RosterFile()
}

// Register makes id an ID of d: an agent goes into magicfrog.json "agents"
// (with shared, into "shared": a first folder under agent/ kept for every
// agent), a task into the project's config.json "tasks" (with shared, into its
// "shared": a task-root folder shaped like an ID kept for every task). Every other key of
// the file is kept; the file is replaced atomically under the memory lock, so
// concurrent registrations all land. It reports the file and whether it
// changed, and reloads the tree when it did.
func (m *Memory) Register(d Dimension, id string, shared bool) (file string, changed bool, err error) {
	if err := m.refuseScopeOnly("register"); err != nil {
		return "", false, err
	}
	if !d.HasOwners() {
		return "", false, fmt.Errorf("%s notes have no ID", d)
	}
	if err := checkName(id); err != nil {
		return "", false, fmt.Errorf("%q cannot be an ID: %w", id, err)
	}
	list, root := "agents", m.Paths.DataDir
	if shared {
		list = "shared"
	}
	if d == Task {
		list, root = "tasks", filepath.Dir(m.Paths.ProjectConfigFile())
		if shared {
			list = "shared" // the project's config.json "shared": a task-root folder for every task
		}
		if m.Paths.ProjectDir == "" {
			return "", false, ErrNoProject
		}
	}
	file = m.RegisterFile(d)
	if info, err := os.Stat(root); err != nil || !info.IsDir() {
		return file, false, fmt.Errorf("%s does not exist: run mf-lsp init", root)
	}
	err = store.UpdateConfig(root, file, func(current []byte, exists bool) ([]byte, error) {
		out, ch, err := addToJSONList(file, current, exists, list, id)
		changed = ch
		return out, err
	})
	if err == nil && changed {
		m.Reload()
	}
	return file, changed, err
}

// addToJSONList adds value to the string list key of a JSON object (current,
// the file's bytes), keeping every other key. nil out means nothing changes.
func addToJSONList(file string, current []byte, exists bool, key, value string) (out []byte, changed bool, err error) {
	out, added, err := addToJSONLists(file, current, exists, map[string][]string{key: {value}})
	return out, len(added) > 0, err
}

// addToJSONLists adds values to the string lists of a JSON object (current,
// the file's bytes), keeping every other key and each list's order. It returns
// "key value" for each value added; nil out means nothing changes.
func addToJSONLists(file string, current []byte, exists bool, adds map[string][]string) (out []byte, added []string, err error) {
	fields := map[string]json.RawMessage{}
	if exists {
		if err := json.Unmarshal(current, &fields); err != nil {
			return nil, nil, fmt.Errorf("%s does not parse (%v): fix it by hand first", file, err)
		}
	}
	keys := make([]string, 0, len(adds))
	for k := range adds {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, key := range keys {
		var list []string
		if raw, ok := fields[key]; ok && string(raw) != "null" {
			if err := json.Unmarshal(raw, &list); err != nil {
				return nil, nil, fmt.Errorf("%s: %q is not a list of strings: fix it by hand first", file, key)
			}
		}
		n := len(list)
		for _, v := range adds[key] {
			if v != "" && !slices.Contains(list, v) {
				list = append(list, v)
				added = append(added, key+" "+v)
			}
		}
		if len(list) > n {
			fields[key], _ = json.Marshal(list)
		}
	}
	if len(added) == 0 {
		return nil, nil, nil
	}
	out, err = json.MarshalIndent(fields, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	return append(out, '\n'), added, nil
}

// Bind binds the project to task. The task it was bound to before stays in the
// config's "tasks", so its folder keeps reading as that task's notes, never as
// notes every task shares (SPEC §2). Every other key is kept; the file is
// replaced atomically. It returns the earlier task ("" none) and whether the
// file changed.
func (m *Memory) Bind(task string) (previous string, changed bool, err error) {
	if err := m.refuseScopeOnly("bind"); err != nil {
		return "", false, err
	}
	if m.Paths.ProjectDir == "" {
		return "", false, ErrNoProject
	}
	if err := checkName(task); err != nil {
		return "", false, fmt.Errorf("%q cannot be a task ID: %w", task, err)
	}
	file := m.Paths.ProjectConfigFile()
	err = store.UpdateConfig(filepath.Dir(file), file, func(current []byte, exists bool) ([]byte, error) {
		fields, err := parseFields(file, current, exists)
		if err != nil {
			return nil, err
		}
		if raw, ok := fields["task"]; ok && string(raw) != "null" {
			if err := json.Unmarshal(raw, &previous); err != nil {
				return nil, fmt.Errorf("%s: \"task\" is not a string: fix it by hand first", file)
			}
		}
		if previous == task {
			return nil, nil
		}
		out := current
		if previous != "" {
			var ch bool
			if out, ch, err = addToJSONList(file, current, exists, "tasks", previous); err != nil {
				return nil, err
			}
			if !ch {
				out = current
			}
			fields = map[string]json.RawMessage{}
			if err := json.Unmarshal(out, &fields); err != nil {
				return nil, err
			}
		}
		fields["task"], _ = json.Marshal(task)
		changed = true
		return marshalFields(fields)
	})
	if err == nil && changed {
		m.Reload()
	}
	return previous, changed, err
}

// MountJournal records in the project binding (config.json "journals") that
// the workspace at dir (a Fractal or OpenClaw folder: memory/ and MEMORY.md)
// is the journal of d and owner, read and written in place. A journal already
// mounted there for the same dimension and owner changes nothing; the same
// folder mounted as another journal, or a second folder for the same journal,
// is refused (one file would be two notes, or one key two files). It returns
// whether the file changed.
func (m *Memory) MountJournal(dir string, d Dimension, owner string) (changed bool, err error) {
	if err := m.refuseScopeOnly("mount a journal"); err != nil {
		return false, err
	}
	if m.Paths.ProjectDir == "" {
		return false, ErrNoProject
	}
	if d != Agent && d != Task {
		return false, fmt.Errorf("a journal is kept in place for task or agent/ID, not %s", d)
	}
	if d == Agent && owner == "" {
		return false, errors.New("an agent journal names its agent: --dimension agent/ID, or bind the project to an agent")
	}
	if err := CheckOwnerID(owner); err != nil {
		return false, err
	}
	if _, ok := m.Layers().Journal(); !ok {
		return false, fmt.Errorf(`no journal layer: add {"name": "journal", "prefix": "journal/", "kind": "fractal"} to %s`, m.Paths.LayersFile())
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false, err
	}
	info, err := os.Stat(abs)
	if err != nil {
		return false, fmt.Errorf("journal folder: %w", err)
	}
	if !info.IsDir() {
		return false, fmt.Errorf("%s is not a folder: give the workspace that holds memory/ and MEMORY.md", abs)
	}
	for _, r := range m.Paths.Roots() {
		if r.Mount == "" && (within(r.Dir, abs) || within(filepath.Join(abs, MountMemoryDir), r.Dir)) {
			return false, fmt.Errorf("%s overlaps the memory folder %s: a journal kept in place lives outside mf-lsp's own folders (import it instead: mf-lsp import --journal)", abs, r.Dir)
		}
	}
	want := JournalMount{Path: abs, Dimension: d.String(), Scope: owner}
	file := m.Paths.ProjectConfigFile()
	err = store.UpdateConfig(filepath.Dir(file), file, func(current []byte, exists bool) ([]byte, error) {
		fields, err := parseFields(file, current, exists)
		if err != nil {
			return nil, err
		}
		var list []JournalMount
		if raw, ok := fields["journals"]; ok && string(raw) != "null" {
			if err := json.Unmarshal(raw, &list); err != nil {
				return nil, fmt.Errorf("%s: \"journals\" is not a list of {path, dimension, scope}: fix it by hand first", file)
			}
		}
		for _, j := range list {
			p := j.Path
			if !filepath.IsAbs(p) {
				p = filepath.Join(m.Paths.ProjectDir, p)
			}
			same := filepath.Clean(p) == abs
			switch {
			case same && j.Dimension == want.Dimension && j.Scope == want.Scope:
				return nil, nil
			case same:
				return nil, fmt.Errorf("%s is already the journal of %s: remove that entry from %s first", abs, placeName(j.Dimension, j.Scope), file)
			case j.Dimension == want.Dimension && j.Scope == want.Scope:
				return nil, fmt.Errorf("the journal of %s is already kept in %s: remove that entry from %s first", placeName(j.Dimension, j.Scope), p, file)
			}
		}
		fields["journals"], _ = json.Marshal(append(list, want))
		changed = true
		return marshalFields(fields)
	})
	if err == nil && changed {
		m.Reload()
	}
	return changed, err
}

// placeName spells a journal's dimension and owner as flags take it.
func placeName(d, owner string) string {
	if owner == "" {
		return d
	}
	return d + "/" + owner
}

// marshalFields writes a configuration file's fields back, indented, with a
// final line end.
func marshalFields(fields map[string]json.RawMessage) ([]byte, error) {
	b, err := json.MarshalIndent(fields, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// parseFields reads a configuration file's fields (none when it does not
// exist); one that does not parse is left for the user to fix.
func parseFields(file string, current []byte, exists bool) (map[string]json.RawMessage, error) {
	fields := map[string]json.RawMessage{}
	if exists {
		if err := json.Unmarshal(current, &fields); err != nil {
			return nil, fmt.Errorf("%s does not parse (%v): fix it by hand first", file, err)
		}
	}
	return fields, nil
}
