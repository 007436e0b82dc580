package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
)

func render(t testing.TB, m *engine.Memory, opts engine.RenderOptions) *engine.Block {
	t.Helper()
	if opts.Scope.Task == "" && opts.Scope.Agents == nil {
		opts.Scope = scopeT7
	}
	if opts.Today == "" {
		opts.Today = specToday
	}
	blk, err := m.Render(opts)
	if err != nil {
		t.Fatal(err)
	}
	return blk
}

// rewrite changes a file on disk and tells the memory, as the file watcher does.
func rewrite(t *testing.T, m *engine.Memory, p, text string) {
	t.Helper()
	writeFile(t, p, text)
	if !m.Refresh(p) {
		t.Fatalf("Refresh(%s) after writing it: want a change", p)
	}
}

// TestGeneration: SPEC §5. The generation is a hash of the rendered view: the
// same view keeps it; a change to what the agent reads changes it, and the
// new block replaces the old one; a change the scope cannot see does not.
func TestGeneration(t *testing.T) {
	dir, m := makeTree(t, map[string]string{
		"data/memory/agent/moe/focus.md":                      note(1, "moe: focus"),
		"data/memory/account/u-good.md":                       note(1, "account: shadowed by user"),
		"project/.magicfrog/memory/T-7/journal/2020-01-01.md": "an old daily, outside the boot set\n",
	})
	p := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	g0 := render(t, m, engine.RenderOptions{})
	if g := render(t, m, engine.RenderOptions{}); g.Generation != g0.Generation || g.Text != g0.Text {
		t.Fatalf("two renders of one view differ: %s %s", g0.Generation, g.Generation)
	}
	if g := render(t, m, engine.RenderOptions{Previous: g0.Generation}); g.Text != g0.Text {
		t.Errorf("previous = current generation: want the same block, no replaces=\n%s", g.Text)
	}
	// Reloading from disk gives the same generation.
	m.Reload()
	if g := render(t, m, engine.RenderOptions{}); g.Generation != g0.Generation {
		t.Errorf("generation changed on reload: %s → %s", g0.Generation, g.Generation)
	}

	// Changes the scope cannot see keep the generation.
	for _, rel := range []string{
		"data/memory/agent/moe/focus.md",                      // another agent
		"data/memory/account/u-good.md",                       // shadowed by user
		"project/.magicfrog/memory/T-7/journal/2020-01-01.md", // outside the boot set
	} {
		rewrite(t, m, p(rel), note(9, "changed where the scope cannot see"))
		if g := render(t, m, engine.RenderOptions{}); g.Generation != g0.Generation {
			t.Errorf("%s changed: the view did not, yet the generation did (%s → %s)", rel, g0.Generation, g.Generation)
		}
	}

	// Changes the agent reads change it.
	prev := g0.Generation
	for _, c := range []struct{ rel, text string }{
		{"data/memory/user/u-good.md", note(2, "user: good, changed body")},
		{"data/memory/user/u-good.md", note(3, "user: good, changed body")}, // revision only
		{"data/memory/user/new.md", note(1, "a new note")},
		{"data/memory/device/new.md", "---\nrevision: 1\nmachine: m1\n---\ndevice\n"},
	} {
		rewrite(t, m, p(c.rel), c.text)
		g := render(t, m, engine.RenderOptions{Previous: prev})
		if g.Generation == prev {
			t.Errorf("%s changed: generation stayed %s", c.rel, prev)
		}
		if !strings.HasPrefix(g.Text, `<memory generation="`+g.Generation+`" replaces="`+prev+`" `) {
			t.Errorf("%s changed: want replaces=%q in %q", c.rel, prev, strings.SplitN(g.Text, "\n", 2)[0])
		}
		prev = g.Generation
	}
	must(t, os.Remove(p("data/memory/user/new.md")))
	m.Refresh(p("data/memory/user/new.md"))
	if g := render(t, m, engine.RenderOptions{}); g.Generation == prev {
		t.Error("a note removed: generation unchanged")
	}
	// Another scope is another view.
	other := render(t, m, engine.RenderOptions{Scope: engine.Scope{Task: "T-7", Agents: []string{"moe"}, Machine: "m1"}})
	if other.Generation == render(t, m, engine.RenderOptions{}).Generation {
		t.Error("scopes larry and moe see different notes but share a generation")
	}
}

