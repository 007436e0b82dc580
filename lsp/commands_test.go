package lsp_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/lsp/internal/jsonrpc"

	"github.com/magicfrog/mf-lsp/engine/errcode"
	"github.com/magicfrog/mf-lsp/lsp"
	"github.com/magicfrog/mf-lsp/lsp/lsptest"
	"github.com/magicfrog/mf-lsp/session"
)

// execCommand runs workspace/executeCommand with one argument (nil: none).
func execCommand(c *lsptest.Client, command string, arg any) (json.RawMessage, error) {
	params := map[string]any{"command": command}
	if arg != nil {
		params["arguments"] = []any{arg}
	}
	return c.CallRaw("workspace/executeCommand", params)
}

func mustExec(t *testing.T, c *lsptest.Client, command string, arg any, v any) {
	t.Helper()
	raw, err := execCommand(c, command, arg)
	if err != nil {
		t.Fatalf("%s %v: %v", command, arg, err)
	}
	if v != nil {
		if err := json.Unmarshal(raw, v); err != nil {
			t.Fatalf("%s: %v in %s", command, err, raw)
		}
	}
}

// wantInvalidParams checks a command refuses arg with InvalidParams naming want,
// and that the server keeps serving.
func wantInvalidParams(t *testing.T, c *lsptest.Client, command string, arg any, want string) {
	t.Helper()
	_, err := execCommand(c, command, arg)
	if rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), want) {
		t.Errorf("%s %v: %v; want InvalidParams containing %q", command, arg, err, want)
	}
	// Every InvalidParams answer is coded: invalid-argument, or not-found
	// for a file that is no memory note.
	if d := rpcData(t, err); d.Code != errcode.InvalidArgument && d.Code != errcode.NotFound {
		t.Errorf("%s %v: error data %+v; want code invalid-argument or not-found", command, arg, d)
	}
	alive(t, c)
}

type entryJSON struct {
	Ref, Dimension, Scope, Key, Layer, Path, URI, Updated, Machine, Hash string
	Revision, Tokens                                                     int
	Legacy                                                               bool
}

func TestCommandRender(t *testing.T) {
	c, _, _ := startDemo(t)
	var block string
	mustExec(t, c, "magicfrog.render", nil, &block)
	task, agent := strings.Index(block, `<task id="T-7">`), strings.Index(block, `<agent id="larry">`)
	if !strings.HasPrefix(block, `<memory generation="`) || task < 0 || agent < task {
		t.Fatalf("render: want the task group first, then larry's:\n%s", block)
	}
	// A scope field replaces the session's: no task.
	mustExec(t, c, "magicfrog.render", map[string]any{"task": ""}, &block)
	if strings.Contains(block, `<task id="T-7">`) {
		t.Errorf("render {task: \"\"} still has a task group:\n%s", block)
	}
	// previous: the same view keeps its generation; another one says replaces=.
	gen := block[len(`<memory generation="`):]
	gen = gen[:strings.IndexByte(gen, '"')]
	mustExec(t, c, "magicfrog.render", map[string]any{"previous": gen}, &block)
	if !strings.Contains(block, `replaces="`+gen+`"`) {
		t.Errorf("render with the previous generation of another view: no replaces=%q:\n%.200s", gen, block)
	}
	// A budget leaves notes out visibly.
	mustExec(t, c, "magicfrog.render", map[string]any{"budget": 40}, &block)
	if !strings.Contains(block, `reason="budget"`) {
		t.Errorf("render with budget 40: nothing omitted:\n%s", block)
	}
	wantInvalidParams(t, c, "magicfrog.render", map[string]any{"budget": -1}, "budget")
	wantInvalidParams(t, c, "magicfrog.render", map[string]any{"agents": "larry"}, "invalid argument")
	wantInvalidParams(t, c, "magicfrog.render", "not an object", "invalid argument")
}

