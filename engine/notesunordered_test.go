package engine

import (
	"slices"
	"strings"
	"testing"
)

// NotesUnordered holds the notes Notes holds, each once.
func TestNotesUnordered(t *testing.T) {
	note := "---\nrevision: 1\n---\nbody\n"
	m, _ := newTree(t, map[string]string{
		"data/machine-id":                            "m1\n",
		"data/memory/user/zeta.md":                   note,
		"data/memory/user/alpha.md":                  note,
		"data/memory/agent/agent-a/alpha.md":         note,
		"data/memory/account/topics/alpha.md":        note,
		"project/.magicfrog/memory/project/notes.md": note,
	})
	byPath := func(a, b *Note) int { return strings.Compare(a.Path, b.Path) }
	got, want := m.NotesUnordered(), m.Notes()
	slices.SortFunc(got, byPath)
	slices.SortFunc(want, byPath)
	if len(want) != 5 || !slices.Equal(got, want) {
		t.Errorf("NotesUnordered %d notes, want the %d of Notes (5)", len(got), len(want))
	}
}
