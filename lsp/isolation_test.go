package lsp_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/engine/errcode"
	"github.com/magicfrog/mf-lsp/lsp"
	"github.com/magicfrog/mf-lsp/lsp/lsptest"
	"github.com/magicfrog/mf-lsp/session"
)

// TestParticipant: the editor answers for one agent, the participant setting
// (SPEC §5: one participant per block). render and the effective view take a
// participant argument (the render preview's picker); describe (hover, code
// lens) answers for the session's participant.
func TestParticipant(t *testing.T) {
	data, project := demo(t)
	c := start(t)
	c.Initialize(string(session.PathToURI(project)), map[string]any{"dataDir": data, "today": "2026-11-30",
		"agents": []string{"larry", "moe"}, "participant": "moe"})
	waitIndexed(t, c)

	var block string
	mustExec(t, c, "magicfrog.render", nil, &block)
	if !strings.Contains(block, `agents="moe"`) || !strings.Contains(block, "Moe owns the billing") || strings.Contains(block, "Larry: lead") {
		t.Errorf("render for participant moe:\n%s", block)
	}
	mustExec(t, c, "magicfrog.render", map[string]any{"participant": "larry"}, &block)
	if !strings.Contains(block, `agents="larry"`) || strings.Contains(block, "Moe owns the billing") || !strings.Contains(block, "Larry: lead") {
		t.Errorf("render with participant larry:\n%s", block)
	}
	// One block is never for two agents.
	_, err := execCommand(c, "magicfrog.render", map[string]any{"agents": []string{"larry", "moe"}})
	if rpcCode(err) != lsp.CodeRequestFailed || !strings.Contains(err.Error(), "one agent") {
		t.Errorf("render for two agents: %v; want RequestFailed", err)
	}
	if d := rpcData(t, err); d.Code != errcode.SeveralAgents || strings.Join(d.Choices, ",") != "larry,moe" {
		t.Errorf("render for two agents: data %+v; want several-agents with the choices", d)
	}
	// Larry's note is not in moe's scope.
	var d struct {
		InScope bool `json:"inScope"`
	}
	mustExec(t, c, "magicfrog.describe", map[string]any{"uri": string(session.PathToURI(filepath.Join(data, "memory/agent/larry/notes/style.md")))}, &d)
	if d.InScope {
		t.Error("larry's note is in scope for participant moe")
	}
	// An unregistered folder is in no one's view.
	mustExec(t, c, "magicfrog.describe", map[string]any{"uri": string(session.PathToURI(filepath.Join(data, "memory/agent/helpers/notes.md")))}, &d)
	if d.InScope {
		t.Error("agent/helpers/ (unregistered) is in scope")
	}
}

// TestPromoteCompareAndSwap: the editor's promotion passes the revisions it
// showed, and an existing destination is never overwritten blind.
func TestPromoteCompareAndSwap(t *testing.T) {
	c, data, _ := startDemo(t)
	tone := string(session.PathToURI(filepath.Join(data, "memory/account/tone.md")))
	var res struct {
		Revision int `json:"revision"`
	}
	mustExec(t, c, "magicfrog.promote", map[string]any{"uri": tone, "to": "user", "copy": true, "sourceRevision": 1}, &res)
	dest := filepath.Join(data, "memory/user/tone.md")
	// Without destRevision: refused, naming the destination's revision.
	_, err := execCommand(c, "magicfrog.promote", map[string]any{"uri": tone, "to": "user", "copy": true})
	if rpcCode(err) != lsp.CodeRequestFailed || !strings.Contains(err.Error(), "destination is at revision 1") {
		t.Errorf("blind overwrite: %v", err)
	}
	// The client decides on data, never on the message: code stale, the
	// destination's revision and hash, and which end.
	if d := rpcData(t, err); d.Code != errcode.Stale || d.Revision == nil || *d.Revision != 1 || len(d.Hash) != 64 || d.End != "destination" {
		t.Errorf("blind overwrite: data %+v", d)
	}
	// A stale sourceRevision is refused too.
	_, err = execCommand(c, "magicfrog.promote", map[string]any{"uri": tone, "to": "user", "copy": true, "sourceRevision": 7, "destRevision": 1})
	if rpcCode(err) != lsp.CodeRequestFailed || !strings.Contains(err.Error(), "source") {
		t.Errorf("stale source: %v", err)
	}
	if d := rpcData(t, err); d.Code != errcode.Stale || d.Revision == nil || *d.Revision != 1 || d.End != "source" {
		t.Errorf("stale source: data %+v", d)
	}
	mustExec(t, c, "magicfrog.promote", map[string]any{"uri": tone, "to": "user", "copy": true, "sourceRevision": 1, "destRevision": 1}, &res)
	if b, _ := os.ReadFile(dest); res.Revision != 2 || !strings.Contains(string(b), "revision: 2") {
		t.Errorf("checked overwrite: revision %d\n%s", res.Revision, b)
	}
	// An unregistered destination ID is refused unless register is set.
	_, err = execCommand(c, "magicfrog.promote", map[string]any{"uri": tone, "to": "agent", "scope": "curly", "copy": true})
	if rpcCode(err) != lsp.CodeRequestFailed || !strings.Contains(err.Error(), "curly") {
		t.Errorf("promote into an unregistered agent: %v", err)
	}
	if d := rpcData(t, err); d.Code != errcode.Unregistered {
		t.Errorf("promote into an unregistered agent: data %+v", d)
	}
	// Argument errors are coded too.
	_, err = execCommand(c, "magicfrog.promote", map[string]any{"uri": tone})
	if d := rpcData(t, err); rpcCode(err) != lsp.CodeInvalidParams || d.Code != errcode.InvalidArgument {
		t.Errorf("promote without to: %v, data %+v", err, d)
	}
	mustExec(t, c, "magicfrog.promote", map[string]any{"uri": tone, "to": "agent", "scope": "curly", "copy": true, "register": true}, &res)
	if b, _ := os.ReadFile(filepath.Join(data, "magicfrog.json")); !strings.Contains(string(b), `"curly"`) {
		t.Errorf("curly not registered:\n%s", b)
	}
}

