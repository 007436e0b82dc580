package engine_test

import (
	"runtime"
	"strings"
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

// TestStreamedRenderHoldsOneNote: a block written to its reader
// (Memory.RenderTo) is never held whole, and no note's element is kept
// beside its text: rendering notes of 8-64 KB at 100,000 notes held the
// block three times over (its buffer, its string, the header prepended) and
// every element beside its note, 1.9 GB of peak RSS for a 190 MB block. What
// a render allocates is bounded by a constant times the largest note, not by
// the text in scope; the bytes written are Render's.
func TestStreamedRenderHoldsOneNote(t *testing.T) {
	const notes, lines = 60, 700 // about 24 KB a note, 1.4 MB in scope
	data, _, total := userNotes(t, notes, func(int) int { return lines })
	m, err := engine.Open(engine.Options{DataDir: data})
	if err != nil {
		t.Fatal(err)
	}
	largest := total / notes * 2
	for _, budget := range []int{0, 2000} {
		opts := engine.RenderOptions{Scope: m.DefaultScope(), Budget: budget, Today: "2026-11-30", Previous: "00000000"}
		want, err := m.Render(opts)
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		out.Grow(len(want.Text))
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		blk, err := m.RenderTo(&out, opts)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if out.String() != want.Text || blk.Generation != want.Generation || len(blk.Included) != len(want.Included) || len(blk.Omitted) != len(want.Omitted) {
			t.Fatalf("budget %d: RenderTo wrote %d bytes (generation %s), Render's block is %d (%s)", budget, out.Len(), blk.Generation, len(want.Text), want.Generation)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > uint64(8*largest) {
			t.Fatalf("budget %d: a render to a writer of a %d-byte block allocated %d bytes: want at most 8 times the largest note (%d bytes), not the text in scope (%d)", budget, out.Len(), got, largest, total)
		}
		if budget == 0 && len(blk.Included) != notes {
			t.Fatalf("unbudgeted block holds %d notes, want %d", len(blk.Included), notes)
		}
	}
}
