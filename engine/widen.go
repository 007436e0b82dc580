package engine

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
)

// ConfigFile is a candidate version of magicfrog.json or layers.json.
type ConfigFile struct {
	Change  bool   // false: the live file stays as it is
	Content []byte // with Change, nil: the file is removed
}

// ConfigChange is configuration about to replace the live files (a sync
// remote's roster or layers.json).
type ConfigChange struct {
	Roster ConfigFile
	Layers ConfigFile
}

// Widening lists what a configuration change would bring into a view that
// the live configuration keeps it out of (SPEC §9: such a change is held
// until the user accepts it). It compares, note by note over the notes
// loaded now, where each would sit:
//
//   - a note under agent/ or the task root that was one agent's or task's
//     (an ID folder), or no one's (an unregistered folder), and would be
//     every agent's or task's (a shared or layer folder);
//   - a note in a skills or fractal layer (listed, or only its boot set
//     rendered) that would fall into another layer (rendered whole);
//
// and, note or no note, a new shared folder named like an agent this machine
// knows (the roster or the binding, before or after): a demotion in waiting.
// An agent added or dropped, a shared folder over no notes, a layer over a
// prefix no note uses only narrow or change nothing.
func (m *Memory) Widening(c ConfigChange) []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	ids := m.ids
	layers := m.layers
	var out []string
	if c.Roster.Change {
		var r Roster
		if c.Roster.Content != nil {
			json.Unmarshal(c.Roster.Content, &r) // one that does not parse reads as empty, as the engine reads it
		}
		_, ids.agents = newIDSet(r.Agents, m.binding.Agents, m.named.Agents)
		ids.shared = set(r.Shared)
		for _, s := range unique(r.Shared) {
			if !m.ids.shared[s] && (m.ids.agents.has(s) || ids.agents.has(s)) {
				out = append(out, fmt.Sprintf("shared folder %q names the agent %s: its notes would be every agent's", s, s))
			}
		}
	}
	if c.Layers.Change {
		var err error
		if c.Layers.Content == nil {
			err = fs.ErrNotExist
		}
		layers, _ = parseLayers(m.Paths.LayersFile(), c.Layers.Content, err)
		ids.layers = layerFolders(layers)
	}
	var notes []string
	for _, e := range m.entries {
		key := e.Key
		if e.Dimension == Agent || e.Dimension == Task {
			rel := e.Key
			if e.Owner != "" {
				rel = e.Owner + "/" + e.Key
			}
			scope, k, unregistered := ids.classify(e.Dimension, rel)
			key = k
			if (e.Owner != "" || e.Unregistered) && scope == "" && !unregistered {
				whose := "no one's (unregistered)"
				if !e.Unregistered {
					whose = e.Dimension.String() + " " + e.Owner + "'s only"
				}
				notes = append(notes, fmt.Sprintf("%s: would be every %s's, now %s", m.portable(e), e.Dimension, whose))
				continue
			}
		}
		old, now := e.Layer, layers.match(key)
		if (old.IsSkills() || old.Kind == KindFractal) && (now.Name != old.Name || now.Kind != old.Kind) {
			notes = append(notes, fmt.Sprintf("%s: would move from layer %s to %s and be rendered whole", m.portable(e), old.Name, now.Name))
		}
	}
	sort.Strings(notes)
	return append(out, notes...)
}

// portable names a note by its dimension and path inside the dimension root
// (agent/moe/private.md), as sync and export name it.
func (m *Memory) portable(e *Note) string {
	rel, err := filepath.Rel(e.Root, e.Path)
	if err != nil {
		return e.Path
	}
	return e.Dimension.String() + "/" + filepath.ToSlash(rel)
}
