package engine_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"pgregory.net/rapid"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/internal/synth"
)

// A scope-only load (Options.ScopeOnly, mf-lsp render) leaves out the folders
// of registered agents and tasks that Named (or, naming none, the binding)
// does not name.
// Correctness does not move: for every scope it loads for, the block and the
// unregistered notes it lists are the full load's byte for byte, and what it
// leaves out is only those folders' notes and problems.

// sameAsFull opens the tree of opts twice, in full and scope-only, renders
// ropts from each and says how they differ ("" when they do not). refused
// says the scope-only memory refused the scope (NotLoadedError): it names a
// registered agent or task that opts.Named (or, naming none, the binding)
// does not.
func sameAsFull(opts engine.Options, ropts engine.RenderOptions) (diff string, refused bool) {
	full, err := engine.Open(opts)
	if err != nil {
		return err.Error(), false
	}
	opts.ScopeOnly = true
	limited, err := engine.Open(opts)
	if err != nil {
		return err.Error(), false
	}
	if full.ScopeOnly() || !limited.ScopeOnly() {
		return fmt.Sprintf("ScopeOnly(): full %v, scope-only %v", full.ScopeOnly(), limited.ScopeOnly()), false
	}
	want, werr := full.Render(ropts)
	got, gerr := limited.Render(ropts)
	var notLoaded *engine.NotLoadedError
	if werr == nil && errors.As(gerr, &notLoaded) {
		return onlySkipped(full, limited), true
	}
	if (werr == nil) != (gerr == nil) {
		return fmt.Sprintf("Render: full %v, scope-only %v", werr, gerr), false
	}
	if werr != nil {
		return "", false
	}
	if got.Text != want.Text || got.Generation != want.Generation || got.Tokens != want.Tokens {
		return fmt.Sprintf("the scope-only block differs from the full one:\n--- full (%d tokens)\n%s--- scope-only (%d tokens)\n%s", want.Tokens, want.Text, got.Tokens, got.Text), false
	}
	if g, w := unregisteredList(limited.View(ropts.Scope)), unregisteredList(full.View(ropts.Scope)); g != w {
		return fmt.Sprintf("View.Unregistered differs:\n--- full\n%s--- scope-only\n%s", w, g), false
	}
	return onlySkipped(full, limited), false
}

func unregisteredList(v *engine.View) string {
	var b strings.Builder
	for _, e := range v.Unregistered {
		fmt.Fprintf(&b, "%s %s\n", e.Ref(), e.Path)
	}
	return b.String()
}

// onlySkipped says how the scope-only load limited differs from full in other
// ways than leaving out the notes and problems of the folders of registered
// owners that limited refuses to render for ("" when it does not).
func onlySkipped(full, limited *engine.Memory) string {
	refused := map[string]bool{} // by owner folder: skippedFolder asks Render
	skipped := func(path string) bool {
		loc, ok := limited.Locate(path)
		if !ok {
			return false
		}
		folder := loc.Dimension.String() + "/" + loc.Owner
		r, seen := refused[folder]
		if !seen {
			r = skippedFolder(limited, path)
			refused[folder] = r
		}
		return r
	}
	loaded := map[string]*engine.Note{}
	for _, e := range limited.Notes() {
		loaded[e.Path] = e
	}
	for _, e := range full.Notes() {
		got, ok := loaded[e.Path]
		switch {
		case ok && (got.Hash() != e.Hash() || got.Ref() != e.Ref() || got.Unregistered != e.Unregistered):
			return "a note differs: " + e.Path
		case ok:
			delete(loaded, e.Path)
		case !skipped(e.Path):
			return fmt.Sprintf("left out %s (%s), which is not in a folder of another registered agent or task", e.Path, e.Ref())
		}
	}
	for p := range loaded {
		return "only the scope-only load has " + p
	}
	limitedProblems := map[string]bool{}
	for _, p := range limited.Problems() {
		limitedProblems[p.Error()] = true
	}
	for _, p := range full.Problems() {
		if limitedProblems[p.Error()] {
			delete(limitedProblems, p.Error())
		} else if !skipped(p.Path) {
			return "a problem the scope-only load left out: " + p.Error()
		}
	}
	for p := range limitedProblems {
		return "a problem only the scope-only load has: " + p
	}
	return ""
}

