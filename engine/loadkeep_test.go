package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/history"
)

// keepLoaded runs the pass the language server starts after a load.
func keepLoaded(t *testing.T, m *engine.Memory) engine.KeptLoaded {
	t.Helper()
	got, err := m.KeepLoaded(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestBodiesOnDemandKeepsTheLoadedVersion (issue 21): a note over
// engine.ResidentMax that mf-lsp never wrote, loaded with BodiesOnDemand (its
// text is not in memory), then overwritten on disk by another program and
// refreshed as the watcher would: the version the tree had at load is in its
// root's history, byte for byte, and a restore brings it back. Task notes go
// to the project's history; another machine's device note to none; a
// resident note is left to Refresh (it holds its text). A second pass finds
// every version known and reads nothing.
func TestBodiesOnDemandKeepsTheLoadedVersion(t *testing.T) {
	big := strings.Repeat("a line of a long note that no mf-lsp ever wrote\n", 120)
	loaded := note(3, big)
	task := note(5, "task "+big)
	theirs := "---\nrevision: 1\nmachine: m-other\n---\n" + big
	dir, _, m := openOnDemand(t, map[string]string{
		"data/memory/user/big.md":               loaded,
		"project/.magicfrog/memory/big-task.md": task,
		"data/memory/device/theirs.md":          theirs,
		"data/memory/user/small.md":             note(1, "small"),
	})
	p := filepath.Join(dir, "data", "memory", "user", "big.md")
	if n := m.Note(p); n == nil || n.Resident() {
		t.Fatalf("%s: want a note read on demand", p)
	}
	got := keepLoaded(t, m)
	if got.Kept != 2 || got.Known != 0 || got.Left != 0 {
		t.Errorf("first pass: %+v, want 2 kept (user/big.md, the task note)", got)
	}
	foreign := note(1, "another program's text")
	if err := os.WriteFile(p, []byte(foreign), 0o644); err != nil {
		t.Fatal(err)
	}
	m.Refresh(p)
	if b, err := m.HistoryVersion(p, history.BlobID([]byte(loaded))); err != nil || string(b) != loaded {
		t.Fatalf("the version loaded is not in the history (%v)", err)
	}
	if o, ok := m.OverwriteAt(p); !ok || o.LostRevision != 3 {
		t.Errorf("revision 1 over revision 3 is not an open overwrite: %+v", o)
	}
	res, err := m.RestoreLocal(p, 3, "", time.Now())
	if err != nil || !res.Exact {
		t.Fatalf("restore: %+v, %v", res, err)
	}
	if b, _ := os.ReadFile(p); string(b) != loaded {
		t.Errorf("restored:\n%.80s\nwant the version loaded, byte for byte", b)
	}
	tp := filepath.Join(dir, "project", ".magicfrog", "memory", "big-task.md")
	if h, _, ok := m.History(tp); !ok || !strings.HasPrefix(h.Dir(), filepath.Join(dir, "project")) {
		t.Errorf("the task note's history is not the project's")
	} else if b, err := h.Get(history.BlobID([]byte(task))); err != nil || string(b) != task {
		t.Errorf("the task note's loaded version is not in the project's history (%v)", err)
	}
	for _, rel := range []string{"device/theirs.md", "user/small.md"} {
		if vs, _ := m.LocalHistory(filepath.Join(dir, "data", "memory", filepath.FromSlash(rel))); len(vs) != 0 {
			t.Errorf("%s: %d versions kept at load, want none", rel, len(vs))
		}
	}

	// Loaded again: every version is known by its hash.
	m2, err := engine.Open(engine.Options{DataDir: filepath.Join(dir, "data"), ProjectDir: filepath.Join(dir, "project"), BodiesOnDemand: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := keepLoaded(t, m2); got.Kept != 0 || got.Known != 2 || got.Read != 0 {
		t.Errorf("second pass: %+v, want both known, none read", got)
	}
}

// TestKeepLoadedWithinTheBound: a first pass over a foreign tree larger than
// the history's bound (magicfrog.json "history": maxMegabytes) keeps the
// newest notes (by modification time) whose versions fit and says what it
// left, so it never pushes out the versions the history held.
func TestKeepLoadedWithinTheBound(t *testing.T) {
	files := map[string]string{"data/magicfrog.json": `{"agents": ["larry", "moe"], "history": {"maxMegabytes": 1}}`}
	names := []string{"n0.md", "n1.md", "n2.md", "n3.md"} // oldest first
	for i, name := range names {
		files["data/memory/user/"+name] = note(1, strings.Repeat(name+" is a large note\n", 400<<10/20+i))
	}
	dir, _ := makeTree(t, files)
	base := time.Now().Add(-time.Hour)
	for i, name := range names {
		p := filepath.Join(dir, "data", "memory", "user", name)
		if err := os.Chtimes(p, base, base.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	m, err := engine.Open(engine.Options{DataDir: filepath.Join(dir, "data"), ProjectDir: filepath.Join(dir, "project"), BodiesOnDemand: true})
	if err != nil {
		t.Fatal(err)
	}
	var waits atomic.Int32 // a note left out is not read: nothing to wait for
	got, err := m.KeepLoaded(context.Background(), func(context.Context) { waits.Add(1) })
	if err != nil || got.Kept != 2 || got.Left != 2 || got.LeftBytes < 800<<10 || waits.Load() != 2 {
		t.Errorf("pass over 1.6 MB with a bound of 1 MiB: %+v (%v), before called %d times; want 2 kept, 2 left, 2 calls", got, err, waits.Load())
	}
	for i, name := range names {
		p := filepath.Join(dir, "data", "memory", "user", name)
		vs, _ := m.LocalHistory(p)
		if want := i >= 2; (len(vs) == 1) != want {
			t.Errorf("%s: %d versions, want kept %v (the newest first)", name, len(vs), want)
		}
	}
}

// TestKeepLoadedLetsTheCallerGoFirst: the pass calls before ahead of each
// note it reads, and a context cancelled there stops it before that note.
func TestKeepLoadedLetsTheCallerGoFirst(t *testing.T) {
	big := strings.Repeat("a line of a long note that no mf-lsp ever wrote\n", 120)
	_, _, m := openOnDemand(t, map[string]string{
		"data/memory/user/a.md": note(1, "a "+big),
		"data/memory/user/b.md": note(1, "b "+big),
		"data/memory/user/c.md": note(1, "c "+big),
	})
	var calls atomic.Int32
	got, err := m.KeepLoaded(context.Background(), func(context.Context) { calls.Add(1) })
	if err != nil || got.Kept != 3 || calls.Load() != 3 {
		t.Fatalf("kept %+v (%v) with %d calls of before, want 3 and 3", got, err, calls.Load())
	}

	_, _, m = openOnDemand(t, map[string]string{
		"data/memory/user/a.md": note(1, "a2 "+big),
		"data/memory/user/b.md": note(1, "b2 "+big),
	})
	ctx, cancel := context.WithCancel(context.Background())
	got, err = m.KeepLoaded(ctx, func(context.Context) { cancel() }) // the caller stops the pass while it waits
	if err == nil || got.Kept != 0 || got.Read != 0 {
		t.Fatalf("cancelled before the first note: %+v, %v; want nothing read and the context's error", got, err)
	}
}

// TestKeepLoadedPacesItsLookUps: a second load finds every version known and
// reads nothing, but looking the notes up is work too (a map lookup, the
// note's root; 0.8 s of CPU at 100,000 notes of 8-64 KB, which took a CPU
// from the editor's requests in one go): the pass calls before every
// keepLookUpsPerWait notes it looks up as well as ahead of each note it reads.
func TestKeepLoadedPacesItsLookUps(t *testing.T) {
	big := strings.Repeat("a line of a long note that no mf-lsp ever wrote\n", 120)
	files := map[string]string{}
	const notes = 300
	for i := range notes {
		files[fmt.Sprintf("data/memory/user/n%03d.md", i)] = note(1, fmt.Sprintf("n%d %s", i, big))
	}
	dir, _, m := openOnDemand(t, files)
	if got := keepLoaded(t, m); got.Kept != notes {
		t.Fatalf("first pass: %+v, want %d kept", got, notes)
	}
	again, err := engine.Open(engine.Options{DataDir: filepath.Join(dir, "data"), ProjectDir: filepath.Join(dir, "project"), BodiesOnDemand: true})
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	got, err := again.KeepLoaded(context.Background(), func(context.Context) { calls.Add(1) })
	if err != nil || got.Known != notes || got.Read != 0 {
		t.Fatalf("second pass: %+v (%v), want %d known and nothing read", got, err, notes)
	}
	if want := int32(notes / engine.KeepLookUpsPerWait); calls.Load() < want {
		t.Errorf("second pass called before %d times over %d look-ups, want at least %d", calls.Load(), notes, want)
	}
}