// TestBudget: SPEC §5. With a budget every note of the view is either in the
// block, listed as a skill, or named by an <omitted/> line; nothing is cut
// silently, and the block's own count is the count of its text.
func TestBudget(t *testing.T) {
	m := budgetTree(t)
	full := render(t, m, engine.RenderOptions{})
	all := len(full.Included) + len(full.Skills)
	if len(full.Omitted) != 0 {
		t.Fatalf("no budget: %d notes omitted", len(full.Omitted))
	}
	tiny := render(t, m, engine.RenderOptions{Budget: 1})
	if len(tiny.Omitted) != all {
		t.Errorf("budget 1: %d of %d notes omitted", len(tiny.Omitted), all)
	}
	for budget := 1; budget <= full.CountTokens()+10; budget += 7 {
		blk := render(t, m, engine.RenderOptions{Budget: budget})
		if got := len(blk.Included) + len(blk.Skills) + len(blk.Omitted); got != all {
			t.Errorf("budget %d: %d included + %d skills + %d omitted ≠ %d notes", budget, len(blk.Included), len(blk.Skills), len(blk.Omitted), all)
		}
		if n := strings.Count(blk.Text, "<omitted "); n != len(blk.Omitted) {
			t.Errorf("budget %d: %d <omitted/> lines for %d omitted notes", budget, n, len(blk.Omitted))
		}
		checkBlockInvariants(t, m, blk)
	}
	if blk := render(t, m, engine.RenderOptions{Budget: full.CountTokens()}); len(blk.Omitted) != 0 {
		t.Errorf("budget = the full block's %d tokens: %d notes omitted", full.CountTokens(), len(blk.Omitted))
	}
}

func budgetTree(t *testing.T) *engine.Memory {
	_, m := makeTree(t, map[string]string{
		"data/memory/user/skills/review.md":  "---\nrevision: 1\nname: review\ndescription: Review a change\n---\nSteps.\n",
		"data/memory/device/tools.md":        "---\nrevision: 1\nmachine: m1\n---\nGo 1.26\n",
		"data/memory/account/long.md":        note(1, strings.Repeat("A long account note. ", 60)),
		"project/.magicfrog/memory/T-7/p.md": note(1, "T-7 progress"),
	})
	return m
}

// TestBudgetIsACeiling: a budget is the most tokens the block may take. When
// even the block with every note omitted fits, the block must fit: the
// <omitted/> lines are part of the block and count against the budget.
func TestBudgetIsACeiling(t *testing.T) {
	m := budgetTree(t)
	full := render(t, m, engine.RenderOptions{})
	if n := engine.Tokens(full.Text); n != full.CountTokens() {
		t.Errorf("Block.CountTokens() = %d, but the text counts %d", full.CountTokens(), n)
	}
	floor := engine.Tokens(render(t, m, engine.RenderOptions{Budget: 1}).Text) // everything omitted
	for budget := floor; budget <= full.CountTokens()+10; budget++ {
		blk := render(t, m, engine.RenderOptions{Budget: budget})
		if n := engine.Tokens(blk.Text); n != blk.Tokens {
			t.Errorf("budget %d: Block.Tokens = %d, the text counts %d", budget, blk.Tokens, n)
		}
		if n := engine.Tokens(blk.Text); n > budget {
			t.Errorf("budget %d (the all-omitted block takes %d): the block takes %d tokens (Block.Tokens says %d)", budget, floor, n, blk.Tokens)
		}
	}
}

