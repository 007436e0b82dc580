package lsp_test

import (
	"slices"
	"testing"

	"github.com/magicfrog/mf-lsp/session"
)

type sessionInfo struct {
	ProjectDir, DataDir, Participant, Task, Machine string
	Agents                                          []string
}

// magicfrog.sessionInfo answers what the server loaded: the project root, the data
// directory and the scope, the project's binding unless the settings say otherwise.
func TestSessionInfo(t *testing.T) {
	c, data, project := startDemo(t)
	var got sessionInfo
	mustExec(t, c, "magicfrog.sessionInfo", nil, &got)
	want := sessionInfo{ProjectDir: project, DataDir: data, Participant: "larry", Task: "T-7", Agents: []string{"larry"}}
	if got.Machine == "" {
		t.Errorf("sessionInfo: no machine id: %+v", got)
	}
	got.Machine = ""
	if got.ProjectDir != want.ProjectDir || got.DataDir != want.DataDir || got.Participant != want.Participant ||
		got.Task != want.Task || !slices.Equal(got.Agents, want.Agents) {
		t.Errorf("sessionInfo = %+v\nwant %+v", got, want)
	}
}

func TestSessionInfoFromSettings(t *testing.T) {
	data, project := demo(t)
	c := start(t)
	c.Initialize(string(session.PathToURI(project)), map[string]any{"dataDir": data, "task": "T-9",
		"agents": []string{"larry", "moe"}, "participant": "moe", "machine": "m-1"})
	var got sessionInfo
	mustExec(t, c, "magicfrog.sessionInfo", map[string]any{}, &got)
	if got.Task != "T-9" || !slices.Equal(got.Agents, []string{"larry", "moe"}) || got.Participant != "moe" || got.Machine != "m-1" {
		t.Errorf("sessionInfo with settings = %+v; want task T-9, agents [larry moe], participant moe, machine m-1", got)
	}
}