// skippedFolder reports whether path is in the folder of a registered agent
// or task that the scope-only memory m refuses to render for: one it did not
// read.
func skippedFolder(m *engine.Memory, path string) bool {
	loc, ok := m.Locate(path)
	if !ok || loc.Owner == "" || loc.Unregistered || !m.IsRegistered(loc.Dimension, loc.Owner) {
		return false
	}
	s := engine.Scope{Task: loc.Owner}
	if loc.Dimension == engine.Agent {
		s = engine.Scope{Agents: []string{loc.Owner}}
	}
	_, err := m.Render(engine.RenderOptions{Scope: s, Today: specToday})
	var notLoaded *engine.NotLoadedError
	return errors.As(err, &notLoaded) && notLoaded.Dimension == loc.Dimension && notLoaded.ID == loc.Owner
}

// TestScopeOnlySpecCases: every spec case's block (testdata/engine), its
// scope named as render's flags name it, and, where the binding alone gives
// the scope, not named at all; and a previous generation that differs.
func TestScopeOnlySpecCases(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "engine", "*.txtar"))
	if err != nil || len(files) < 10 {
		t.Fatalf("spec cases: %v, %d", err, len(files))
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		if name == "README" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var scope string
			for _, f := range ar.Files {
				if f.Name == "scope" {
					scope = string(f.Data)
				}
			}
			sc := parseScope(t, scope)
			data, project := writeTree(t, ar, t.TempDir())
			for _, previous := range []string{sc.opts.Previous, "0badc0de"} {
				ropts := sc.opts
				ropts.Previous = previous
				named := engine.Options{DataDir: data, ProjectDir: project, Named: ropts.Scope}
				if diff, refused := sameAsFull(named, ropts); diff != "" || refused {
					t.Fatalf("scope %+v named: refused %v %s", ropts.Scope, refused, diff)
				}
				if diff, _ := sameAsFull(engine.Options{DataDir: data, ProjectDir: project}, ropts); diff != "" {
					t.Fatalf("scope %+v not named: %s", ropts.Scope, diff)
				}
			}
		})
	}
}

// TestScopeOnlyDemo: the demo tree (testdata/demo) from every participant's
// side: the binding's, each roster agent, the shared and unregistered
// folders' names, each task, other machines, with and without a budget.
func TestScopeOnlyDemo(t *testing.T) {
	data, err := filepath.Abs(filepath.Join("..", "testdata", "demo", "data"))
	if err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(filepath.Dir(data), "project")
	for _, task := range []string{"", "T-7", "T-8", "style"} {
		for _, agent := range []string{"", "larry", "moe", "helpers", "notes"} {
			for _, machine := range []string{"", "other-host"} {
				for _, budget := range []int{0, 300} {
					s := engine.Scope{Task: task, Machine: machine}
					if agent != "" {
						s.Agents = []string{agent}
					}
					ropts := engine.RenderOptions{Scope: s, Budget: budget, Today: "2026-11-30", Earlier: 2}
					named := engine.Options{DataDir: data, ProjectDir: project, Named: s}
					if diff, refused := sameAsFull(named, ropts); diff != "" || refused {
						t.Fatalf("%+v named: refused %v %s", ropts, refused, diff)
					}
					if diff, _ := sameAsFull(engine.Options{DataDir: data, ProjectDir: project}, ropts); diff != "" {
						t.Fatalf("%+v: %s", ropts, diff)
					}
				}
			}
		}
	}
}

var scopeOnlyCases, scopeOnlyRefused atomic.Int64