func TestCommandEffectiveViewAndDescribe(t *testing.T) {
	c, data, project := startDemo(t)
	var view struct {
		Keys []struct {
			Key      string
			Winner   entryJSON
			Shadowed []entryJSON
		}
		Device, Skills []entryJSON
	}
	mustExec(t, c, "magicfrog.effectiveView", map[string]any{}, &view)
	found := false
	for _, k := range view.Keys {
		if k.Key != "style/code.md" {
			continue
		}
		found = true
		if k.Winner.Dimension != "task" || len(k.Shadowed) != 2 || k.Shadowed[0].Dimension != "user" || k.Shadowed[1].Dimension != "account" {
			t.Errorf("style/code.md: winner %+v shadowed %+v; want task over user, account", k.Winner, k.Shadowed)
		}
		if k.Winner.URI != string(session.PathToURI(filepath.Join(project, ".magicfrog/memory/style/code.md"))) || k.Winner.Tokens <= 0 || k.Winner.Revision != 2 || k.Winner.Hash == "" {
			t.Errorf("winner entry: %+v", k.Winner)
		}
	}
	if !found {
		t.Errorf("no style/code.md key in %+v", view.Keys)
	}
	if len(view.Skills) != 1 || view.Skills[0].Key != "skills/review.md" || view.Skills[0].Layer != "skills" {
		t.Errorf("skills: %+v", view.Skills)
	}
	if len(view.Device) == 0 {
		t.Errorf("no device notes")
	}

	var d struct {
		entryJSON
		Effective  bool
		ShadowedBy *entryJSON
		Shadows    []entryJSON
	}
	mustExec(t, c, "magicfrog.describe", map[string]any{"uri": session.PathToURI(filepath.Join(data, "memory/account/style/code.md"))}, &d)
	if d.Dimension != "account" || d.Key != "style/code.md" || d.Effective || d.ShadowedBy == nil || d.ShadowedBy.Dimension != "task" {
		t.Errorf("describe account/style/code.md: %+v (shadowedBy %+v)", d.entryJSON, d.ShadowedBy)
	}
	d.ShadowedBy = nil
	mustExec(t, c, "magicfrog.describe", map[string]any{"uri": session.PathToURI(filepath.Join(project, ".magicfrog/memory/style/code.md"))}, &d)
	if !d.Effective || d.ShadowedBy != nil || len(d.Shadows) != 2 {
		t.Errorf("describe the winner: effective %v shadowedBy %+v shadows %d", d.Effective, d.ShadowedBy, len(d.Shadows))
	}
	wantInvalidParams(t, c, "magicfrog.describe", map[string]any{}, `"uri" is required`)
	wantInvalidParams(t, c, "magicfrog.describe", nil, `"uri" is required`)
	wantInvalidParams(t, c, "magicfrog.describe", map[string]any{"uri": "untitled:1"}, "not a file URI")
	wantInvalidParams(t, c, "magicfrog.describe", map[string]any{"uri": session.PathToURI(filepath.Join(project, "README.md"))}, "not a memory note")
	_, err := execCommand(c, "magicfrog.describe", map[string]any{"uri": session.PathToURI(filepath.Join(project, "README.md"))})
	if d := rpcData(t, err); d.Code != errcode.NotFound {
		t.Errorf("describe README.md: error data %+v; want not-found", d)
	}
}

