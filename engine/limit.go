package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// A scope-only load (Options.ScopeOnly) is for a process that reads the views
// of its own scope and nothing else: an agent's boot (mf-lsp render). On a
// memory shared by many agents and tasks most notes are other participants'
// (SPEC §5: never in this block in any form), and reading them was most of
// the boot's cost. Such a load does not walk into the folder of a registered
// agent or task that its scopes do not name; everything a view of the scope
// can show, or must list, is loaded as by a full load, so its blocks are the
// same byte for byte (scopeonly_test.go).

// scopeLimit is what a scope-only load keeps of the owner folders: the
// agents and tasks whose folders it walks into. It is decided when the
// configuration has been read (readConfig), as render decides its scope: the
// agents Options.Within names, else Named's, else the binding's; the task
// Within names, else Named's, else the binding's. Every scope render prints is inside it (--each-agent prints
// one block per agent of it; --agent "" and --task "" name none, and the
// binding's are read for nothing), and the views filter the rest exactly as
// on a full load.
type scopeLimit struct {
	agents, tasks map[string]bool
}

// newScopeLimit is the limit of a scope-only load. The binding's earlier
// tasks (`tasks`) are left out: no scope of the binding looks at them.
func (m *Memory) newScopeLimit() *scopeLimit {
	agents, task := m.within.Agents, m.within.Task
	if len(agents) == 0 {
		agents = m.named.Agents
	}
	if task == "" {
		task = m.named.Task
	}
	if len(agents) == 0 {
		agents = m.binding.Agents
	}
	if task == "" {
		task = m.binding.Task
	}
	l := &scopeLimit{agents: set(agents), tasks: set([]string{task})}
	delete(l.agents, "")
	delete(l.tasks, "")
	return l
}

// skips reports whether a scope-only load leaves out p, which the walk of
// root r meets as d (nil when it could not be read): p is, or is below, the
// first folder of a registered agent or task (a first folder classify reads
// as that owner's) that the limit does not keep. Whatever is there is that
// owner's, so no view of the limit's scopes shows it; not even its problems
// are looked for. A note directly in the root is shared whatever its name,
// and is never skipped. Called for every entry of a walk: no allocation.
func (m *Memory) skips(r Root, p string, d fs.DirEntry) bool {
	l := m.limit
	if l == nil || !r.Dimension.HasOwners() {
		return false
	}
	rel, ok := strings.CutPrefix(p, r.Dir)
	if !ok || len(rel) < 2 || rel[0] != filepath.Separator {
		return false // the root itself, or not below it
	}
	first, _, below := strings.Cut(rel[1:], string(filepath.Separator))
	if !below && d != nil && !d.IsDir() && isNoteName(first) {
		return false
	}
	if r.Dimension == Agent {
		return m.ids.agents.has(first) && !l.agents[first]
	}
	return m.ids.tasks.has(first) && !l.tasks[first]
}

// ScopeOnly reports whether m was loaded for its scope only
// (Options.ScopeOnly): the folders of the registered agents and tasks that
// Options.Named (or, naming none, the binding) does not name were not read.
// Such a memory answers Render and View for those scopes exactly as a full
// load does, and nothing else: Notes, Len, Versions and Problems hold only what it read, a
// view of another agent or task lacks that owner's notes (Render refuses
// one). It writes and deletes notes only inside the folders it read (Write
// and Delete, revision-checked as always: what such a write checks against,
// the note and a legacy predecessor of the same owner, is in those folders);
// a note in a folder it skipped, and every other write (Register, Bind,
// Promote, Export, Import: they need the whole tree), is refused
// (ErrScopeOnly).
func (m *Memory) ScopeOnly() bool { return m.scopeOnly }

// ErrScopeOnly refuses a write through a memory loaded for one scope only:
// the notes a write checks against (a legacy predecessor, the destination's
// revision, an export's whole tree) may be in a folder it did not read.
var ErrScopeOnly = errors.New("this memory was loaded for one scope's view only (Options.ScopeOnly): it cannot write there; open it without ScopeOnly")

// refuseScopeOnly is ErrScopeOnly, wrapped with what was refused, for a
// scope-only memory; nil otherwise.
func (m *Memory) refuseScopeOnly(op string) error {
	if m.ScopeOnly() {
		return fmt.Errorf("%s: %w", op, ErrScopeOnly)
	}
	return nil
}

// refuseUnloaded is ErrScopeOnly for a write or delete of path through a
// scope-only memory when path is in a folder its load skipped (another
// registered agent's or task's); nil otherwise.
func (m *Memory) refuseUnloaded(op, path string) error {
	if !m.ScopeOnly() {
		return nil
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	path = filepath.Clean(path)
	if loc, ok := m.locateLocked(path); ok && m.skips(loc.Root, path, nil) {
		return fmt.Errorf("%s %s: %w", op, path, ErrScopeOnly)
	}
	return nil
}

// NotLoadedError refuses a view of an agent or task whose folder a
// scope-only load did not read: it is registered, and Options.Named (or,
// naming none, the binding) does not name it. Its notes are missing from the
// memory, so the view would be wrong.
type NotLoadedError struct {
	Dimension Dimension // Agent or Task
	ID        string
}

func (e *NotLoadedError) Error() string {
	return fmt.Sprintf("%s %q: this memory was loaded for the named %s, or the binding's, only (Options.ScopeOnly), and %s/%s/ was not read; name it in Options.Named",
		e.Dimension, e.ID, e.Dimension, e.Dimension, e.ID)
}

// checkLoadedFor refuses a scope that a scope-only load did not read for
// (NotLoadedError). An unregistered ID's folder is always read.
func (m *Memory) checkLoadedFor(s Scope) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	l := m.limit
	if l == nil {
		return nil
	}
	for _, a := range s.Agents {
		if m.ids.agents.has(a) && !l.agents[a] {
			return &NotLoadedError{Dimension: Agent, ID: a}
		}
	}
	if m.ids.tasks.has(s.Task) && !l.tasks[s.Task] {
		return &NotLoadedError{Dimension: Task, ID: s.Task}
	}
	return nil
}