// TestRefresh: what changes on disk is what the memory holds after Refresh.
func TestRefresh(t *testing.T) {
	dir, m := makeTree(t, map[string]string{
		"data/memory/agent/larry/notes/a.md": note(1, "a"),
		"data/memory/agent/larry/notes/b.md": note(1, "b"),
		"data/memory/agent/moe/x.md":         note(1, "moe x"),
	})
	p := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	inView := func(ref string) bool {
		for _, kv := range m.View(scopeT7).Keys {
			if kv.Winner.Ref() == ref {
				return true
			}
		}
		return false
	}
	n0 := m.Len()

	// Added.
	added := p("data/memory/user/added.md")
	writeFile(t, added, note(1, "added"))
	if !m.Refresh(added) || m.Note(added) == nil || !inView("user/added.md") {
		t.Error("added note: not loaded")
	}
	// Changed.
	v := m.Version()
	writeFile(t, added, note(2, "changed"))
	if !m.Refresh(added) || m.Note(added).Revision() != 2 || string(m.Note(added).BodyOrNil()) != "changed\n" || m.Version() == v {
		t.Error("changed note: old version still loaded")
	}
	// Renamed: the watcher reports both paths.
	renamed := p("data/memory/user/renamed.md")
	must(t, os.Rename(added, renamed))
	m.Refresh(added)
	m.Refresh(renamed)
	if m.Note(added) != nil || m.Note(renamed) == nil || inView("user/added.md") || !inView("user/renamed.md") {
		t.Error("renamed note: want only the new path")
	}
	// Removed.
	must(t, os.Remove(renamed))
	if !m.Refresh(renamed) || m.Note(renamed) != nil || inView("user/renamed.md") {
		t.Error("removed note: still loaded")
	}
	if m.Len() != n0 {
		t.Errorf("after add, change, rename, remove: %d notes; want %d", m.Len(), n0)
	}
	// A folder removed, then put back with other notes.
	folder := p("data/memory/agent/larry/notes")
	must(t, os.RemoveAll(folder))
	if !m.Refresh(folder) || m.Note(filepath.Join(folder, "a.md")) != nil || inView("agent/larry/notes/a.md") {
		t.Error("removed folder: its notes still loaded")
	}
	writeFile(t, filepath.Join(folder, "sub", "c.md"), note(1, "c"))
	if !m.Refresh(folder) || !inView("agent/larry/notes/sub/c.md") {
		t.Error("added folder: its notes not loaded")
	}
	// A note that becomes unreadable becomes a problem, and back.
	bad := p("data/memory/user/bad.md")
	writeFile(t, bad, "\x00")
	m.Refresh(bad)
	if m.Note(bad) != nil || !hasProblem(m, bad) {
		t.Error("note turned binary: want a problem and no entry")
	}
	writeFile(t, bad, note(1, "fixed"))
	m.Refresh(bad)
	if m.Note(bad) == nil || hasProblem(m, bad) {
		t.Error("note fixed: want the entry and no problem")
	}
	// Hidden files and paths outside every root are not notes.
	hidden := p("data/memory/user/.draft.md")
	writeFile(t, hidden, note(1, "hidden"))
	if m.Refresh(hidden) || m.Note(hidden) != nil {
		t.Error("hidden file: loaded")
	}
	if m.Refresh(p("elsewhere/x.md")) {
		t.Error("a path outside every root changed the memory")
	}
	// Configuration: moe joins the project, so agent/moe/ is now moe's.
	cfg := p("project/.magicfrog/config.json")
	writeFile(t, cfg, `{"task": "T-7", "agents": ["larry", "moe"]}`)
	if !m.Refresh(cfg) {
		t.Error("config.json changed: no change")
	}
	if e := m.Note(p("data/memory/agent/moe/x.md")); e == nil || e.Owner != "moe" {
		t.Errorf("after config change: agent/moe/x.md = %+v; want scope moe", e)
	}
	// The roster shrinks: moe's folder... is still moe's, as the project names moe.
	roster := p("data/magicfrog.json")
	writeFile(t, roster, `{"agents": []}`)
	m.Refresh(roster)
	if e := m.Note(p("data/memory/agent/larry/g-good.md")); e == nil || e.Owner != "larry" {
		t.Errorf("roster emptied: larry is still named by the project; got %+v", e)
	}
}

func hasProblem(m *engine.Memory, path string) bool {
	for _, p := range m.Problems() {
		if p.Path == path {
			return true
		}
	}
	return false
}

// TestLocate: every root, canonical and legacy, with and without an ID prefix.
func TestLocate(t *testing.T) {
	dir, m := makeTree(t, map[string]string{
		"data/memory/layers.json": `{"layers": [{"name": "journal", "prefix": "journal/", "kind": "fractal"}, {"name": "runbooks", "prefix": "ops/runbooks/"}]}`,
	})
	p := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	for _, c := range []struct {
		path   string
		dim    engine.Dimension
		scope  string
		key    string
		layer  string
		legacy bool
	}{
		{"data/memory/account/style/code.md", engine.Account, "", "style/code.md", "core", false},
		{"data/memory/user/skills/review.md", engine.User, "", "skills/review.md", "skills", false},
		{"data/memory/agent/notes.md", engine.Agent, "", "notes.md", "core", false},
		{"data/memory/agent/larry/journal/2026-10-20.md", engine.Agent, "larry", "journal/2026-10-20.md", "journal", false},
		{"data/memory/agent/moe/x.md", engine.Agent, "moe", "x.md", "core", false},
		{"data/memory/agent/helpers/x.md", engine.Agent, "helpers", "x.md", "core", false}, // unregistered
		{"data/memory/device/tools.md", engine.Device, "", "tools.md", "core", false},
		{"data/memory/device/larry/tools.md", engine.Device, "", "larry/tools.md", "core", false},
		{"project/.magicfrog/memory/ops/runbooks/r.md", engine.Task, "", "ops/runbooks/r.md", "runbooks", false},
		{"project/.magicfrog/memory/T-7/journal/MEMORY.md", engine.Task, "T-7", "journal/MEMORY.md", "journal", false},
		{"project/.magicfrog/memory/T-8/x.md", engine.Task, "T-8", "x.md", "core", false}, // unregistered
		{"data/memory/machine/paths.md", engine.Device, "", "paths.md", "core", true},
		{"data/memory/project/T-7/plan.md", engine.Task, "T-7", "plan.md", "core", true},
		{"data/memory/project/plan.md", engine.Task, "", "plan.md", "core", true},
		{"data/memory/user", engine.User, "", "", "core", false},
	} {
		loc, ok := m.Locate(p(c.path))
		if !ok {
			t.Errorf("Locate(%s): not in any root", c.path)
			continue
		}
		if loc.Dimension != c.dim || loc.Owner != c.scope || loc.Key != c.key || loc.Layer.Name != c.layer || loc.Legacy != c.legacy {
			t.Errorf("Locate(%s) = %v %q %q %s legacy=%v; want %v %q %q %s legacy=%v", c.path,
				loc.Dimension, loc.Owner, loc.Key, loc.Layer.Name, loc.Legacy, c.dim, c.scope, c.key, c.layer, c.legacy)
		}
	}
	for _, out := range []string{"data/memory/layers.json", "data/magicfrog.json", "data/memory/other/x.md", "project/README.md", "project/.magicfrog/config.json", "elsewhere/x.md"} {
		if loc, ok := m.Locate(p(out)); ok {
			t.Errorf("Locate(%s) = %+v; want outside every root", out, loc)
		}
	}
}

