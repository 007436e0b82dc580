package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/lsp/lsptest"
	"github.com/magicfrog/mf-lsp/session"
)

// Moves are workspace edits (issue 23): "Promote to agent larry" from the
// code-action menu moved the file behind the editor, the buffer stayed on the
// old path and its unsaved edits were stranded.

const unsavedMarker = "unsaved-edit-marker"

// editBuffer replaces the open buffer of uri with its text plus a line, as
// version 2, and returns the new text.
func editBuffer(t *testing.T, c *lsptest.Client, uri, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b) + unsavedMarker + "\n"
	if err := c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": text}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitDiagnostics(uri, func(p lsptest.PublishedDiagnostics) bool { return p.Version != nil && *p.Version == 2 }); err != nil {
		t.Fatal(err)
	}
	return text
}

type renameFile struct {
	Kind           string
	OldURI, NewURI string
	Options        struct{ Overwrite, IgnoreIfExists *bool }
}

type textDocumentEdit struct {
	TextDocument struct {
		URI     string
		Version *int
	}
	Edits []caTextEdit
}

// TestPromoteActionIsAWorkspaceEdit: a client that applies documentChanges
// with rename (VS Code, Neovim) gets the promotion as a WorkspaceEdit: the
// frontmatter edit of the buffer at its version, then a RenameFile to the
// destination promote itself would write, never over an existing file. The
// editor moves the buffer, unsaved edits and all. A destination that exists
// stays the revision-checked command.
func TestPromoteActionIsAWorkspaceEdit(t *testing.T) {
	c, data, project := startDemoRich(t)
	src := filepath.Join(project, ".magicfrog/memory/T-7/notes/progress.md")
	uri := openFile(t, c, src)
	text := editBuffer(t, c, uri, src)

	a := findAction(t, actionsFor(t, c, uri, "refactor.move"), "Promote to agent larry")
	if a.Command != nil || a.Edit == nil || len(a.Edit.DocumentChanges) != 2 {
		t.Fatalf("promote to agent larry: command %+v edit %+v; want a WorkspaceEdit of 2 changes and no command", a.Command, a.Edit)
	}
	var tde textDocumentEdit
	var rn renameFile
	if err := json.Unmarshal(a.Edit.DocumentChanges[0], &tde); err != nil || tde.TextDocument.URI != uri || tde.TextDocument.Version == nil || *tde.TextDocument.Version != 2 {
		t.Fatalf("first change: %s; want the buffer's frontmatter edit at version 2", a.Edit.DocumentChanges[0])
	}
	dest := filepath.Join(data, "memory/agent/larry/notes/progress.md")
	if err := json.Unmarshal(a.Edit.DocumentChanges[1], &rn); err != nil || rn.Kind != "rename" || rn.OldURI != uri ||
		rn.NewURI != string(session.PathToURI(dest)) || rn.Options.Overwrite == nil || *rn.Options.Overwrite || rn.Options.IgnoreIfExists == nil || *rn.Options.IgnoreIfExists {
		t.Fatalf("second change: %s; want a rename to %s that never overwrites", a.Edit.DocumentChanges[1], dest)
	}
	moved := applyTextEdits(t, text, tde.Edits)
	if !strings.Contains(moved, "revision: 4\n") || !strings.Contains(moved, unsavedMarker) || strings.Contains(moved, "2026-10-20T09:12:00.000Z") {
		t.Errorf("the buffer after the edit:\n%s\nwant revision 4 (the next save's), updated now, the unsaved edit kept", moved)
	}
	if _, err := os.Stat(src); err != nil {
		t.Errorf("offering the action touched the source: %v", err)
	}
	// "Move into the skills layer" alike, to the skills layer of its own ID.
	sk := findAction(t, actionsFor(t, c, uri, "refactor.move"), "Move into the skills layer")
	var skRename renameFile
	if sk.Command != nil || sk.Edit == nil || len(sk.Edit.DocumentChanges) != 2 || json.Unmarshal(sk.Edit.DocumentChanges[1], &skRename) != nil ||
		skRename.NewURI != string(session.PathToURI(filepath.Join(project, ".magicfrog/memory/T-7/skills/notes/progress.md"))) {
		t.Errorf("move into skills: command %+v edit %+v", sk.Command, sk.Edit)
	}

	// The client applies it: the file moves with the buffer, which it opens
	// there; saving it writes the buffer's text at the destination.
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(src, dest); err != nil {
		t.Fatal(err)
	}
	_ = c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	newURI := rn.NewURI
	if err := c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": newURI, "languageId": "markdown", "version": 3, "text": moved}}); err != nil {
		t.Fatal(err)
	}
	var edits []caTextEdit
	if err := c.Call("textDocument/willSaveWaitUntil", map[string]any{"textDocument": map[string]any{"uri": newURI}, "reason": 1}, &edits); err != nil {
		t.Fatal(err)
	}
	saved := applyTextEdits(t, moved, edits)
	if !strings.Contains(saved, "revision: 4\n") {
		t.Errorf("the save of the moved buffer:\n%s\nwant revision 4 (one more than the disk's 3)", saved)
	}

	// A destination that exists: the command, with the revision it replaces.
	style := openFile(t, c, filepath.Join(project, ".magicfrog/memory/style/code.md"))
	rep := findAction(t, actionsFor(t, c, style), "Promote to user (replaces revision 4 there)")
	if rep.Edit != nil || rep.Command == nil || rep.Command.Command != "magicfrog.promote" {
		t.Errorf("promote onto an existing note: edit %+v command %+v; want the command", rep.Edit, rep.Command)
	}
}

