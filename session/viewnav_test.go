package session

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
)

// TestViewDefinitionFollowsTheRenderedBlock: in a block the engine rendered,
// definition on each note's opening line and on its body's first line goes
// to the note the block took it from, in every group (user, agent, device).
func TestViewDefinitionFollowsTheRenderedBlock(t *testing.T) {
	data := t.TempDir()
	mem := filepath.Join(data, "memory")
	writeNote(t, filepath.Join(mem, "user", "tone.md"), tone)
	writeNote(t, filepath.Join(mem, "agent", "style.md"), "---\nrevision: 1\n---\nAgent-wide style.\n")
	writeNote(t, filepath.Join(mem, "account", "tone.md"), "---\nrevision: 1\n---\nAccount tone, shadowed.\n")
	writeNote(t, filepath.Join(data, "machine-id"), "m1\n")
	writeNote(t, filepath.Join(mem, "device", "box.md"), "---\nrevision: 1\nmachine: m1\n---\nThis box.\n")
	s := New(Options{})
	s.SetSettings(Settings{DataDir: data, Today: "2026-11-30"})
	if _, err := s.Load(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	snap, err := s.Snapshot("")
	if err != nil {
		t.Fatal(err)
	}
	b, err := snap.Memory.Render(engine.RenderOptions{Scope: snap.Participant})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"tone.md": filepath.Join(mem, "user", "tone.md"), "style.md": filepath.Join(mem, "agent", "style.md"), "box.md": filepath.Join(mem, "device", "box.md")}
	found := 0
	off := 0
	for _, line := range strings.SplitAfter(b.Text, "\n") {
		if p := pathAttrRE.FindStringSubmatch(line); p != nil && p[1] == "note" {
			found++
			for _, at := range []int{off + 1, off + len(line) + 1} { // the opening line, the body's first line
				got := ViewDefinition(snap, []byte(b.Text), at)
				if len(got) != 1 || got[0].Path != want[p[2]] {
					t.Errorf("definition at %d (%s): %+v, want %s", at, strings.TrimSpace(line), got, want[p[2]])
				}
			}
		}
		off += len(line)
	}
	if found != len(want) {
		t.Fatalf("the block renders %d notes, want %d:\n%s", found, len(want), b.Text)
	}
}
