package session

import (
	"os"
	"path/filepath"
	"testing"
)

// A workspace folder inside a memory tree (Vim + yegappan/lsp roots the
// server at the opened note's folder) is read as the tree it is in.
func TestOutOfMemory(t *testing.T) {
	top := t.TempDir()
	data := filepath.Join(top, "data")
	project := filepath.Join(top, "proj")
	other := filepath.Join(top, "other")
	for _, d := range []string{
		filepath.Join(data, "memory/agent/larry/notes"),
		filepath.Join(project, ".magicfrog/memory/T-7/notes"),
		filepath.Join(other, "memory/agent/.magicfrog"),
	} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(data, "magicfrog.json"), []byte(`{"agents": ["larry"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, data, root, wantData, wantProject string
	}{
		{"a note folder of the data directory", "", filepath.Join(data, "memory/agent/larry/notes"), data, ""},
		{"the memory folder", "", filepath.Join(data, "memory"), data, ""},
		{"the same data directory set", data, filepath.Join(data, "memory/agent"), data, ""},
		{"another data directory set", other, filepath.Join(data, "memory/agent"), other, filepath.Join(data, "memory/agent")},
		{"a folder of a project's task root", "", filepath.Join(project, ".magicfrog/memory/T-7/notes"), "", project},
		{"a project", "", project, "", project},
		{"a folder with its own .magicfrog", "", filepath.Join(other, "memory/agent"), "", filepath.Join(other, "memory/agent")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, p := outOfMemory(tc.data, tc.root)
			if d != tc.wantData || p != tc.wantProject {
				t.Errorf("outOfMemory(%q, %q) = %q, %q; want %q, %q", tc.data, tc.root, d, p, tc.wantData, tc.wantProject)
			}
		})
	}
}
