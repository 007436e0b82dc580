package engine_test

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"pgregory.net/rapid"

	"github.com/magicfrog/mf-lsp/engine"
)

// The isolation property (SPEC §2, §3, §5): on every rendered block, for random
// trees (roster, shared folders, registered and unregistered folders, tasks,
// devices of several machines, legacy trees, layers) and random scopes,
//
//   - each agent note is the participant's or registered shared,
//   - each task note is the bound task's or shared,
//   - each device note is this scope's machine's,
//   - no note appears twice,
//   - every unregistered note the participant does not own appears as one
//     <omitted reason="unregistered-scope"> line, and nowhere else.
//
// The oracle classifies each generated note from the generator's own
// knowledge, never through the engine.

var (
	agentPool  = []string{"larry", "moe", "curly", "shemp"}
	sharedPool = []string{"notes", "team"}
	taskPool   = []string{"T-1", "T-2", "T-3", "PROJ-12"}
	keyPool    = []string{"a.md", "b/c.md", "skills/s.md", "journal/2026-11-30.md", "journal/MEMORY.md", "journal/2020-01-01.md"}
	machines   = []string{"m-here", "m-other"}
)

// genNote is one generated note and what the oracle knows of it.
type genNote struct {
	id   int
	path string // relative to the temporary directory
	dim  engine.Dimension
	// folder is the first folder of an agent or task note ("" none); for a
	// device note, the machine it is bound to ("" unbound).
	folder string
	key    string // rel below the root without folder (the whole rel when no folder)
}

type genTree struct {
	roster, shared, bindAgents, tasks []string
	task                              string
	journal                           bool // layers.json has a fractal journal layer
	notes                             []genNote
}

type genScope struct {
	task    string
	agent   string // "" : no agent
	machine string // "" : this machine
	budget  int
	named   bool // pass the scope to Open as Options.Named (as the CLI does)
}

func subset(t *rapid.T, pool []string, label string) []string {
	var out []string
	for _, x := range pool {
		if rapid.Bool().Draw(t, label+"/"+x) {
			out = append(out, x)
		}
	}
	return out
}

func drawTree(t *rapid.T) genTree {
	g := genTree{
		roster:     subset(t, agentPool, "roster"),
		shared:     subset(t, sharedPool, "shared"),
		bindAgents: subset(t, agentPool[:2], "bindAgents"),
		tasks:      subset(t, taskPool, "tasks"),
		task:       rapid.SampledFrom(append([]string{""}, taskPool...)).Draw(t, "task"),
		journal:    rapid.Bool().Draw(t, "journal"),
	}
	n := rapid.IntRange(0, 24).Draw(t, "notes")
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		kind := rapid.SampledFrom([]string{"account", "user", "agent", "task", "legacy-task", "device", "legacy-device"}).Draw(t, "kind")
		key := rapid.SampledFrom(keyPool).Draw(t, "key")
		nt := genNote{id: i, key: key}
		switch kind {
		case "account", "user":
			nt.dim, _ = engine.ParseDimension(kind)
			nt.path = "data/memory/" + kind + "/" + key
		case "agent":
			nt.dim = engine.Agent
			nt.folder = rapid.SampledFrom([]string{"", "larry", "moe", "curly", "shemp", "notes", "team", "helpers"}).Draw(t, "agentFolder")
			nt.path = "data/memory/agent/" + join(nt.folder, key)
		case "task", "legacy-task":
			nt.dim = engine.Task
			nt.folder = rapid.SampledFrom([]string{"", "T-1", "T-2", "T-3", "PROJ-12", "X-9", "style"}).Draw(t, "taskFolder")
			if kind == "task" {
				nt.path = "project/.magicfrog/memory/" + join(nt.folder, key)
			} else {
				nt.path = "data/memory/project/" + join(nt.folder, key)
			}
		case "device", "legacy-device":
			nt.dim = engine.Device
			nt.folder = rapid.SampledFrom(append([]string{""}, machines...)).Draw(t, "machine")
			root := "device"
			if kind == "legacy-device" {
				root = "machine"
			}
			nt.path = "data/memory/" + root + "/" + key
		}
		// A folder named like a layer is the layer, not an ID: keep the
		// generated trees to the oracle's cases.
		if nt.folder != "" && nt.dim != engine.Device && (strings.HasPrefix(nt.folder, "skills") || nt.folder == "journal") {
			continue
		}
		if seen[nt.path] {
			continue
		}
		seen[nt.path] = true
		g.notes = append(g.notes, nt)
	}
	return g
}

