package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestRegisterConcurrent: registrations from several processes at once (one
// Memory each) all land, and every other key of the file is kept.
func TestRegisterConcurrent(t *testing.T) {
	_, dir := newTree(t, map[string]string{
		"data/magicfrog.json":            `{"agents": ["larry"], "theme": "dark"}`,
		"project/.magicfrog/config.json": `{"task": "T-1"}`,
	})
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			m, err := Open(Options{DataDir: filepath.Join(dir, "data"), ProjectDir: filepath.Join(dir, "project")})
			if err == nil {
				_, _, err = m.Register(Agent, fmt.Sprintf("agent%d", i), false)
			}
			if err == nil {
				_, _, err = m.Register(Task, fmt.Sprintf("T-%d", 10+i), false)
			}
			errs <- err
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	roster := read(t, filepath.Join(dir, "data/magicfrog.json"))
	config := read(t, filepath.Join(dir, "project/.magicfrog/config.json"))
	for i := 0; i < 8; i++ {
		if !strings.Contains(roster, fmt.Sprintf(`"agent%d"`, i)) || !strings.Contains(config, fmt.Sprintf(`"T-%d"`, 10+i)) {
			t.Errorf("registration %d was lost:\n%s\n%s", i, roster, config)
		}
	}
	if !strings.Contains(roster, `"theme": "dark"`) || !strings.Contains(roster, `"larry"`) || !strings.Contains(config, `"task": "T-1"`) {
		t.Errorf("other keys lost:\n%s\n%s", roster, config)
	}
}

// TestWriteRefusesUnregistered: no write creates an unregistered scope; with
// Register the ID is added in the same step and the note is the ID's.
func TestWriteRefusesUnregistered(t *testing.T) {
	m, dir := newTree(t, map[string]string{
		"data/magicfrog.json":            `{"agents": ["larry"]}`,
		"project/.magicfrog/config.json": `{"task": "T-1"}`,
	})
	_, err := m.Write(WriteRequest{Dimension: Agent, Owner: "moe", Key: "x.md", Body: []byte("x\n")})
	var u *UnregisteredError
	if !errors.As(err, &u) || u.ID != "moe" {
		t.Fatalf("write under an unregistered agent: %v", err)
	}
	// A key whose first folder would be an unregistered ID: the same.
	if _, err := m.Write(WriteRequest{Dimension: Task, Key: "T-4/x.md", Body: []byte("x\n")}); !errors.As(err, &u) || u.ID != "T-4" {
		t.Fatalf("write into T-4/: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "data/memory/agent/moe")); !os.IsNotExist(err) {
		t.Fatalf("agent/moe/ was made: %v", err)
	}
	res, err := m.Write(WriteRequest{Dimension: Agent, Owner: "moe", Key: "x.md", Body: []byte("x\n"), Register: true})
	if err != nil || res.Registered == "" {
		t.Fatalf("write with Register: %+v %v", res, err)
	}
	if e := m.Note(res.Path); e == nil || e.Owner != "moe" || e.Unregistered {
		t.Errorf("the note is not moe's: %+v", e)
	}
}

// TestBindKeepsEarlierTask: rebinding keeps the earlier task registered.
func TestBindKeepsEarlierTask(t *testing.T) {
	m, dir := newTree(t, map[string]string{
		"project/.magicfrog/config.json":     `{"task": "T-1", "agents": ["larry"]}`,
		"project/.magicfrog/memory/T-1/a.md": "---\nrevision: 1\n---\nT-1 a\n",
	})
	prev, changed, err := m.Bind("T-2")
	if err != nil || prev != "T-1" || !changed {
		t.Fatalf("Bind: %q %v %v", prev, changed, err)
	}
	if b := m.Binding(); b.Task != "T-2" || len(b.Tasks) != 1 || b.Tasks[0] != "T-1" || len(b.Agents) != 1 {
		t.Errorf("binding after Bind: %+v", b)
	}
	e := m.Note(filepath.Join(dir, "project/.magicfrog/memory/T-1/a.md"))
	if e == nil || e.Owner != "T-1" || e.Unregistered {
		t.Errorf("T-1's note after rebinding: %+v", e)
	}
	if _, changed, _ := m.Bind("T-2"); changed {
		t.Error("binding to the same task changed the file")
	}
}

// TestKeepTaskFolderShared is "Keep shared" for a task-root folder shaped like
// an ID (python-3/): the project's config.json "shared" gets it, and its notes
// become every task's, while it stays no task a write may file under.
func TestKeepTaskFolderShared(t *testing.T) {
	m, dir := newTree(t, map[string]string{
		"project/.magicfrog/config.json":             `{"task": "T-1", "theme": "dark"}`,
		"project/.magicfrog/memory/python-3/tips.md": "---\nrevision: 1\n---\nPrefer f-strings.\n",
		"project/.magicfrog/memory/T-1/plan.md":      "---\nrevision: 1\n---\nPlan.\n",
	})
	tips := filepath.Join(dir, "project/.magicfrog/memory/python-3/tips.md")
	if n := m.Note(tips); n == nil || !n.Unregistered {
		t.Fatalf("before: python-3/tips.md is %+v; want an unregistered note", n)
	}
	file, changed, err := m.Register(Task, "python-3", true)
	if err != nil || !changed {
		t.Fatalf("Register(Task, python-3, shared): %v, changed %v", err, changed)
	}
	b, _ := os.ReadFile(file)
	if !strings.Contains(string(b), `"shared": [`) || !strings.Contains(string(b), `"python-3"`) || !strings.Contains(string(b), `"theme": "dark"`) {
		t.Errorf("%s after keep shared:\n%s", file, b)
	}
	n := m.Note(tips)
	if n == nil || n.Unregistered || n.Owner != "" || n.Key != "python-3/tips.md" {
		t.Errorf("after: %+v; want a shared task note with key python-3/tips.md", n)
	}
	if m.IsTaskID("python-3") {
		t.Error("a folder kept shared became a task ID")
	}
}
