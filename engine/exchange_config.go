package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"

	"github.com/magicfrog/mf-lsp/engine/safefs"
	"github.com/magicfrog/mf-lsp/engine/store"
)

// importConfig merges a portable tree's configuration into this data
// directory and project (see Import). What it changed, or declined to, goes
// to res.Config.
func (m *Memory) importConfig(cfg *PortableConfig, layers []byte, res *ImportResult) error {
	if cfg != nil {
		// IDs become folder names: a hostile tree's "../x" or "a\nb" is refused.
		valid := func(key string, ids []string) []string {
			var ok []string
			for _, id := range ids {
				if err := CheckScopeID(id); err != nil || id == "" {
					res.Skipped = append(res.Skipped, ImportSkip{From: PortableConfigFile, Reason: fmt.Sprintf("%s %q: not an ID (%v)", key, id, err)})
					continue
				}
				ok = append(ok, id)
			}
			return ok
		}
		cfg.Agents, cfg.Shared, cfg.Tasks = valid("agents", cfg.Agents), valid("shared", cfg.Shared), valid("tasks", cfg.Tasks)
		added, err := mergeJSONLists(m.Paths.RosterFile(), map[string][]string{"agents": cfg.Agents, "shared": cfg.Shared})
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		for _, a := range added {
			res.Config = append(res.Config, fmt.Sprintf("%s: added %s", m.Paths.RosterFile(), a))
		}
		tasks := slices.DeleteFunc(append([]string(nil), cfg.Tasks...), func(t string) bool { return t == "" || m.IsTaskID(t) })
		switch {
		case len(tasks) == 0:
		case m.Paths.ProjectConfigFile() == "":
			res.Config = append(res.Config, fmt.Sprintf("tasks %s not registered: no project (--project)", strings.Join(tasks, ", ")))
		default:
			added, err := mergeJSONLists(m.Paths.ProjectConfigFile(), map[string][]string{"tasks": tasks})
			if err != nil {
				return fmt.Errorf("import: %w", err)
			}
			for _, a := range added {
				res.Config = append(res.Config, fmt.Sprintf("%s: added %s", m.Paths.ProjectConfigFile(), a))
			}
		}
	}
	if layers == nil {
		return nil
	}
	path := m.Paths.LayersFile()
	cur, err := safefs.ReadFile(path, MaxConfigSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := store.Write(m.Paths.MemoryDir(), path, layers, store.Expect{}); err != nil {
			return fmt.Errorf("import: layers.json: %w", err)
		}
		res.Config = append(res.Config, path+": written (there was none)")
	case err != nil:
		return fmt.Errorf("import: %w", err)
	case !sameJSON(cur, layers):
		res.LayersDiffer = fmt.Sprintf("%s differs from the tree's layers.json: kept as it is; compare them and merge by hand", path)
	}
	return nil
}

// sameJSON reports whether a and b hold the same JSON value (or the same bytes).
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return string(a) == string(b)
	}
	return reflect.DeepEqual(x, y)
}

// mergeJSONLists adds values to the string lists of the JSON object in file,
// keeping every other key and the lists' order; a missing file is made. It
// returns "key value" for each value added.
func mergeJSONLists(file string, adds map[string][]string) ([]string, error) {
	fields := map[string]json.RawMessage{}
	b, err := safefs.ReadFile(file, MaxConfigSize)
	switch {
	case err == nil:
		if err := json.Unmarshal(b, &fields); err != nil {
			return nil, fmt.Errorf("%s does not parse (%v): fix it by hand first", file, err)
		}
	case errors.Is(err, fs.ErrNotExist):
	default:
		return nil, err
	}
	var added []string
	keys := make([]string, 0, len(adds))
	for k := range adds {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, key := range keys {
		var list []string
		if raw, ok := fields[key]; ok && string(raw) != "null" {
			if err := json.Unmarshal(raw, &list); err != nil {
				return nil, fmt.Errorf("%s: %q is not a list of strings: fix it by hand first", file, key)
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
		return nil, nil
	}
	out, err := json.MarshalIndent(fields, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return nil, err
	}
	if err := writeConfigAtomic(file, append(out, '\n')); err != nil {
		return nil, err
	}
	return added, nil
}

// writeConfigAtomic replaces a configuration file through a temporary file in
// its folder, so a reader sees the old file or the new one, never half.
func writeConfigAtomic(file string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after the rename there is nothing to remove
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil && runtime.GOOS != "windows" {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}
