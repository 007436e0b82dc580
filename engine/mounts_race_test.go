package engine

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestMountsReloadedWhileRead: a reload that finds the journals mounted
// differently replaces the memory's mounts while other goroutines (a write's
// lock root, a watcher's MountOf, a load's Roots) read them. Under -race this
// failed while Paths.Mounts was a plain field assigned on reload.
func TestMountsReloadedWhileRead(t *testing.T) {
	dir := t.TempDir()
	data, proj := filepath.Join(dir, "data"), filepath.Join(dir, "proj")
	wsA, wsB := filepath.Join(dir, "wsA"), filepath.Join(dir, "wsB")
	for _, d := range []string{filepath.Join(data, "memory"), filepath.Join(proj, ".magicfrog"), filepath.Join(wsA, "memory"), filepath.Join(wsB, "memory")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	layers := `{"layers": [{"name": "core", "prefix": ""}, {"name": "journal", "prefix": "journal/", "kind": "fractal"}]}`
	if err := os.WriteFile(filepath.Join(data, "memory", "layers.json"), []byte(layers), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(proj, ".magicfrog", "config.json")
	bind := func(ws string) {
		b := `{"task": "T-1", "agents": ["larry"], "journals": [{"path": "` + ws + `", "dimension": "agent", "scope": "larry"}]}`
		if err := os.WriteFile(cfg, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bind(wsA)
	m, err := Open(Options{DataDir: data, ProjectDir: proj})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Paths.Mounts(); len(got) != 1 || got[0].Dir != wsA {
		t.Fatalf("mounts = %+v, want the workspace %s", got, wsA)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				_ = m.Paths.Roots()
				_, _ = m.Paths.MountOf(filepath.Join(wsA, "memory", "2026-12-01.md"))
				_ = m.Paths.LockRoot(filepath.Join(wsB, "memory", "2026-12-01.md"))
			}
		}()
	}
	for i := range 20 {
		if i%2 == 0 {
			bind(wsB)
		} else {
			bind(wsA)
		}
		m.Reload()
	}
	close(stop)
	wg.Wait()
	if got := m.Paths.Mounts(); len(got) != 1 || got[0].Dir != wsA { // the last bind
		t.Fatalf("after the last reload mounts = %+v, want the workspace %s", got, wsA)
	}
}