func TestCommandPromote(t *testing.T) {
	c, data, project := startDemo(t)
	src := filepath.Join(project, ".magicfrog/memory/T-7/notes/progress.md")
	var res struct {
		URI      string
		Revision int
		Moved    bool
	}
	mustExec(t, c, "magicfrog.promote", map[string]any{"uri": session.PathToURI(src), "to": "user"}, &res)
	dest := filepath.Join(data, "memory/user/notes/progress.md")
	if res.URI != string(session.PathToURI(dest)) || res.Revision != 1 || !res.Moved {
		t.Errorf("promote to user: %+v", res)
	}
	if _, err := os.Stat(src); !os.IsNotExist(err) {
		t.Errorf("the source is still there: %v", err)
	}
	if b, _ := os.ReadFile(dest); !strings.Contains(string(b), "T-7: the export command is done") {
		t.Errorf("destination:\n%s", b)
	}
	if _, err := c.WaitNotification("magicfrog/memoryChanged", nil); err != nil {
		t.Fatal(err)
	}

	// Into the skills layer of its own dimension, as a copy.
	mustExec(t, c, "magicfrog.promote", map[string]any{"uri": session.PathToURI(filepath.Join(data, "memory/account/tone.md")), "to": "skills", "copy": true}, &res)
	if res.URI != string(session.PathToURI(filepath.Join(data, "memory/account/skills/tone.md"))) || res.Moved {
		t.Errorf("promote to skills: %+v", res)
	}

	// A destination updated after the source is never overwritten.
	newer := filepath.Join(data, "memory/user/notes/style.md")
	newerText := "---\nrevision: 1\nupdated: 2030-01-01T00:00:00.000Z\n---\nMy own newer style.\n"
	if err := os.WriteFile(newer, []byte(newerText), 0o644); err != nil {
		t.Fatal(err)
	}
	larry := filepath.Join(data, "memory/agent/larry/notes/style.md")
	// Until the watcher reports the new file, the store refuses the write as stale
	// (it expected to create the note); then promote itself refuses.
	var err error
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		_, err = execCommand(c, "magicfrog.promote", map[string]any{"uri": session.PathToURI(larry), "to": "user"})
		if !strings.Contains(fmt.Sprint(err), "stale") {
			break
		}
	}
	if rpcCode(err) != lsp.CodeRequestFailed || !strings.Contains(err.Error(), "refused") {
		t.Errorf("promote onto a newer destination: %v; want RequestFailed refused", err)
	}
	if b, _ := os.ReadFile(newer); string(b) != newerText {
		t.Errorf("the newer destination was changed:\n%s", b)
	}
	if _, err := os.Stat(larry); err != nil {
		t.Errorf("the source was removed: %v", err)
	}

	// An open buffer with unsaved changes, based on the disk, is promoted as
	// the user sees it (issue 23: unsaved edits are never stranded;
	// TestPromoteCommandSavesTheBuffer and TestPromoteActionAfterTheDiskMoved).
	tone := filepath.Join(data, "memory/account/tone.md")
	uri := openFile(t, c, tone)
	_ = c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": "---\nrevision: 2\n---\nunsaved\n"}}})
	mustExec(t, c, "magicfrog.promote", map[string]any{"uri": uri, "to": "user"}, &res)
	if b, _ := os.ReadFile(filepath.Join(data, "memory/user/tone.md")); !strings.Contains(string(b), "unsaved") || !res.Moved {
		t.Errorf("promote a dirty buffer: %+v\n%s", res, b)
	}

	wantInvalidParams(t, c, "magicfrog.promote", map[string]any{"to": "user"}, `"uri" is required`)
	wantInvalidParams(t, c, "magicfrog.promote", map[string]any{"uri": session.PathToURI(larry)}, `"to" is required`)
	wantInvalidParams(t, c, "magicfrog.promote", map[string]any{"uri": session.PathToURI(larry), "to": "galaxy"}, `"to"`)
	wantInvalidParams(t, c, "magicfrog.promote", map[string]any{"uri": session.PathToURI(larry), "to": "user", "scope": "larry"}, "no ID")
	wantInvalidParams(t, c, "magicfrog.promote", map[string]any{"uri": session.PathToURI(filepath.Join(data, "memory/user/none.md")), "to": "account"}, "not a note on disk")
}

