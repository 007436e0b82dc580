package lsp_test

import (
	"os"
	"path/filepath"
	"testing"
)

// TestExternalChangeInNestedFolder: the server watches every folder the load
// walked, however deep, from the moment it answers: a note written into an
// existing folder two levels below a root (T-7/notes/) shadows the open note
// without a reload.
func TestExternalChangeInNestedFolder(t *testing.T) {
	c, data, project := startDemo(t)
	style := openFile(t, c, filepath.Join(data, "memory/agent/larry/notes/style.md"))
	if _, err := c.WaitDiagnostics(style, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.WaitDiagnostics(style, nil); hasCode("shadowed")(got) {
		t.Fatalf("larry's notes/style.md is shadowed before anything was written: %v", got.Diagnostics)
	}
	task := filepath.Join(project, ".magicfrog/memory/T-7/notes/style.md")
	if err := os.WriteFile(task, []byte("---\nrevision: 1\nupdated: 2026-11-30T08:00:00.000Z\n---\nT-7 style.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitDiagnostics(style, hasCode("shadowed")); err != nil {
		t.Fatal(err)
	}
}
