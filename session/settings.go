package session

import (
	"slices"

	"github.com/magicfrog/mf-lsp/engine"
)

// Settings are the client's settings as plain values (the language server reads
// them from initializationOptions). Empty fields mean "not set": the engine
// resolves the defaults (SPEC §1), because only it knows the data directory and
// the project's config.
type Settings struct {
	DataDir      string   // absolute, "~" expanded
	Task         string   // task id
	Agents       []string // agent ids, deduplicated, in the client's order
	Participant  string   // the one agent hover, code lens, render and the effective view answer for
	Machine      string   // machine id
	Budget       int      // token budget for magicfrog.render; 0: no limit
	AutoRevision bool     // bump revision/updated on save; default true
	Summarizer   string   // rollup summarizer command line
	Today        string   // YYYY-MM-DD; "" means the local date
	OpenLoopDays int      // age at which a blocker or next step is an open loop; 0: the default (7)
	Earlier      int      // refined days before yesterday that magicfrog.render adds to a journal's boot set

	// ProjectDir is not an option: it is the first workspace folder, else rootUri.
	ProjectDir string
}

// DefaultSettings are the settings a client that names none gets.
func DefaultSettings() Settings { return Settings{AutoRevision: true} }

// Clone is a copy that shares no slice with s.
func (s Settings) Clone() Settings {
	s.Agents = slices.Clone(s.Agents)
	return s
}

// Named is the scope the settings name, given to engine.Open: agents and a
// task named there are IDs even when no configuration registers them.
func (s Settings) Named() engine.Scope {
	agents := append([]string(nil), s.Agents...)
	if s.Participant != "" {
		agents = append(agents, s.Participant)
	}
	return engine.Scope{Task: s.Task, Agents: agents}
}

// Scope is the session scope over m: the settings, else the project binding.
func (s Settings) Scope(m *engine.Memory) engine.Scope {
	sc := m.DefaultScope()
	if s.Task != "" {
		sc.Task = s.Task
	}
	if len(s.Agents) > 0 {
		sc.Agents = slices.Clone(s.Agents)
	}
	if s.Machine != "" {
		sc.Machine = s.Machine
	}
	return sc
}

// Participant narrows a scope to the one agent an editor answers for (SPEC §5:
// one participant per block): agent when set, else the scope's first agent.
func Participant(sc engine.Scope, agent string) engine.Scope {
	switch {
	case agent != "":
		sc.Agents = []string{agent}
	case len(sc.Agents) > 1:
		sc.Agents = sc.Agents[:1:1]
	}
	return sc
}