func join(folder, key string) string {
	if folder == "" {
		return key
	}
	return folder + "/" + key
}

func drawScope(t *rapid.T) genScope {
	return genScope{
		task:    rapid.SampledFrom(append([]string{""}, append(taskPool, "X-9")...)).Draw(t, "scopeTask"),
		agent:   rapid.SampledFrom(append([]string{"", "helpers"}, agentPool...)).Draw(t, "scopeAgent"),
		machine: rapid.SampledFrom(append([]string{""}, machines...)).Draw(t, "scopeMachine"),
		budget:  rapid.SampledFrom([]int{0, 0, 120, 400}).Draw(t, "budget"),
		named:   rapid.Bool().Draw(t, "named"),
	}
}

func (g genTree) write(dir string) error {
	files := map[string]string{"data/machine-id": "m-here\n"}
	roster, _ := json.Marshal(map[string]any{"agents": g.roster, "shared": g.shared})
	files["data/magicfrog.json"] = string(roster)
	bind, _ := json.Marshal(map[string]any{"task": g.task, "tasks": g.tasks, "agents": g.bindAgents})
	files["project/.magicfrog/config.json"] = string(bind)
	if g.journal {
		files["data/memory/layers.json"] = `{"layers": [{"name": "journal", "prefix": "journal/", "kind": "fractal"}]}`
	}
	for _, n := range g.notes {
		fm := "revision: 1\nupdated: 2026-11-30T09:00:00.000Z\n"
		if n.dim == engine.Device && n.folder != "" {
			fm += "machine: " + n.folder + "\n"
		}
		if strings.HasPrefix(n.key, "skills/") {
			fm += "name: s" + strconv.Itoa(n.id) + "\ndescription: skill\n"
		}
		files[n.path] = "---\n" + fm + "---\n" + marker(n.id) + "\n"
	}
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func marker(id int) string { return fmt.Sprintf("BODY-%d-END", id) }

// standing is the oracle: who a note belongs to for a scope.
type standing int

const (
	mine         standing = iota // the participant's own, or shared: may be rendered
	othersNote                   // another registered agent's or task's, another machine's: never shown
	unregistered                 // no one's: one omitted line, never its body
)

func (g genTree) standing(n genNote, s genScope) (standing, string) {
	// The first folder is that of the note's path below its root, whatever
	// the generator meant by it: agent/b/c.md has the first folder b.
	rel := join(n.folder, n.key)
	first, rest, nested := strings.Cut(rel, "/")
	switch n.dim {
	case engine.Agent:
		layer := first == "skills" || (first == "journal" && g.journal)
		if !nested {
			return mine, "agent/" + rel
		}
		ref := "agent/" + first + "/" + rest
		registered := slices.Contains(g.roster, first) || slices.Contains(g.bindAgents, first) || (s.named && first == s.agent)
		switch {
		case registered && first == s.agent:
			return mine, ref
		case registered:
			return othersNote, ref
		case slices.Contains(g.shared, first) || layer:
			return mine, "agent/" + rel
		case first == s.agent:
			return mine, ref // named by the scope: the participant's own
		}
		return unregistered, ref
	case engine.Task:
		if !nested || !taskShaped.MatchString(first) {
			return mine, "task/" + rel
		}
		ref := "task/" + first + "/" + rest
		registered := first == g.task || slices.Contains(g.tasks, first) || (s.named && first == s.task)
		switch {
		case first == s.task:
			return mine, ref
		case registered:
			return othersNote, ref
		}
		return unregistered, ref
	case engine.Device:
		want := s.machine
		if want == "" {
			want = "m-here"
		}
		bound := n.folder
		if bound == "" {
			bound = "m-here" // unbound notes are the machine's whose disk holds them
		}
		if bound == want {
			return mine, "device/" + n.key
		}
		return othersNote, "device/" + n.key
	}
	return mine, n.dim.String() + "/" + n.key
}

var (
	taskShaped = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*-[0-9]+$`)
	bodyRE     = regexp.MustCompile(`BODY-(\d+)-END`)
	omittedRE  = regexp.MustCompile(`<omitted path="([^"]*)"(?: tokens="\d+")? reason="([^"]*)"/>`)
	skillRE    = regexp.MustCompile(`<skill path="([^"]*)" file="[^"]*" name="s(\d+)"`)
)

var isolationCases atomic.Int64

// scratch is where the generated trees go: a memory file system when there is
// one (thousands of small trees), else the default temporary directory.
var scratch = func() string {
	if info, err := os.Stat("/dev/shm"); err == nil && info.IsDir() {
		if f, err := os.CreateTemp("/dev/shm", "probe-"); err == nil {
			f.Close()
			os.Remove(f.Name())
			return "/dev/shm"
		}
	}
	return ""
}()

// drawCase draws a tree and a scope and writes the tree into a scratch
// folder (cleanup removes it): the Options that open it, with Named set when
// the scope is named as the CLI's flags name it, and the scope.
func drawCase(t *rapid.T, name string) (g genTree, s genScope, opts engine.Options, scope engine.Scope, cleanup func()) {
	g = drawTree(t)
	s = drawScope(t)
	dir, err := os.MkdirTemp(scratch, name+"-")
	if err != nil {
		t.Fatal(err)
	}
	if err := g.write(dir); err != nil {
		os.RemoveAll(dir)
		t.Fatal(err)
	}
	opts = engine.Options{DataDir: filepath.Join(dir, "data"), ProjectDir: filepath.Join(dir, "project")}
	scope = engine.Scope{Task: s.task, Machine: s.machine}
	if s.agent != "" {
		scope.Agents = []string{s.agent}
	}
	if s.named {
		opts.Named = scope
	}
	return g, s, opts, scope, func() { os.RemoveAll(dir) }
}

func isolationProperty(t *rapid.T) {
	isolationCases.Add(1)
	g, s, opts, scope, cleanup := drawCase(t, "isolation")
	defer cleanup()
	m, err := engine.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	blk, err := m.Render(engine.RenderOptions{Scope: scope, Budget: s.budget, Today: "2026-11-30"})
	if err != nil {
		t.Fatal(err)
	}
	text := blk.Text

	byID := map[int]genNote{}
	for _, n := range g.notes {
		byID[n.id] = n
	}
	// Bodies: each at most once, and only the participant's own or shared.
	count := map[int]int{}
	for _, sm := range bodyRE.FindAllStringSubmatch(text, -1) {
		id, _ := strconv.Atoi(sm[1])
		count[id]++
		n := byID[id]
		if st, ref := g.standing(n, s); st != mine {
			t.Fatalf("%s (%s) is rendered in the block of %+v, but it is %s:\n%s", n.path, ref, s, []string{"", "another's", "unregistered"}[st], text)
		}
	}
	for id, c := range count {
		if c > 1 {
			t.Fatalf("%s is rendered %d times:\n%s", byID[id].path, c, text)
		}
	}
	// Skill lines name only the participant's own or shared skills.
	for _, sm := range skillRE.FindAllStringSubmatch(text, -1) {
		id, _ := strconv.Atoi(sm[2])
		if st, _ := g.standing(byID[id], s); st != mine {
			t.Fatalf("skill %s of %s listed in the block of %+v", sm[1], byID[id].path, s)
		}
	}
	// Omitted lines: budget ones name only what could have been shown;
	// unregistered ones exactly the unregistered notes, each once.
	wantUnreg := map[string]int{}
	mineRefs := map[string]bool{}
	for _, n := range g.notes {
		switch st, ref := g.standing(n, s); st {
		case unregistered:
			wantUnreg[ref]++
			if count[n.id] > 0 {
				t.Fatalf("unregistered %s has its body in the block", n.path)
			}
		case mine:
			mineRefs[ref] = true
		}
	}
	gotUnreg := map[string]int{}
	for _, sm := range omittedRE.FindAllStringSubmatch(text, -1) {
		switch sm[2] {
		case engine.ReasonUnregistered:
			gotUnreg[sm[1]]++
		case "budget":
			if !mineRefs[sm[1]] {
				t.Fatalf("budget omitted line for %s, which is not the participant's: %+v\n%s", sm[1], s, text)
			}
		default:
			t.Fatalf("unknown omitted reason %q", sm[2])
		}
	}
	for ref, n := range wantUnreg {
		if gotUnreg[ref] != n {
			t.Fatalf("unregistered %s: %d omitted lines, want %d (scope %+v):\n%s", ref, gotUnreg[ref], n, s, text)
		}
	}
	for ref := range gotUnreg {
		if wantUnreg[ref] == 0 {
			t.Fatalf("omitted as unregistered: %s, which is not (scope %+v, tree %+v):\n%s", ref, s, g, text)
		}
	}
	// Hover, code lens and the effective view ask StatusOf: the same rule.
	for _, e := range m.Notes() {
		id := idOf(e)
		if id < 0 {
			continue
		}
		st, _ := g.standing(byID[id], s)
		if got := m.StatusOf(e, scope).InScope; got != (st == mine) {
			t.Fatalf("StatusOf(%s).InScope = %v, want %v (scope %+v)", byID[id].path, got, st == mine, s)
		}
	}
}

func idOf(e *engine.Note) int {
	sm := bodyRE.FindSubmatch(e.BodyOrNil())
	if sm == nil {
		return -1
	}
	id, _ := strconv.Atoi(string(sm[1]))
	return id
}

// TestIsolationProperty runs the property over thousands of generated trees
// (-rapid.checks overrides; -short runs 200).
func TestIsolationProperty(t *testing.T) {
	if f := flag.Lookup("rapid.checks"); f != nil && f.Value.String() == f.DefValue {
		n := isolationChecks
		if testing.Short() {
			n = "200"
		}
		f.Value.Set(n)
		defer f.Value.Set(f.DefValue)
	}
	isolationCases.Store(0)
	rapid.Check(t, isolationProperty)
	t.Logf("%d generated trees and scopes", isolationCases.Load())
}

// FuzzIsolation is the same property with the fuzzer choosing the tree:
// go test ./engine -run '^$' -fuzz FuzzIsolation.
func FuzzIsolation(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("larry moe T-1 T-2 helpers notes"))
	f.Fuzz(rapid.MakeFuzz(isolationProperty))
}

// TestRenderOneAgent: a block is for one participant.
func TestRenderOneAgent(t *testing.T) {
	dir := t.TempDir()
	g := genTree{roster: []string{"larry", "moe"}}
	if err := g.write(dir); err != nil {
		t.Fatal(err)
	}
	m, err := engine.Open(engine.Options{DataDir: filepath.Join(dir, "data")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Render(engine.RenderOptions{Scope: engine.Scope{Agents: []string{"larry", "moe"}}})
	var several *engine.SeveralAgentsError
	if !errors.As(err, &several) || len(several.Agents) != 2 {
		t.Fatalf("Render with two agents: %v, want a SeveralAgentsError", err)
	}
}