// scopeOnlyProperty: on a generated tree (roster, shared folders, the
// binding's agents and tasks, registered and unregistered agent and task
// folders, layer folders such as agent/skills/, legacy machine/ and
// project/ trees, device notes of this and another machine), a scope either
// named as render's flags name it (a roster agent, a task of "tasks", an
// unregistered agent or task) or the binding's own, renders the same block
// scope-only as from a full load. A scope-only memory asked for a registered
// agent or task that it was not loaded for (a scope not named and not the
// binding's: never render's) refuses.
func scopeOnlyProperty(t *rapid.T) {
	scopeOnlyCases.Add(1)
	g, s, opts, scope, cleanup := drawCase(t, "scopeonly")
	defer cleanup()
	if !s.named && rapid.Bool().Draw(t, "binding's scope") {
		// What render renders without flags: the binding's task and one of
		// its agents (--each-agent renders each).
		scope.Task, scope.Agents = g.task, nil
		if len(g.bindAgents) > 0 {
			scope.Agents = []string{rapid.SampledFrom(g.bindAgents).Draw(t, "binding's agent")}
		}
	}
	diff, refused := sameAsFull(opts, engine.RenderOptions{Scope: scope, Budget: s.budget, Today: "2026-11-30"})
	if diff != "" {
		t.Fatalf("tree %+v, scope %+v (named %v): %s", g, scope, s.named, diff)
	}
	if refused {
		scopeOnlyRefused.Add(1)
		if s.named {
			t.Fatalf("a scope-only load named %+v refuses it", scope)
		}
	}
}

// TestScopeOnlyProperty runs the property over generated trees
// (-rapid.checks overrides; -short runs 100).
func TestScopeOnlyProperty(t *testing.T) {
	if f := flag.Lookup("rapid.checks"); f != nil && f.Value.String() == f.DefValue {
		n := "1000"
		if testing.Short() {
			n = "100"
		}
		f.Value.Set(n)
		defer f.Value.Set(f.DefValue)
	}
	scopeOnlyCases.Store(0)
	scopeOnlyRefused.Store(0)
	rapid.Check(t, scopeOnlyProperty)
	t.Logf("%d generated trees and scopes, %d of them refused scope-only (a registered ID not named, and not the binding's)", scopeOnlyCases.Load(), scopeOnlyRefused.Load())
}

