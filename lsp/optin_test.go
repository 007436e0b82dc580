package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/lsp"
	"github.com/magicfrog/mf-lsp/lsp/lsptest"
	"github.com/magicfrog/mf-lsp/session"
)

// TestOwnNotificationsAreOptIn is the lsp-mode case: a client that does
// not list mf-lsp's own notifications in experimental.magicfrog.notifications
// (lsp-mode warns "Unknown notification" for each one) gets none of them, and
// is not offered Compare, whose only effect is magicfrog/compare. It still gets
// what standard LSP carries: the republished diagnostics and the question.
func TestOwnNotificationsAreOptIn(t *testing.T) {
	data, project := demo(t)
	c := serveInProcess(t, lsp.Options{})
	c.Reply("window/showMessageRequest", func(json.RawMessage) (any, error) { return nil, nil })
	p := lsptest.InitializeParams(string(session.PathToURI(project)), map[string]any{"dataDir": data, "today": "2026-11-30"})
	delete(p["capabilities"].(map[string]any), "experimental")
	if _, err := c.CallRaw("initialize", p); err != nil {
		t.Fatal(err)
	}
	if err := c.Notify("initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(data, "memory/account/tone.md")
	disk, _ := os.ReadFile(path)
	uri := openSettled(t, c, path)
	setText(t, c, uri, 2, string(disk)+"My edit.\n")
	// An agent writes (the tree changes: an opted-in client would get
	// magicfrog/memoryChanged), then the save conflicts.
	agentWrite(t, data, project, "account", "tone.md", "1", "The agent's tone rule.\n")
	if _, err := c.WaitDiagnostics(uri, hasCode("stale-revision")); err != nil {
		t.Fatal(err)
	}
	willSave(t, c, uri)
	_, actions := messageRequest(t, c)
	if strings.Join(actions, "|") != "Take disk version|Keep mine as next revision" {
		t.Errorf("actions offered to a client without magicfrog/compare: %q", actions)
	}
	time.Sleep(300 * time.Millisecond) // past memoryChanged's 50 ms gathering pause
	for _, m := range []string{"magicfrog/memoryChanged", "magicfrog/compare"} {
		if n := len(c.Notifications(m)); n != 0 {
			t.Errorf("%d %s notifications sent to a client that did not opt in", n, m)
		}
	}
}
