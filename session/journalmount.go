package session

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/magicfrog/mf-lsp/engine"
)

// JournalMountError: init --journal was asked for something it cannot mount
// (no dimension to mount it for, a dimension that keeps no journal in place,
// an unregistered ID). The front end shows it as a usage error.
type JournalMountError struct{ Msg string }

func (e *JournalMountError) Error() string { return e.Msg }

// JournalMounted is what init --journal did: the workspace (absolute, ending
// in the separator), the dimension it is the journal of, the two places read
// and written in place, and whether the binding changed (false: it was
// mounted so already).
type JournalMounted struct {
	Dir, Dimension, MemoryDir, MemoryFile string
	Changed                               bool
}

// MountJournal makes the workspace at dir (a Fractal or OpenClaw workspace:
// dir/memory/ and dir/MEMORY.md) the journal of dim ("task", "task/ID",
// "agent/ID"; "" is the first bound agent's), recorded in the project's
// binding and kept where it is (SPEC §6, docs/journal.md).
func MountJournal(m *engine.Memory, dir, dim string) (JournalMounted, error) {
	m.Reload() // the configuration init may just have made
	if dim == "" {
		agents := m.Binding().Agents
		if len(agents) == 0 {
			return JournalMounted{}, &JournalMountError{"--journal: whose journal is it? Bind an agent (--agent ID) or say --dimension task or agent/ID"}
		}
		dim = "agent/" + agents[0]
	}
	name, owner, _ := strings.Cut(dim, "/")
	d, err := engine.ParseDimension(name)
	if err != nil || (d != engine.Agent && d != engine.Task) || strings.Contains(owner, "/") {
		return JournalMounted{}, &JournalMountError{fmt.Sprintf("--dimension %q: a journal is kept in place for task, task/ID or agent/ID", dim)}
	}
	if owner != "" && !m.IsRegistered(d, owner) {
		return JournalMounted{}, &JournalMountError{fmt.Sprintf("--dimension %q: %s is not a registered %s ID, so its journal would be in no one's view; add it first (init --agent %s, or the project's \"tasks\")", dim, owner, d, owner)}
	}
	changed, err := m.MountJournal(dir, d, owner)
	if err != nil {
		return JournalMounted{}, fmt.Errorf("--journal: %w", err)
	}
	abs, _ := filepath.Abs(dir)
	return JournalMounted{
		Dir: abs + string(filepath.Separator), Dimension: dim, Changed: changed,
		MemoryDir:  filepath.Join(abs, engine.MountMemoryDir) + string(filepath.Separator),
		MemoryFile: filepath.Join(abs, "MEMORY.md"),
	}, nil
}
