package roam

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"

	"github.com/magicfrog/mf-lsp/engine"
)

// The roster as init and import write it.
const larryRoster = "{\n  \"agents\": [\n    \"larry\"\n  ]\n}\n"

// mountJournal binds the machine's project to T-1 and larry with larry's
// journal kept in place in the workspace ws (as init --journal records it).
func (mc *machine) mountJournal(ws string) {
	mc.t.Helper()
	must(mc.t, os.MkdirAll(filepath.Join(ws, "memory"), 0o755))
	cfg := `{"task": "T-1", "agents": ["larry"], "journals": [{"path": ` + strconvQuote(ws) + `, "dimension": "agent", "scope": "larry"}]}`
	must(mc.t, os.WriteFile(filepath.Join(mc.proj, ".magicfrog", "config.json"), []byte(cfg), 0o644))
	mc.reopen()
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// everyDimension fills a machine with a note of every kind the portable tree
// holds: account, user, agent shared and larry's, task shared and T-1's,
// skills, journal days (the task's in the task root, larry's in a workspace
// mounted in place, one of its files written by the host), and a device
// note, which never roams.
func everyDimension(t *testing.T, mc *machine, ws string) {
	must(t, os.WriteFile(filepath.Join(mc.data, "magicfrog.json"), []byte(larryRoster), 0o644))
	mc.withJournal()
	mc.mountJournal(ws)
	mc.write(engine.Account, "", "acme.md", "Acme builds frogs.\n")
	mc.write(engine.User, "", "style.md", "Short sentences.\n")
	mc.write(engine.User, "", "skills/review.md", "Review the diff first.\n")
	mc.write(engine.Agent, "", "skills/lint.md", "Run the linter.\n")
	mc.write(engine.Agent, "larry", "notes/style.md", "Larry likes tables.\n")
	mc.write(engine.Task, "", "notes/progress.md", "Export is done.\n")
	mc.write(engine.Task, "T-1", "notes/own.md", "T-1's own note.\n")
	mc.appendDaily(engine.Task, "", "journal/2026-12-01.md", "- 09:00 the task's day")
	mc.appendDaily(engine.Agent, "larry", "journal/2026-12-01.md", "- 09:30 larry's day")
	mc.write(engine.Agent, "larry", "journal/MEMORY.md", "Lessons.\n")
	must(t, os.MkdirAll(filepath.Join(ws, "memory", "refined"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, "memory", "refined", "2026-11-30.md"), []byte("## Decisions Made\n- the host wrote this\n"), 0o644))
	mc.write(engine.Device, "", "gpu.md", "This machine's GPU.\n")
	mc.reopen()
	if _, err := os.Stat(filepath.Join(ws, "memory", "2026-12-01.md")); err != nil {
		t.Fatalf("larry's day is not in the mounted workspace: %v", err)
	}
}

// portable is every chain note of the machine by its portable path (as
// export names it), with its bytes.
func (mc *machine) portable() map[string]string {
	out := map[string]string{}
	for _, e := range mc.m.Notes() {
		if e.Dimension == engine.Device {
			continue
		}
		rel := e.Dimension.String() + "/"
		if e.Owner != "" {
			rel += e.Owner + "/"
		}
		out[rel+e.Key] = string(e.TextOrNil())
	}
	return out
}

// treeFiles reads every file below dir but .git/.
func treeFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	must(t, filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && e.Name() == ".git" {
			return fs.SkipDir
		}
		if e.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	}))
	return out
}

