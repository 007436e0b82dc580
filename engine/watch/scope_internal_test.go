package watch

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
)

// TestOpenScopeOnlyWatchesItsScope (issue 27): a scope-only load watches
// the folders it walked and no other, so another registered agent's or
// task's folders cost no inotify watch (mf-lsp mcp paid one per folder of
// the whole tree); the full load watches them.
func TestOpenScopeOnlyWatchesItsScope(t *testing.T) {
	dir := t.TempDir()
	for rel, body := range map[string]string{
		"data/magicfrog.json":                          `{"agents": ["larry", "moe"]}`,
		"project/.magicfrog/config.json":               `{"task": "T-1", "tasks": ["T-2"], "agents": ["larry"]}`,
		"data/memory/agent/larry/notes/a.md":           "a\n",
		"data/memory/agent/moe/notes/deep/b.md":        "b\n",
		"project/.magicfrog/memory/T-1/notes/c.md":     "c\n",
		"project/.magicfrog/memory/T-2/notes/old/d.md": "d\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	watched := func(scopeOnly bool) []string {
		opts := engine.Options{DataDir: filepath.Join(dir, "data"), ProjectDir: filepath.Join(dir, "project"), ScopeOnly: scopeOnly,
			Within: engine.Scope{Agents: []string{"larry"}}}
		_, w, err := Open(opts, nil, t.Logf)
		if err != nil || w == nil {
			t.Fatalf("Open: %v (watcher %v)", err, w)
		}
		defer w.Close()
		var rel []string
		for _, p := range w.fw.WatchList() {
			r, _ := filepath.Rel(dir, p)
			rel = append(rel, filepath.ToSlash(r))
		}
		return rel
	}
	own := []string{"data/memory/agent/larry/notes", "project/.magicfrog/memory/T-1/notes"}
	others := []string{"data/memory/agent/moe", "data/memory/agent/moe/notes/deep", "project/.magicfrog/memory/T-2/notes/old"}
	full, limited := watched(false), watched(true)
	for _, d := range own {
		if !slices.Contains(limited, d) {
			t.Errorf("the scope-only watch misses its own %s: %v", d, limited)
		}
	}
	for _, d := range others {
		if slices.Contains(limited, d) {
			t.Errorf("the scope-only watch watches %s: %v", d, limited)
		}
		if !slices.Contains(full, d) {
			t.Errorf("the full watch misses %s, the test proves nothing: %v", d, full)
		}
	}
}
