package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
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
				if err := CheckOwnerID(id); err != nil || id == "" {
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

// mergeJSONLists adds values to the string lists of the JSON object in file
// (made if missing) under the store's lock, atomically, like a registration.
// It returns "key value" for each value added.
func mergeJSONLists(file string, adds map[string][]string) (added []string, err error) {
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	err = store.UpdateConfig(dir, file, func(current []byte, exists bool) ([]byte, error) {
		out, a, err := addToJSONLists(file, current, exists, adds)
		added = a
		return out, err
	})
	return added, err
}