// TestScopeOnlySkipsOtherOwners: a scope-only load does not walk into
// another registered agent's or task's folder, canonical or legacy: their
// notes are not loaded and their unreadable files (a FIFO, a name with a
// newline) are no problems of it. The participant's own folder, unregistered
// folders and device notes are read as always. Such a memory says it is
// scope-only, keeps its limit on Reload and Refresh, refuses every write, and
// refuses to render for an agent or task it did not read.
func TestScopeOnlySkipsOtherOwners(t *testing.T) {
	dir := t.TempDir()
	note := "---\nrevision: 1\n---\nbody\n"
	files := map[string]string{
		"data/magicfrog.json":                  `{"agents": ["larry", "moe"]}`,
		"data/machine-id":                      "m-here\n",
		"project/.magicfrog/config.json":       `{"task": "T-1", "tasks": ["T-2"], "agents": ["larry"]}`,
		"data/memory/agent/larry/own.md":       note,
		"data/memory/agent/moe/theirs.md":      note,
		"data/memory/agent/moe/bad\nname.md":   note,
		"data/memory/agent/helpers/nobodys.md": note,
		"data/memory/agent/shared.md":          note,
		"data/memory/device/elsewhere.md":      "---\nrevision: 1\nmachine: m-other\n---\nbody\n",
		"project/.magicfrog/memory/T-1/own.md": note,
		"project/.magicfrog/memory/T-2/old.md": note,
		"data/memory/project/T-2/legacy.md":    note,
		"data/memory/project/T-1/legacy.md":    note,
	}
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fifos := []string{"data/memory/agent/moe/pipe.md", "project/.magicfrog/memory/T-2/pipe.md", "data/memory/agent/larry/pipe.md", "data/memory/agent/helpers/pipe.md"}
	for _, rel := range fifos {
		if err := makeFIFO(filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
			fifos = nil // no named pipes here: the bad name alone
			break
		}
	}
	opts := engine.Options{DataDir: filepath.Join(dir, "data"), ProjectDir: filepath.Join(dir, "project")}
	full, err := engine.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.ScopeOnly = true
	m, err := engine.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	if !m.ScopeOnly() || full.ScopeOnly() {
		t.Fatalf("ScopeOnly(): %v, and the full load's %v", m.ScopeOnly(), full.ScopeOnly())
	}

	listing := func(m *engine.Memory) (notes, problems string) {
		var n, p []string
		for _, e := range m.Notes() {
			r, _ := filepath.Rel(dir, e.Path)
			n = append(n, filepath.ToSlash(r))
		}
		for _, pr := range m.Problems() {
			r, _ := filepath.Rel(dir, pr.Path)
			p = append(p, filepath.ToSlash(r))
		}
		return strings.Join(n, "\n"), strings.Join(p, "\n")
	}
	skipped := []string{"agent/moe/", ".magicfrog/memory/T-2/", "memory/project/T-2/"}
	kept := []string{"agent/larry/own.md", "agent/helpers/nobodys.md", "agent/shared.md", "device/elsewhere.md", ".magicfrog/memory/T-1/own.md", "project/T-1/legacy.md"}
	check := func(when string) {
		t.Helper()
		notes, problems := listing(m)
		fullNotes, fullProblems := listing(full)
		for _, s := range skipped {
			if strings.Contains(notes, s) || strings.Contains(problems, s) {
				t.Errorf("%s: the scope-only load read %s:\nnotes:\n%s\nproblems:\n%s", when, s, notes, problems)
			}
			if !strings.Contains(fullNotes, s) {
				t.Errorf("%s: the full load has no note in %s: the test proves nothing", when, s)
			}
		}
		if !strings.Contains(fullProblems, "agent/moe/bad\nname.md") {
			t.Errorf("%s: the full load has no problem in moe's folder: the test proves nothing:\n%s", when, fullProblems)
		}
		for _, k := range kept {
			if !strings.Contains(notes, k) {
				t.Errorf("%s: the scope-only load left out %s:\n%s", when, k, notes)
			}
		}
		if fifos != nil && (!strings.Contains(problems, "agent/larry/pipe.md") || !strings.Contains(problems, "agent/helpers/pipe.md")) {
			t.Errorf("%s: the participant's and the unregistered folder's FIFOs are no problems:\n%s", when, problems)
		}
	}
	check("Open")
	m.Reload()
	check("Reload")
	m.Refresh(filepath.Join(dir, "data", "memory", "agent", "moe"))
	m.Refresh(filepath.Join(dir, "data", "memory", "agent", "moe", "theirs.md"))
	check("Refresh")

	var notLoaded *engine.NotLoadedError
	if _, err := m.Render(engine.RenderOptions{Scope: engine.Scope{Agents: []string{"moe"}}}); !errors.As(err, &notLoaded) || notLoaded.ID != "moe" {
		t.Errorf("Render for moe: %v, want a NotLoadedError", err)
	}
	if _, err := m.Render(engine.RenderOptions{Scope: engine.Scope{Task: "T-2", Agents: []string{"larry"}}}); !errors.As(err, &notLoaded) || notLoaded.ID != "T-2" {
		t.Errorf("Render for T-2: %v, want a NotLoadedError", err)
	}
	if _, err := m.Render(engine.RenderOptions{Scope: engine.Scope{Task: "T-1", Agents: []string{"larry"}}}); err != nil {
		t.Errorf("Render for the binding: %v", err)
	}

	own := m.Note(filepath.Join(dir, "data", "memory", "agent", "larry", "own.md"))
	if own == nil {
		t.Fatal("larry's note is not loaded")
	}
	theirs := filepath.Join(dir, "data", "memory", "agent", "moe", "theirs.md")
	writes := map[string]error{
		"Write": func() error {
			_, err := m.Write(engine.WriteRequest{Dimension: engine.Agent, Owner: "moe", Key: "new.md", Body: []byte("x\n")})
			return err
		}(),
		"Write T-2": func() error {
			_, err := m.Write(engine.WriteRequest{Dimension: engine.Task, Owner: "T-2", Key: "new.md", Body: []byte("x\n")})
			return err
		}(),
		"Delete": m.Delete(theirs, 1, ""),
		"Register": func() error {
			_, _, err := m.Register(engine.Agent, "curly", false)
			return err
		}(),
		"Bind": func() error {
			_, _, err := m.Bind("T-3")
			return err
		}(),
		"Promote": func() error {
			_, err := m.Promote(engine.PromoteRequest{From: own, To: engine.User})
			return err
		}(),
		"Export": func() error {
			_, err := m.Export(filepath.Join(dir, "out"), true)
			return err
		}(),
		"Import": func() error {
			_, err := m.Import(filepath.Join(dir, "out"))
			return err
		}(),
	}
	for op, err := range writes {
		if !errors.Is(err, engine.ErrScopeOnly) {
			t.Errorf("%s through a scope-only memory: %v, want ErrScopeOnly", op, err)
		}
	}
	for _, rel := range []string{"data/memory/agent/moe/new.md", "project/.magicfrog/memory/T-2/new.md"} {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel))); err == nil {
			t.Errorf("a scope-only memory wrote %s, in a folder it did not read", rel)
		}
	}
	if _, err := os.Stat(theirs); err != nil {
		t.Error("a scope-only memory deleted a note in a folder it did not read")
	}
	// Inside the folders it read, a scope-only memory writes as any memory
	// does: revision-checked (mf-lsp mcp writes through one).
	for _, req := range []engine.WriteRequest{
		{Dimension: engine.Agent, Owner: "larry", Key: "new.md", Body: []byte("x\n")},
		{Dimension: engine.Task, Owner: "T-1", Key: "new.md", Body: []byte("x\n")},
		{Dimension: engine.Agent, Key: "new.md", Body: []byte("x\n")},
	} {
		res, err := m.Write(req)
		if err != nil {
			t.Fatalf("write %s/%s inside the scope: %v", req.Dimension, req.Owner, err)
		}
		if _, err := m.Write(req); err == nil {
			t.Errorf("a second create of %s through a scope-only memory was not stale", res.Path)
		} else if _, stale := engine.IsStale(err); !stale {
			t.Errorf("a second create of %s: %v, want stale", res.Path, err)
		}
		if err := m.Delete(res.Path, res.Revision, res.Hash); err != nil {
			t.Errorf("delete %s inside the scope: %v", res.Path, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Error("a scope-only memory exported")
	}
	if m.Note(own.Path) == nil {
		t.Error("a scope-only memory deleted a note")
	}
}

// TestScopeOnlySynth: the benchmark's synthetic tree (1,000 registered agents
// and tasks, one bound; shared, device and unregistered notes) from the
// binding's side and from agents, tasks of "tasks", machines and
// unregistered IDs the flags name, with and without a budget.
func TestScopeOnlySynth(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 500
	}
	dir, err := os.MkdirTemp(scratch, "scopeonly-synth-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	tree, err := synth.Generate(dir, n)
	if err != nil {
		t.Fatal(err)
	}
	base := engine.Options{DataDir: tree.DataDir, ProjectDir: tree.ProjectDir}
	scopes := []engine.Scope{
		{Task: tree.Task, Agents: tree.Agents[:1]},
		{Task: tree.Task, Agents: tree.Agents[7:8]},
		{Task: "T-0042", Agents: tree.Agents[999:], Machine: "machine-03"},
		{Task: "T-0999"},
		{Agents: tree.Agents[500:501]},
		{Task: "X-1", Agents: []string{"zed"}},
		{Agents: []string{"notes"}}, // agent/notes/ is an unregistered folder of the tree
	}
	for _, s := range scopes {
		for _, budget := range []int{0, 2000} {
			ropts := engine.RenderOptions{Scope: s, Budget: budget, Today: "2026-11-30"}
			named := base
			named.Named = s
			if diff, refused := sameAsFull(named, ropts); diff != "" || refused {
				t.Fatalf("%+v named: refused %v %s", ropts, refused, diff)
			}
		}
	}
	binding := engine.RenderOptions{Scope: engine.Scope{Task: tree.Task, Agents: tree.Agents[:1]}, Today: "2026-11-30"}
	if diff, refused := sameAsFull(base, binding); diff != "" || refused {
		t.Fatalf("the binding's scope: refused %v %s", refused, diff)
	}
}
