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
