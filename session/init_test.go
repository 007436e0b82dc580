package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
)

// Init makes every path once ("made"), keeps them all on a second run
// ("kept"), rebinds to another task keeping the first in "tasks"
// ("changed"), and refuses an ID no folder can have before making anything.
func TestInitSteps(t *testing.T) {
	dir := t.TempDir()
	data, project := filepath.Join(dir, "data"), filepath.Join(dir, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	open := func() *engine.Memory {
		m, err := engine.Open(engine.Options{DataDir: data, ProjectDir: project, Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	verbs := func(res Initialized) string {
		var v []string
		for _, l := range res.Lines {
			v = append(v, l.Verb)
		}
		return strings.Join(v, " ")
	}

	if _, err := Init(open(), InitRequest{Task: "../up"}); !errors.As(err, new(*BadIDError)) {
		t.Fatalf("Init with a bad task = %v; want a BadIDError", err)
	}
	if _, err := os.Stat(data); err == nil {
		t.Fatal("a refused init made the data directory")
	}
	first, err := Init(open(), InitRequest{Task: "T-1", Agents: []string{"larry"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := verbs(first), strings.TrimSpace(strings.Repeat("made ", 12)); got != want {
		t.Errorf("first init: %q, want %q", got, want)
	}
	again, err := Init(open(), InitRequest{Agents: []string{"moe"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := verbs(again), strings.TrimSpace(strings.Repeat("kept ", 12)); got != want || !again.AgentsKept {
		t.Errorf("second init: %q (agents kept %v), want %q and the agents not applied", got, again.AgentsKept, want)
	}
	rebound, err := Init(open(), InitRequest{Task: "T-2"})
	if err != nil {
		t.Fatal(err)
	}
	last := rebound.Lines[len(rebound.Lines)-1]
	if last.Verb != "changed" || !strings.Contains(last.Note, "rebound from task T-1 to T-2") {
		t.Errorf("rebind: last line %+v", last)
	}
	if b, _ := os.ReadFile(filepath.Join(project, ".magicfrog", "config.json")); !strings.Contains(string(b), `"T-1"`) || !strings.Contains(string(b), `"T-2"`) {
		t.Errorf("config.json after the rebind: %s", b)
	}
}
