package session

// Info is what a session loaded (magicfrog.sessionInfo), so that clients ask
// instead of recomputing the project root, the data directory or the agents
// in scope from the environment and the config files themselves.
type Info struct {
	ProjectDir  string   `json:"projectDir"`  // "" when the session has no project
	DataDir     string   `json:"dataDir"`     // the data directory the tree was opened from
	Agents      []string `json:"agents"`      // the session scope's agents: the settings', else the project's
	Participant string   `json:"participant"` // the one agent the editor answers for ("" when none)
	Task        string   `json:"task"`        // the session scope's task ("" when none)
	Machine     string   `json:"machine"`     // this machine's id ("" when none was made yet)
}

// InfoOf is the snapshot's Info.
func InfoOf(snap *Snapshot) Info {
	m, sc, who := snap.Memory, snap.Scope, snap.Participant
	info := Info{ProjectDir: m.Paths.ProjectDir, DataDir: m.Paths.DataDir, Agents: sc.Agents, Task: sc.Task, Machine: sc.Machine}
	if info.Agents == nil {
		info.Agents = []string{}
	}
	if len(who.Agents) > 0 {
		info.Participant = who.Agents[0]
	}
	if info.Machine == "" {
		info.Machine = m.MachineID()
	}
	return info
}
