package session

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestNavigationIndexesWarmAfterLoad: once a tree has loaded, its backlink
// index and the participant's completion candidates are built beside the
// requests, so the first references or completion an editor sends does not
// pay for a pass over every note (at 100,000 notes that first request took
// 50-80 ms, the one slow sample of the latency run's p99).
func TestNavigationIndexesWarmAfterLoad(t *testing.T) {
	data := t.TempDir()
	mem := filepath.Join(data, "memory")
	for p, s := range map[string]string{
		"user/a.md":        "---\nrevision: 1\n---\nSee [b](b.md).\n",
		"user/b.md":        "---\nrevision: 1\n---\nb\n",
		"agent/larry/c.md": "---\nrevision: 1\n---\nSee [[a]].\n",
	} {
		p = filepath.Join(mem, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(data, "magicfrog.json"), []byte(`{"agents": ["larry"]}`), 0o644)
	s := New(Options{Logf: func(string, ...any) {}})
	s.SetSettings(Settings{DataDir: data, Participant: "larry", Today: "2026-11-30"})
	if _, err := s.Load(); err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	snap, err := s.AwaitSnapshot(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	warm := func() (links, cands bool) {
		tr := snap.tree
		tr.links.mu.Lock()
		links = tr.links.idx != nil && tr.links.idx.notes.current(snap.Memory)
		tr.links.mu.Unlock()
		tr.candidates.mu.Lock()
		cands = tr.candidates.cands != nil && tr.candidates.notes.current(snap.Memory)
		tr.candidates.mu.Unlock()
		return links, cands
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		links, cands := warm()
		if links && cands {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("10 s after the load, with no request: backlink index built %v, completion candidates built %v; want both", links, cands)
		}
		time.Sleep(5 * time.Millisecond)
	}
	// What the warm pass built answers as a request's own build would.
	got := snap.tree.candidates.lists(snap).list()
	want := viewCandidates(snap.Memory.View(snap.Participant))
	if a, b := candidateRows(got), candidateRows(want); a != b {
		t.Fatalf("warmed candidates\n%s\nwant\n%s", a, b)
	}
}
