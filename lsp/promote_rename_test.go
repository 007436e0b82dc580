package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPromoteEditTriggersNoSecondMove: VS Code runs its file participants for
// the RenameFile of an applied WorkspaceEdit, so a promotion from the menu is
// followed by workspace/willRenameFiles for that very move (and
// didRenameFiles after it). The server answers a promotion to another
// dimension with no edits: no link is rewritten, nothing is moved a second
// time; the disk stays as the client's rename left it.
func TestPromoteEditTriggersNoSecondMove(t *testing.T) {
	c, data, project := startDemoRich(t)
	src := filepath.Join(project, ".magicfrog/memory/T-7/notes/progress.md")
	linker := filepath.Join(project, ".magicfrog/memory/T-7/notes/links.md")
	linkText := "---\nrevision: 1\nupdated: 2026-10-01T08:00:00.000Z\n---\nSee [the progress](progress.md).\n"
	if err := os.WriteFile(linker, []byte(linkText), 0o644); err != nil {
		t.Fatal(err)
	}
	uri := openFile(t, c, src)
	editBuffer(t, c, uri, src)
	a := findAction(t, actionsFor(t, c, uri, "refactor.move"), "Promote to agent larry")
	if a.Edit == nil || len(a.Edit.DocumentChanges) != 2 {
		t.Fatalf("promote to agent larry: edit %+v; want the WorkspaceEdit", a.Edit)
	}
	var rn renameFile
	if err := json.Unmarshal(a.Edit.DocumentChanges[1], &rn); err != nil {
		t.Fatal(err)
	}
	files := map[string]any{"files": []any{map[string]any{"oldUri": rn.OldURI, "newUri": rn.NewURI}}}
	var will struct {
		DocumentChanges []json.RawMessage `json:"documentChanges"`
		Changes         map[string]any    `json:"changes"`
	}
	if err := c.Call("workspace/willRenameFiles", files, &will); err != nil {
		t.Fatal(err)
	}
	if len(will.DocumentChanges) != 0 || len(will.Changes) != 0 {
		t.Errorf("willRenameFiles for the promotion's own rename: %+v; want no edits (a promotion rewrites no link)", will)
	}
	// The client moves the file, then tells the server.
	dest := filepath.Join(data, "memory/agent/larry/notes/progress.md")
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(src, dest); err != nil {
		t.Fatal(err)
	}
	if err := c.Notify("workspace/didRenameFiles", files); err != nil {
		t.Fatal(err)
	}
	// A request after the notification: the server has handled it.
	actionsFor(t, c, openFile(t, c, linker))
	if b, _ := os.ReadFile(linker); string(b) != linkText {
		t.Errorf("the linking note changed:\n%s", b)
	}
	if _, err := os.Stat(src); !os.IsNotExist(err) {
		t.Errorf("the old path is back: %v", err)
	}
	b, err := os.ReadFile(dest)
	if err != nil || !strings.Contains(string(b), "revision: 3\n") {
		t.Errorf("the moved note: %q, %v; want the file as moved (revision 3: the buffer's edit is not saved yet)", b, err)
	}
	matches, _ := filepath.Glob(filepath.Join(data, "memory/agent/*/notes/progress.md"))
	if len(matches) != 1 {
		t.Errorf("progress.md under agent/: %v; want only larry's", matches)
	}
}
