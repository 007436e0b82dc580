package engine_test

import (
	"runtime"
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
)

// TestBudgetedRenderAllocatesWhatItKeeps: a block under a budget leaves
// most notes of a large memory out, and its render allocates about what the
// block holds, not the size of every note in scope (the buffer was once
// grown to that: 730 MB at 100,000 notes of 8-64 KB, for an 8,000-token
// block). The second render is measured: the first counted every note.
func TestBudgetedRenderAllocatesWhatItKeeps(t *testing.T) {
	data, _, total := userNotes(t, 100, func(int) int { return 400 })
	m, err := engine.Open(engine.Options{DataDir: data})
	if err != nil {
		t.Fatal(err)
	}
	opts := engine.RenderOptions{Scope: m.DefaultScope(), Budget: 2000, Today: "2026-11-30"}
	if _, err := m.Render(opts); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	blk, err := m.Render(opts)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(blk.Omitted) < 90 {
		t.Fatalf("the budget left out %d of 100 notes: want most", len(blk.Omitted))
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > uint64(total/4) {
		t.Fatalf("a render of a %d-byte block allocated %d bytes, the notes in scope being %d", len(blk.Text), got, total)
	}
}