// The remote is the portable tree: a git clone of it is what export writes,
// and importing the clone into an empty data directory and project restores
// every note byte for byte (issue "In place, not a copy"). The remote used
// to keep the project's task root under task/<task ID>/, so the clone
// misfiled the task notes, and a journal mounted in place did not roam.
func TestRemoteIsThePortableTree(t *testing.T) {
	dir := t.TempDir()
	remote := bareRemote(t, dir)
	a := newMachine(t, dir, "a")
	everyDimension(t, a, filepath.Join(dir, "a", "clawd"))
	if rep := a.sync(remote); len(rep.Held) > 0 || len(rep.Conflicts) > 0 {
		t.Fatalf("held %+v, conflicts %+v", rep.Held, rep.Conflicts)
	}

	clone := filepath.Join(dir, "clone")
	_, err := git.PlainClone(clone, false, &git.CloneOptions{URL: remote})
	must(t, err)
	exported := filepath.Join(dir, "export")
	_, err = a.m.Export(exported, false)
	must(t, err)

	// The clone and the export: the same files with the same bytes, but for
	// magicfrog.json, where the remote holds the data directory's roster as
	// it is and export writes the roster with the project's tasks.
	got, want := treeFiles(t, clone), treeFiles(t, exported)
	var differ []string
	for p := range union(got, want) {
		if got[p] != want[p] {
			differ = append(differ, p)
		}
	}
	sort.Strings(differ)
	if !reflect.DeepEqual(differ, []string{"magicfrog.json"}) {
		for _, p := range differ {
			t.Errorf("%s: remote %q, export %q", p, got[p], want[p])
		}
		t.Fatalf("the remote's checkout and the export differ in %v; want only magicfrog.json", differ)
	}
	if got["magicfrog.json"] != larryRoster {
		t.Errorf("the remote's magicfrog.json is %q, want the roster %q", got["magicfrog.json"], larryRoster)
	}
	var exp engine.PortableConfig
	must(t, json.Unmarshal([]byte(want["magicfrog.json"]), &exp))
	if !reflect.DeepEqual(exp.Agents, []string{"larry"}) || !reflect.DeepEqual(exp.Tasks, []string{"T-1"}) {
		t.Errorf("export's magicfrog.json: %+v", exp)
	}
	for _, p := range []string{"task/notes/progress.md", "task/T-1/notes/own.md", "task/journal/2026-12-01.md",
		"agent/larry/journal/2026-12-01.md", "agent/larry/journal/MEMORY.md", "agent/larry/journal/refined/2026-11-30.md"} {
		if _, ok := got[p]; !ok {
			t.Errorf("the remote lacks %s", p)
		}
	}

	// A new machine: an empty data directory and a project bound as a's
	// (init --task T-1 --agent larry), then import of the clone.
	b := newMachine(t, dir, "b")
	res, err := b.m.Import(clone)
	must(t, err)
	for _, s := range res.Skipped {
		t.Errorf("import skipped %s", s)
	}
	b.reopen()
	if pa, pb := a.portable(), b.portable(); !reflect.DeepEqual(pa, pb) {
		for p := range union(pa, pb) {
			if pa[p] != pb[p] {
				t.Errorf("%s: original %q, restored %q", p, pa[p], pb[p])
			}
		}
	}
	for _, f := range []string{"magicfrog.json", "memory/layers.json"} {
		ab, _ := os.ReadFile(filepath.Join(a.data, f))
		bb, _ := os.ReadFile(filepath.Join(b.data, f))
		if !bytes.Equal(ab, bb) {
			t.Errorf("%s: original %q, restored %q", f, ab, bb)
		}
	}
	if n := b.noteOf(engine.Device, "", "gpu.md"); n != nil {
		t.Error("a device note roamed")
	}
}

func union(a, b map[string]string) map[string]bool {
	out := map[string]bool{}
	for p := range a {
		out[p] = true
	}
	for p := range b {
		out[p] = true
	}
	return out
}

// Several projects share one remote: task IDs are folders of their own, and
// the notes every task shares (task/…) are one set, as in an export, so one
// project's task-shared note reaches the other, and two different versions
// of one are a conflict that keeps both. Another project's task ID folder is
// neither taken nor changed.
func TestTwoProjectsShareARemote(t *testing.T) {
	dir := t.TempDir()
	remote := bareRemote(t, dir)
	a := newMachine(t, dir, "a")
	b := newMachine(t, dir, "b")
	must(t, os.WriteFile(filepath.Join(b.proj, ".magicfrog", "config.json"), []byte(`{"task": "T-2", "agents": ["larry"]}`), 0o644))
	b.reopen()
	a.write(engine.Task, "T-1", "notes/own.md", "T-1's own.\n")
	a.write(engine.Task, "", "notes/style.md", "Every task: short commits.\n")
	b.write(engine.Task, "T-2", "notes/own.md", "T-2's own.\n")
	b.write(engine.Task, "", "notes/progress.md", "B's progress.\n")
	a.write(engine.Task, "", "notes/progress.md", "A's progress.\n")
	a.sync(remote)
	rep := b.sync(remote)
	if len(rep.Conflicts) != 1 || rep.Conflicts[0].Path != "task/notes/progress.md" {
		t.Fatalf("conflicts %+v, want task/notes/progress.md", rep.Conflicts)
	}
	if n := b.noteOf(engine.Task, "", "notes/style.md"); n == nil || !strings.Contains(string(n.TextOrNil()), "short commits") {
		t.Error("b did not get the shared task note")
	}
	if _, err := os.Stat(filepath.Join(b.proj, ".magicfrog", "memory", "T-1")); err == nil {
		t.Error("b took a's task ID folder T-1")
	}
	a.sync(remote)
	if _, err := os.Stat(filepath.Join(a.proj, ".magicfrog", "memory", "T-2")); err == nil {
		t.Error("a took b's task ID folder T-2")
	}
	files := remoteFiles(t, remote)
	for _, p := range []string{"task/T-1/notes/own.md", "task/T-2/notes/own.md", "task/notes/style.md", "task/notes/progress.md"} {
		if _, ok := files[p]; !ok {
			t.Errorf("the remote lacks %s", p)
		}
	}
}

// remoteFiles is the remote head's tree.
func remoteFiles(t *testing.T, remote string) map[string]string {
	t.Helper()
	clone := filepath.Join(t.TempDir(), "c")
	_, err := git.PlainClone(clone, false, &git.CloneOptions{URL: remote})
	must(t, err)
	return treeFiles(t, clone)
}
