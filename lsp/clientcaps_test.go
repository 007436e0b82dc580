package lsp_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/lsp/lsptest"
	"github.com/magicfrog/mf-lsp/session"
)

// startDemoCaps starts the demo with the test client's capabilities changed by
// edit (capabilities decide: docs/protocol.md, "What the client supports").
func startDemoCaps(t *testing.T, edit func(caps map[string]any)) (c *lsptest.Client, data, project string) {
	t.Helper()
	data, project = demo(t)
	c = start(t)
	p := lsptest.InitializeParams(string(session.PathToURI(project)), map[string]any{"dataDir": data, "today": "2026-11-30"})
	edit(p["capabilities"].(map[string]any))
	if _, err := c.CallRaw("initialize", p); err != nil {
		t.Fatal(err)
	}
	if err := c.Notify("initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	waitIndexed(t, c)
	return c, data, project
}

// TestShowEntryWithoutShowDocument: Vim + yegappan/lsp has no
// window/showDocument. "Open the winning version" (and the code lens) then
// answers the note's Location and a message naming its path, not an error.
func TestShowEntryWithoutShowDocument(t *testing.T) {
	c, data, project := startDemoCaps(t, func(caps map[string]any) {
		delete(caps["window"].(map[string]any), "showDocument")
	})
	open := findAction(t, actionsFor(t, c, openFile(t, c, filepath.Join(data, "memory/account/style/code.md"))), "Open the winning version")
	if open.Command == nil {
		t.Fatalf("open the winner: %+v", open)
	}
	var got json.RawMessage
	mustExec(t, c, open.Command.Command, open.Command.Arguments[0], &got)
	winner := string(session.PathToURI(filepath.Join(project, ".magicfrog/memory/style/code.md")))
	var res struct {
		Success bool
		URI     string
		Range   *struct{ Start, End struct{ Line, Character int } }
	}
	if err := json.Unmarshal(got, &res); err != nil || res.Success || res.URI != winner || res.Range == nil || res.Range.Start.Line != 0 {
		t.Errorf("showEntry without showDocument: %s (err %v); want {success: false, uri: %s, range: line 0}", got, err, winner)
	}
	if reqs := c.Requests("window/showDocument"); len(reqs) != 0 {
		t.Errorf("window/showDocument sent to a client without it: %v", reqs)
	}
	if _, err := c.WaitNotification("window/showMessage", func(p json.RawMessage) bool {
		return strings.Contains(string(p), filepath.Join(".magicfrog/memory/style/code.md"))
	}); err != nil {
		t.Errorf("no message naming the path: %v", err)
	}
}

// TestRootedAtANoteFolder: Vim + yegappan/lsp roots the server at the opened
// note's folder, sends no willSave and has no window/showDocument. A root
// inside the data directory is the data directory's (no project), and the
// agent whose folder it is answers: hover says "agent larry", not "no task ·
// no agent". The shadowed shared note's lens and "Open the winning version"
// name larry's note, answered as a Location and a message with its path.
func TestRootedAtANoteFolder(t *testing.T) {
	data, _ := demo(t)
	t.Setenv("MAGICFROG_HOME", data)
	t.Setenv("MAGICFROG_AGENT", "")
	c := start(t)
	root := filepath.Join(data, "memory/agent/larry/notes")
	p := lsptest.InitializeParams(string(session.PathToURI(root)), map[string]any{"today": "2026-11-30"})
	caps := p["capabilities"].(map[string]any)
	delete(caps["window"].(map[string]any), "showDocument")
	delete(caps, "experimental")
	caps["textDocument"].(map[string]any)["synchronization"] = map[string]any{"didSave": true}
	if _, err := c.CallRaw("initialize", p); err != nil {
		t.Fatal(err)
	}
	if err := c.Notify("initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	waitIndexed(t, c)

	own := openFile(t, c, filepath.Join(root, "style.md"))
	if _, err := c.WaitDiagnostics(own, nil); err != nil {
		t.Fatal(err)
	}
	if h := hoverAt(t, c, own, 0, 0); h == nil || !strings.Contains(h.Contents.Value, "agent `larry`") || strings.Contains(h.Contents.Value, "no agent") {
		t.Errorf("hover on larry's note, rooted at its folder: %+v; want it seen as agent larry", h)
	}

	shared := openFile(t, c, filepath.Join(data, "memory/agent/notes/style.md"))
	winner := string(session.PathToURI(filepath.Join(root, "style.md")))
	var lenses []codeLens
	if err := c.Call("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": shared}}, &lenses); err != nil {
		t.Fatal(err)
	}
	if len(lenses) != 1 || lenses[0].Command == nil || len(lenses[0].Command.Arguments) != 1 || lenses[0].Command.Arguments[0]["uri"] != winner {
		t.Fatalf("lens of the shadowed shared note: %+v; want one naming %s", lenses, winner)
	}
	open := findAction(t, actionsFor(t, c, shared), "Open the winning version")
	var res struct {
		Success bool
		URI     string
	}
	mustExec(t, c, open.Command.Command, open.Command.Arguments[0], &res)
	if res.Success || res.URI != winner {
		t.Errorf("open the winner without showDocument: %+v; want its Location %s", res, winner)
	}
	if _, err := c.WaitNotification("window/showMessage", func(p json.RawMessage) bool {
		return strings.Contains(string(p), filepath.Join("agent/larry/notes/style.md"))
	}); err != nil {
		t.Errorf("no message naming larry's note: %v", err)
	}
}
