package lsp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/roam"
	"github.com/magicfrog/mf-lsp/lsp/lsptest"
)

// The editor's side of roaming: magicfrog.sync and magicfrog.syncStatus, a
// sync-conflict diagnostic on the conflicting note with Take theirs, Keep
// mine and Merge, and magicfrog.syncResolve.
func TestCommandSyncAndConflict(t *testing.T) {
	c, data, _ := startDemoRich(t)
	dir := t.TempDir()
	remote := filepath.Join(dir, "remote.git")
	if _, err := execCommand(c, "magicfrog.syncStatus", nil); err == nil || !strings.Contains(err.Error(), "no remote") {
		t.Fatalf("status without a remote: %v", err)
	}
	note := filepath.Join(data, "memory", "user", "roaming.md")
	write := func(p, body string, rev int) {
		t.Helper()
		s := "---\nrevision: " + string(rune('0'+rev)) + "\nupdated: 2026-11-30T09:00:00.000Z\n---\n" + body
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(note, "one\ntwo\nthree\n", 1)
	var rep struct {
		Pushed    []struct{ Path string }
		Conflicts []struct{ Path, File string }
	}
	mustExec(t, c, "magicfrog.sync", map[string]any{"remote": remote}, &rep)
	if len(rep.Pushed) == 0 {
		t.Fatalf("nothing sent: %+v", rep)
	}

	// Another machine takes everything and edits the same line.
	other := filepath.Join(dir, "other")
	for _, d := range []string{"memory/user", "memory/device"} {
		if err := os.MkdirAll(filepath.Join(other, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	m, err := engine.Open(engine.Options{DataDir: other, Machine: "other"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := roam.Sync(context.Background(), roam.Options{Memory: m, Remote: remote}); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(other, "memory", "user", "roaming.md"), "one\nTWO (theirs)\nthree\n", 2)
	if _, err := roam.Sync(context.Background(), roam.Options{Memory: m, Remote: remote}); err != nil {
		t.Fatal(err)
	}
	write(note, "one\nTWO (mine)\nthree\n", 2)

	var status struct{ Conflicts []struct{ Path string } }
	mustExec(t, c, "magicfrog.syncStatus", nil, &status)
	if len(status.Conflicts) != 1 {
		t.Fatalf("status: %+v", status)
	}
	mustExec(t, c, "magicfrog.sync", nil, &rep)
	if len(rep.Conflicts) != 1 || rep.Conflicts[0].Path != "user/roaming.md" {
		t.Fatalf("sync: %+v", rep)
	}
	uri := openFile(t, c, note)
	if _, err := c.WaitDiagnostics(uri, hasCode("sync-conflict")); err != nil {
		t.Fatal(err)
	}
	as := actionsFor(t, c, uri)
	findAction(t, as, "Keep mine")
	merge := findAction(t, as, "Merge")
	if merge.Edit == nil || len(merge.Edit.Changes[uri]) != 1 || !strings.Contains(merge.Edit.Changes[uri][0].NewText, "TWO (theirs)") ||
		!strings.Contains(merge.Edit.Changes[uri][0].NewText, "<<<<<<< mine") {
		t.Fatalf("merge action: %+v", merge.Edit)
	}
	take := findAction(t, as, "Take theirs")
	mustExec(t, c, take.Command.Command, take.Command.Arguments[0], nil)
	b, _ := os.ReadFile(note)
	if !strings.Contains(string(b), "TWO (theirs)") || !strings.Contains(string(b), "revision: 3") {
		t.Fatalf("after Take theirs:\n%s", b)
	}
	if _, err := c.WaitDiagnostics(uri, func(p lsptest.PublishedDiagnostics) bool { return !hasCode("sync-conflict")(p) }); err != nil {
		t.Fatal(err)
	}
	wantInvalidParams(t, c, "magicfrog.syncResolve", map[string]any{"path": "user/roaming.md", "keep": "both"}, `"keep"`)
}