// TestRegisterTask: the fix of unregistered-task-folder.
func TestRegisterTask(t *testing.T) {
	c, _, project := startDemo(t)
	var res struct {
		Changed bool `json:"changed"`
	}
	mustExec(t, c, "magicfrog.registerTask", map[string]any{"id": "T-9"}, &res)
	b, _ := os.ReadFile(filepath.Join(project, ".magicfrog/config.json"))
	if !res.Changed || !strings.Contains(string(b), `"T-9"`) || !strings.Contains(string(b), `"T-7"`) {
		t.Errorf("registerTask: changed=%v\n%s", res.Changed, b)
	}
	wantInvalidParams(t, c, "magicfrog.registerTask", map[string]any{"id": "../x"}, "cannot be")
}

// TestTodayUnregistered: the editor's today action refuses an unregistered
// scope, naming the fix, and registers it when asked.
func TestTodayUnregistered(t *testing.T) {
	c, data, _ := startDemo(t)
	_, err := execCommand(c, "magicfrog.today", map[string]any{"dimension": "agent", "scope": "nobody"})
	if rpcCode(err) != lsp.CodeRequestFailed || !strings.Contains(err.Error(), `"register": true`) {
		t.Errorf("today into an unregistered agent: %v", err)
	}
	if _, err := os.Stat(filepath.Join(data, "memory/agent/nobody")); !os.IsNotExist(err) {
		t.Errorf("agent/nobody/ was made: %v", err)
	}
	mustExec(t, c, "magicfrog.today", map[string]any{"dimension": "agent", "scope": "nobody", "register": true}, nil)
	if b, _ := os.ReadFile(filepath.Join(data, "magicfrog.json")); !strings.Contains(string(b), `"nobody"`) {
		t.Errorf("nobody not registered:\n%s", b)
	}
}

// TestSeveralAgentsAsked (issue 20): a project bound to two agents and no
// participant chosen: render and the effective view answer RequestFailed
// with data {code: "several-agents", choices}, hover and code lens say no
// agent is chosen instead of answering as the first; after the editor sends
// the participant (workspace/didChangeConfiguration) the same render is
// that agent's block.
func TestSeveralAgentsAsked(t *testing.T) {
	data, project := demo(t)
	cfg := filepath.Join(project, ".magicfrog", "config.json")
	if err := os.WriteFile(cfg, []byte(`{"task": "T-7", "agents": ["larry", "moe"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MAGICFROG_AGENT", "")
	c := start(t)
	c.Initialize(string(session.PathToURI(project)), map[string]any{"dataDir": data, "today": "2026-11-30"})
	waitIndexed(t, c)

	for _, cmd := range []string{"magicfrog.render", "magicfrog.effectiveView"} {
		_, err := execCommand(c, cmd, nil)
		var e *lsptest.Error
		if !errors.As(err, &e) || e.Code != lsp.CodeRequestFailed || len(e.Data) == 0 {
			t.Fatalf("%s with two agents bound: %v; want RequestFailed with data", cmd, err)
		}
		var d struct {
			Code    string   `json:"code"`
			Choices []string `json:"choices"`
		}
		if err := json.Unmarshal(e.Data, &d); err != nil || d.Code != "several-agents" || strings.Join(d.Choices, ",") != "larry,moe" {
			t.Errorf("%s: data %s (%v)", cmd, e.Data, err)
		}
		if !strings.Contains(e.Message, "names 2 agents (larry, moe)") {
			t.Errorf("%s: message %q", cmd, e.Message)
		}
	}
	uri := openFile(t, c, filepath.Join(data, "memory/agent/larry/notes/style.md"))
	var lenses []codeLens
	if err := c.Call("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": uri}}, &lenses); err != nil {
		t.Fatal(err)
	}
	if len(lenses) != 1 || lenses[0].Command == nil || lenses[0].Command.Title != "no agent chosen (larry, moe)" {
		t.Errorf("code lens with no agent chosen: %+v", lenses)
	}
	if h := hoverAt(t, c, uri, 0, 0); h == nil || !strings.Contains(h.Contents.Value, "no agent chosen (larry, moe)") || strings.Contains(h.Contents.Value, "Seen as") {
		t.Errorf("hover with no agent chosen: %+v", h)
	}

	// The editor asked; the user picked moe.
	if err := c.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"magicfrog": map[string]any{"participant": "moe"}}}); err != nil {
		t.Fatal(err)
	}
	var block string
	mustExec(t, c, "magicfrog.render", nil, &block)
	if !strings.Contains(block, `agents="moe"`) || !strings.Contains(block, "Moe owns the billing") || strings.Contains(block, "Larry: lead") {
		t.Errorf("render after choosing moe:\n%s", block)
	}
	var info session.Info
	mustExec(t, c, "magicfrog.sessionInfo", nil, &info)
	if info.Participant != "moe" {
		t.Errorf("sessionInfo after choosing moe: %+v", info)
	}
}