// TestPromoteActionAfterTheDiskMoved: a buffer based on a version the disk no
// longer holds is not moved by an edit (the move would drop the other
// writer's version): the action is the command, which refuses.
func TestPromoteActionAfterTheDiskMoved(t *testing.T) {
	c, _, project := startDemoRich(t)
	src := filepath.Join(project, ".magicfrog/memory/T-7/notes/progress.md")
	uri := openFile(t, c, src)
	editBuffer(t, c, uri, src)
	writeNote(t, src, "---\nrevision: 9\nupdated: 2026-11-30T08:00:00.000Z\n---\nAn agent's newer progress.\n")
	var a codeAction
	for i := 0; i < 250; i++ { // until the watcher has seen the agent's write
		a = findAction(t, actionsFor(t, c, uri, "refactor.move"), "Promote to agent larry")
		if a.Edit == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if a.Edit != nil || a.Command == nil {
		t.Fatalf("promote a buffer the disk moved past: edit %+v; want the command", a.Edit)
	}
	if _, err := execCommand(c, a.Command.Command, a.Command.Arguments[0]); err == nil || !strings.Contains(err.Error(), "save it first") {
		t.Errorf("the command over a moved disk: %v; want a refusal", err)
	}
	if b, _ := os.ReadFile(src); !strings.Contains(string(b), "An agent's newer progress.") {
		t.Errorf("the source after the refusal:\n%s", b)
	}
}

// TestPromoteCommandSavesTheBuffer: a client without resource operations gets
// the command. It promotes the buffer as the user sees it (the unsaved edit is
// saved at the destination, never stranded) and shows the note where it went
// (window/showDocument).
func TestPromoteCommandSavesTheBuffer(t *testing.T) {
	c, data, project := startDemo(t)
	src := filepath.Join(project, ".magicfrog/memory/T-7/notes/progress.md")
	uri := openFile(t, c, src)
	editBuffer(t, c, uri, src)
	a := findAction(t, actionsFor(t, c, uri, "refactor.move"), "Promote to agent larry")
	if a.Edit != nil || a.Command == nil {
		t.Fatalf("promote without resource operations: edit %+v command %+v; want the command", a.Edit, a.Command)
	}
	var res struct {
		URI   string
		Moved bool
	}
	mustExec(t, c, a.Command.Command, a.Command.Arguments[0], &res)
	dest := filepath.Join(data, "memory/agent/larry/notes/progress.md")
	if b, err := os.ReadFile(dest); err != nil || !strings.Contains(string(b), unsavedMarker) || !strings.Contains(string(b), "T-7: the export command is done") {
		t.Errorf("the destination (%v):\n%s\nwant the buffer's text, unsaved edit included", err, b)
	}
	if _, err := os.Stat(src); !os.IsNotExist(err) {
		t.Errorf("the source is still there: %v", err)
	}
	if err := c.WaitFor("window/showDocument of the moved note", func(r lsptest.Recorded) bool {
		for _, m := range r.Requests {
			if strings.Contains(string(m.Params), res.URI) {
				return true
			}
		}
		return false
	}); err != nil || res.URI != string(session.PathToURI(dest)) || !res.Moved {
		t.Errorf("showDocument %s (result %+v): %v", dest, res, err)
	}
}

// promoteWithoutShowDocument runs "Promote to user" from the menu on task
// T-7's progress note, open with an unsaved edit, in a client with neither
// resource operations nor window/showDocument; the note's URI, old and new file.
func promoteWithoutShowDocument(t *testing.T) (c *lsptest.Client, uri, src, dest string) {
	t.Helper()
	c, data, project := startDemoCaps(t, func(caps map[string]any) {
		delete(caps["window"].(map[string]any), "showDocument")
	})
	src = filepath.Join(project, ".magicfrog/memory/T-7/notes/progress.md")
	uri = openFile(t, c, src)
	editBuffer(t, c, uri, src)
	a := findAction(t, actionsFor(t, c, uri, "refactor.move"), "Promote to user")
	mustExec(t, c, a.Command.Command, a.Command.Arguments[0], nil)
	return c, uri, src, filepath.Join(data, "memory/user/notes/progress.md")
}

// TestPromoteCommandWithoutShowDocument: Vim + yegappan/lsp has neither
// resource operations nor window/showDocument: the command saves the buffer
// at the new place and a message names the new path.
func TestPromoteCommandWithoutShowDocument(t *testing.T) {
	c, _, _, dest := promoteWithoutShowDocument(t)
	if b, _ := os.ReadFile(dest); !strings.Contains(string(b), unsavedMarker) {
		t.Errorf("the destination:\n%s\nwant the unsaved edit", b)
	}
	if _, err := c.WaitNotification("window/showMessage", func(p json.RawMessage) bool {
		return strings.Contains(string(p), dest)
	}); err != nil {
		t.Errorf("no message naming %s: %v", dest, err)
	}
	if reqs := c.Requests("window/showDocument"); len(reqs) != 0 {
		t.Errorf("window/showDocument sent to a client without it: %v", reqs)
	}
}

// TestStrandedBufferNamesWhereItsNoteWent: a client that neither applies a
// RenameFile nor opens documents for the server (eglot 1.9, Vim + yegappan)
// keeps the buffer on the old path after a promotion moved its note. That
// buffer says where the note went (its stale-revision diagnostic), and saving
// it, which the server cannot stop, is said to make a second copy of the note,
// naming the first: never a silent duplicate.
func TestStrandedBufferNamesWhereItsNoteWent(t *testing.T) {
	c, uri, src, dest := promoteWithoutShowDocument(t)
	if _, err := os.Stat(src); !os.IsNotExist(err) {
		t.Fatalf("the source is still on disk after the move (%v)", err)
	}
	names := func(p lsptest.PublishedDiagnostics) bool {
		for _, d := range p.Diagnostics {
			if strings.Contains(string(d), `"code":"stale-revision"`) && strings.Contains(string(d), "promoted to "+dest) {
				return true
			}
		}
		return false
	}
	if _, err := c.WaitDiagnostics(uri, names); err != nil {
		t.Errorf("the stranded buffer has no stale-revision diagnostic naming %s: %v", dest, err)
	}
	open := findAction(t, actionsFor(t, c, uri, "quickfix"), "Open the note where it went")
	if open.Command == nil || open.Command.Command != "magicfrog.showEntry" || len(open.Command.Arguments) != 1 || !strings.Contains(string(open.Command.Arguments[0]), dest) {
		t.Errorf("the fix %+v; want magicfrog.showEntry on %s", open.Command, dest)
	}
	willSave(t, c, uri)
	if _, err := c.WaitNotification("window/showMessage", func(p json.RawMessage) bool {
		return strings.Contains(string(p), "second copy") && strings.Contains(string(p), dest)
	}); err != nil {
		t.Errorf("saving the stranded buffer: no warning that it makes a second copy of %s: %v", dest, err)
	}
}