func TestCommandExportImport(t *testing.T) {
	c, data, _ := startDemo(t)
	dir := t.TempDir()
	var ex struct{ Written int }
	mustExec(t, c, "magicfrog.export", map[string]any{"dir": dir}, &ex)
	if ex.Written == 0 {
		t.Fatal("export wrote nothing")
	}
	if _, err := os.Stat(filepath.Join(dir, "user/skills/review.md")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "machine")); !os.IsNotExist(err) {
		t.Errorf("device notes exported without withDevice")
	}
	// Importing the same tree changes nothing; a changed note at a higher revision is taken.
	tone := filepath.Join(dir, "account/tone.md")
	if err := os.WriteFile(tone, []byte("---\nrevision: 9\nupdated: 2026-11-30T08:00:00.000Z\n---\nImported tone.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var im struct {
		Imported, Unchanged int
		URIs                []string
		Skipped             []struct {
			From, Reason string
			Kept         bool
		}
	}
	mustExec(t, c, "magicfrog.import", map[string]any{"dir": dir}, &im)
	if im.Imported != 1 || im.Unchanged != ex.Written-1 || len(im.Skipped) != 0 || len(im.URIs) != 1 {
		t.Errorf("import: %+v (exported %d)", im, ex.Written)
	}
	if b, _ := os.ReadFile(filepath.Join(data, "memory/account/tone.md")); !strings.Contains(string(b), "Imported tone.") {
		t.Errorf("account/tone.md after import:\n%s", b)
	}
	wantInvalidParams(t, c, "magicfrog.export", map[string]any{}, `"dir" is required`)
	wantInvalidParams(t, c, "magicfrog.import", map[string]any{"dir": filepath.Join(dir, "nope")}, "not a folder")
}