// TestStatusOf: SPEC §3 from one note's side.
func TestStatusOf(t *testing.T) {
	dir, m := makeTree(t, map[string]string{
		"data/memory/account/style.md":     note(1, "account"),
		"data/memory/agent/larry/style.md": note(1, "larry"),
		"data/memory/agent/moe/style.md":   note(1, "moe"),
		"data/memory/device/tools.md":      "---\nrevision: 1\nmachine: m1\n---\nm1\n",
		"data/memory/device/gpu.md":        "---\nrevision: 1\nmachine: m2\n---\nm2\n",
	})
	e := func(rel string) *engine.Note {
		x := m.Note(filepath.Join(dir, filepath.FromSlash(rel)))
		if x == nil {
			t.Fatalf("%s not loaded", rel)
		}
		return x
	}
	larry, account, moe := e("data/memory/agent/larry/style.md"), e("data/memory/account/style.md"), e("data/memory/agent/moe/style.md")
	if st := m.StatusOf(larry, scopeT7); !st.InScope || !st.Effective || len(st.Shadows) != 1 || st.Shadows[0] != account {
		t.Errorf("larry's style: %+v; want effective, shadowing the account's", st)
	}
	if st := m.StatusOf(account, scopeT7); !st.InScope || st.Effective || st.Winner != larry || len(st.Chain) != 2 || st.Chain[0] != larry {
		t.Errorf("account style: %+v; want shadowed by larry's", st)
	}
	if st := m.StatusOf(moe, scopeT7); st.InScope || st.Effective {
		t.Errorf("moe's style in larry's scope: %+v; want out of scope", st)
	}
	both := engine.Scope{Task: "T-7", Agents: []string{"larry", "moe"}, Machine: "m1"}
	if st := m.StatusOf(moe, both); !st.Effective {
		t.Errorf("moe's style with larry and moe in scope: %+v; want effective beside larry's", st)
	}
	if st := m.StatusOf(e("data/memory/device/tools.md"), scopeT7); !st.InScope || !st.Effective {
		t.Errorf("this machine's device note: %+v; want effective", st)
	}
	if st := m.StatusOf(e("data/memory/device/gpu.md"), scopeT7); st.InScope {
		t.Errorf("another machine's device note: %+v; want out of scope", st)
	}
	// An unsaved buffer with the same path is judged as the note it would be.
	buf, _, ok := m.Parse(account.Path, []byte(note(7, "edited in a buffer")))
	if !ok || buf == nil {
		t.Fatal("Parse of a note path: not ok")
	}
	if st := m.StatusOf(buf, scopeT7); st.Effective || st.Winner != larry {
		t.Errorf("buffer of the account note: %+v; want still shadowed by larry's", st)
	}
}

// TestStatusOfEffectiveHasNoWinner: Status.Winner is "the note that shadows
// it, when not effective"; an effective note is shadowed by nothing, also when
// several agents' notes win the same key.
func TestStatusOfEffectiveHasNoWinner(t *testing.T) {
	dir, m := makeTree(t, map[string]string{
		"data/memory/agent/larry/style.md": note(1, "larry"),
		"data/memory/agent/moe/style.md":   note(1, "moe"),
	})
	both := engine.Scope{Task: "T-7", Agents: []string{"larry", "moe"}, Machine: "m1"}
	for _, a := range []string{"larry", "moe"} {
		e := m.Note(filepath.Join(dir, "data", "memory", "agent", a, "style.md"))
		if st := m.StatusOf(e, both); !st.Effective || st.Winner != nil {
			t.Errorf("%s's style with larry and moe in scope: Effective=%v Winner=%v; want effective, no winner", a, st.Effective, st.Winner != nil)
		}
	}
}
