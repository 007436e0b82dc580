package lsp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/magicfrog/mf-lsp/session"
)

// TestJournalInPlaceHostWrite: the seed's clawd/ workspace, mounted with
// init --journal (testdata/script/journal_inplace.txtar holds the same tree
// and the CLI's side), is curated in the editor while the host keeps writing
// it: its plain files are notes of Larry's journal, with no
// frontmatter-missing warning, and a host write to the raw daily (a plain
// append, as OpenClaw does) is seen by the server's own watcher, which flags
// the refined day written from it as stale.
func TestJournalInPlaceHostWrite(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	ar, err := txtar.ParseFile(filepath.Join("..", "testdata", "script", "journal_inplace.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if !strings.HasPrefix(f.Name, "clawd/") {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, project, clawd := filepath.Join(dir, "data"), filepath.Join(dir, "project"), filepath.Join(dir, "clawd")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) {
		t.Helper()
		out, err := exec.Command(bin, append(args, "--data-dir", data, "--project", project)...).CombinedOutput()
		if err != nil {
			t.Fatalf("mf-lsp %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run("init", "--agent", "larry", "--journal", clawd)
	run("rollup", "day", "2026-02-17")

	c := start(t)
	c.Initialize(string(session.PathToURI(project)), map[string]any{"dataDir": data, "today": "2026-02-17"})
	waitIndexed(t, c)

	daily := filepath.Join(clawd, "memory", "2026-02-17.md")
	uri := openFile(t, c, daily)
	got, err := c.WaitDiagnostics(uri, nil)
	if err != nil {
		t.Fatal(err)
	}
	if hasCode("frontmatter-missing")(got) {
		t.Errorf("a host's plain daily in a mounted journal is flagged: %s", got.Diagnostics)
	}
	var hover struct{ Contents struct{ Value string } }
	if err := c.Call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri},
		"position": map[string]any{"line": 0, "character": 2}}, &hover); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(hover.Contents.Value, "larry") {
		t.Errorf("hover on the mounted daily does not name Larry's journal: %q", hover.Contents.Value)
	}

	refined := openFile(t, c, filepath.Join(clawd, "memory", "refined", "2026-02-17.md"))
	if got, err := c.WaitDiagnostics(refined, nil); err != nil {
		t.Fatal(err)
	} else if hasCode("rollup-stale")(got) {
		t.Fatalf("the refined day is stale before any host write: %s", got.Diagnostics)
	}
	// The host appends to its daily with a plain file write, not through mf-lsp.
	f, err := os.OpenFile(daily, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("\n- Host: the reminder queue is drained nightly.\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitDiagnostics(refined, hasCode("rollup-stale")); err != nil {
		t.Fatalf("the host's write was not seen: %v", err)
	}
}