func TestCommandRollupDueWithProgress(t *testing.T) {
	c, _, project := startDemo(t)
	journal := filepath.Join(project, ".magicfrog/memory/journal")
	var res struct {
		Written  []string
		UpToDate int
		Failed   []struct{ Ref, Error string }
		Lessons  []struct{ URI, Text string }
	}
	raw, err := c.CallRaw("workspace/executeCommand", map[string]any{
		"command": "magicfrog.rollup", "arguments": []any{map[string]any{"kind": "due"}}, "workDoneToken": "rollup-1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Written) != 8 || len(res.Failed) != 0 {
		t.Fatalf("rollup due: %s", raw)
	}
	for _, name := range []string{"refined/2026-11-23.md", "refined/2026-11-29.md", "weekly/2026-W48.md"} {
		if _, err := os.Stat(filepath.Join(journal, name)); err != nil {
			t.Error(err)
		}
	}
	// $/progress on the request's token: begin, reports, end.
	kinds := map[string]int{}
	err = c.WaitFor("progress end", func(r lsptest.Recorded) bool {
		kinds = map[string]int{}
		for _, m := range r.Notifications {
			var p struct {
				Token string
				Value struct{ Kind string }
			}
			if m.Method == "$/progress" && json.Unmarshal(m.Params, &p) == nil && p.Token == "rollup-1" {
				kinds[p.Value.Kind]++
			}
		}
		return kinds["end"] == 1
	})
	if err != nil || kinds["begin"] != 1 || kinds["report"] < 8 {
		t.Errorf("progress on rollup-1: %v (%v)", kinds, err)
	}
	// Again: everything is up to date.
	mustExec(t, c, "magicfrog.rollup", map[string]any{"kind": "due"}, &res)
	if len(res.Written) != 0 {
		t.Errorf("second due wrote %v", res.Written)
	}

	// A month proposes lessons: returned, and offered as a reviewable edit of MEMORY.md.
	mustExec(t, c, "magicfrog.rollup", map[string]any{"kind": "month", "period": "2026-11"}, &res)
	if len(res.Written) != 1 || len(res.Lessons) == 0 {
		t.Fatalf("rollup month: %+v", res)
	}
	err = c.WaitFor("applyEdit", func(r lsptest.Recorded) bool {
		for _, m := range r.Requests {
			if m.Method == "workspace/applyEdit" && strings.Contains(string(m.Params), `"label":"Promote lessons to MEMORY.md"`) &&
				strings.Contains(string(m.Params), "MEMORY.md") && strings.Contains(string(m.Params), res.Lessons[0].Text[:10]) {
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Errorf("%v\nlog: %v\nrequests: %v", err, c.Notifications("window/logMessage"), c.Requests("workspace/applyEdit"))
	}

	wantInvalidParams(t, c, "magicfrog.rollup", map[string]any{}, `"kind" is required`)
	wantInvalidParams(t, c, "magicfrog.rollup", map[string]any{"kind": "yearly"}, "day, week, month or due")
	wantInvalidParams(t, c, "magicfrog.rollup", map[string]any{"kind": "week"}, `"period" is required`)
	wantInvalidParams(t, c, "magicfrog.rollup", map[string]any{"kind": "week", "period": "2026-11-30"}, "magicfrog.rollup")
	wantInvalidParams(t, c, "magicfrog.rollup", map[string]any{"kind": "due", "period": "2026-11"}, "no period")
}

func TestCommandTodayAndShowEntry(t *testing.T) {
	c, _, project := startDemo(t)
	var res struct {
		URI     string
		Created bool
	}
	mustExec(t, c, "magicfrog.today", map[string]any{"dimension": "task"}, &res)
	want := filepath.Join(project, ".magicfrog/memory/journal/2026-11-30.md")
	if res.URI != string(session.PathToURI(want)) || !res.Created {
		t.Errorf("today: %+v; want %s created", res, want)
	}
	if b, err := os.ReadFile(want); err != nil || !strings.Contains(string(b), "revision: 1") || !strings.Contains(string(b), "# 2026-11-30 (Monday)") {
		t.Errorf("today's note: %v\n%s", err, b)
	}
	mustExec(t, c, "magicfrog.today", nil, &res)
	if res.Created {
		t.Errorf("today again: created")
	}
	wantInvalidParams(t, c, "magicfrog.today", map[string]any{"dimension": "galaxy"}, "dimension")
	wantInvalidParams(t, c, "magicfrog.today", map[string]any{"dimension": "user", "scope": "x"}, "no ID")

	var shown struct{ Success bool }
	mustExec(t, c, "magicfrog.showEntry", map[string]any{"uri": res.URI}, &shown)
	if !shown.Success {
		t.Errorf("showEntry: %+v", shown)
	}
	reqs := c.Requests("window/showDocument")
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Params), `"takeFocus":true`) || !strings.Contains(string(reqs[0].Params), res.URI) {
		t.Errorf("window/showDocument requests: %v", reqs)
	}
	wantInvalidParams(t, c, "magicfrog.showEntry", map[string]any{}, `"uri" is required`)
}

// TestCommandBootSet: magicfrog.render's earlier adds the refined days before
// yesterday; effectiveView lists the boot set in the block's order.
func TestCommandBootSet(t *testing.T) {
	c, _, _ := startDemo(t) // today 2026-11-30
	var block string
	mustExec(t, c, "magicfrog.render", map[string]any{"earlier": 10}, &block)
	i19, i20, i29 := strings.Index(block, `path="journal/refined/2026-11-19.md"`), strings.Index(block, `path="journal/refined/2026-11-20.md"`), strings.Index(block, `path="journal/2026-11-29.md"`)
	if i29 < 0 || i19 < i29 || i20 < i19 || strings.Contains(block, "refined/2026-11-18.md") {
		t.Errorf("render {earlier: 10}: want 11-29's daily, then refined 11-19, 11-20:\n%s", block)
	}
	wantInvalidParams(t, c, "magicfrog.render", map[string]any{"earlier": -1}, "earlier")
	var view struct{ Boot []entryJSON }
	mustExec(t, c, "magicfrog.effectiveView", map[string]any{}, &view)
	var keys []string
	for _, e := range view.Boot {
		keys = append(keys, e.Key)
	}
	want := "journal/2026-11-29.md journal/MEMORY.md journal/sticky-notes/infrastructure.md journal/sticky-notes/preferences.md"
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("effectiveView boot: %s\nwant %s", got, want)
	}
}
