package lsp

import (
	"context"
	"encoding/json"

	"github.com/tliron/glsp"

	"github.com/magicfrog/mf-lsp/session"
)

// sessionInfo is magicfrog.sessionInfo's answer: what the server loaded, so that
// clients ask instead of recomputing the project root, the data directory or the
// agents in scope from the environment and the config files themselves.
type sessionInfo struct {
	ProjectDir  string   `json:"projectDir"`  // "" when the session has no project
	DataDir     string   `json:"dataDir"`     // the data directory the tree was opened from
	Agents      []string `json:"agents"`      // the session scope's agents: the settings', else the project's
	Participant string   `json:"participant"` // the one agent the editor answers for ("" when none)
	Task        string   `json:"task"`        // the session scope's task ("" when none)
	Machine     string   `json:"machine"`     // this machine's id ("" when none was made yet)
}

// sessionInfoCommand: magicfrog.sessionInfo {} → sessionInfo, once memory is loaded.
func (s *Server) sessionInfoCommand(_ *glsp.Context, _ json.RawMessage) (any, error) {
	return s.withSnapshot("magicfrog.sessionInfo", "", func(_ context.Context, snap *session.Snapshot) (any, error) {
		m, sc, who := snap.Memory, snap.Scope, snap.Participant
		info := sessionInfo{ProjectDir: m.Paths.ProjectDir, DataDir: m.Paths.DataDir, Agents: sc.Agents,
			Task: sc.Task, Machine: sc.Machine}
		if info.Agents == nil {
			info.Agents = []string{}
		}
		if len(who.Agents) > 0 {
			info.Participant = who.Agents[0]
		}
		if info.Machine == "" {
			info.Machine = m.MachineID()
		}
		return info, nil
	}), nil
}
