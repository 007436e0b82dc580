package lsp_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/lsp/lsptest"
	"github.com/magicfrog/mf-lsp/session"
)

var updatedRE = regexp.MustCompile(`updated: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z`)

func setText(t *testing.T, c *lsptest.Client, uri string, version int, text string) {
	t.Helper()
	if err := c.Notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": version},
		"contentChanges": []any{map[string]any{"text": text}}}); err != nil {
		t.Fatal(err)
	}
}

func willSave(t *testing.T, c *lsptest.Client, uri string) []lspEdit {
	t.Helper()
	var edits []lspEdit
	if err := c.Call("textDocument/willSaveWaitUntil", map[string]any{
		"textDocument": map[string]any{"uri": uri}, "reason": 1}, &edits); err != nil {
		t.Fatal(err)
	}
	return edits
}

// editorSave writes text as the editor would and sends didSave.
func editorSave(t *testing.T, c *lsptest.Client, uri, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.Notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": uri}}); err != nil {
		t.Fatal(err)
	}
}

// agentWrite writes a note through the mf-lsp binary: another process, as an agent
// would, with the revision it expects on disk.
func agentWrite(t *testing.T, data, project, dim, key, expect, body string) {
	t.Helper()
	cmd := exec.Command(binary(t), "write", "--data-dir", data, "--project", project,
		"--dimension", dim, "--key", key, "--expect-revision", expect)
	cmd.Stdin = strings.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mf-lsp write: %v\n%s", err, out)
	}
}

// diskBecomes waits up to 5 s for the file at path to hold want, and returns
// what it holds then.
func diskBecomes(path, want string) string {
	return diskUntil(path, func(s string) bool { return s == want })
}

// diskUntil waits up to 5 s for the file at path to satisfy ok, and returns
// what it holds then.
func diskUntil(path string, ok func(string) bool) string {
	var b []byte
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, _ = os.ReadFile(path); ok(string(b)) {
			break
		}
	}
	return string(b)
}

// editTone opens the demo's account/tone.md and adds "My edit." to its buffer
// (version 2), unsaved: the buffer a save conflict is about.
func editTone(t *testing.T, c *lsptest.Client, data string) (path, uri, mine string) {
	t.Helper()
	path = filepath.Join(data, "memory/account/tone.md")
	disk, _ := os.ReadFile(path)
	uri = openSettled(t, c, path)
	mine = string(disk) + "My edit.\n"
	setText(t, c, uri, 2, mine)
	return path, uri, mine
}

// openSettled opens a file and waits for its first diagnostics: the server has
// read the disk version the buffer is based on.
func openSettled(t *testing.T, c *lsptest.Client, path string) string {
	t.Helper()
	uri := openFile(t, c, path)
	if _, err := c.WaitDiagnostics(uri, nil); err != nil {
		t.Fatal(err)
	}
	return uri
}

func putFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestWillSaveBumpsRevision(t *testing.T) {
	c, data, _ := startDemo(t)
	path := filepath.Join(data, "memory/account/tone.md")
	disk, _ := os.ReadFile(path)
	uri := openFile(t, c, path)
	text := string(disk) + "Sign off with the ticket number.\n"
	setText(t, c, uri, 2, text)
	edits := willSave(t, c, uri)
	got := applyLSPEdits(t, text, edits)
	want := updatedRE.ReplaceAllString(strings.Replace(text, "revision: 1", "revision: 2", 1), "UPDATED")
	if updatedRE.ReplaceAllString(got, "UPDATED") != want || strings.Contains(got, "2026-08-14T08:30:00.000Z") {
		t.Fatalf("after the bump:\n%s\nwant revision 2 and a new updated:\n%s", got, want)
	}

	// The editor writes it; the next save goes on from the new disk version.
	setText(t, c, uri, 3, got)
	editorSave(t, c, uri, path, got)
	if edits := willSave(t, c, uri); len(edits) != 0 {
		t.Errorf("a save with nothing changed bumped: %+v", edits)
	}
	text = got + "More.\n"
	setText(t, c, uri, 4, text)
	if got := applyLSPEdits(t, text, willSave(t, c, uri)); !strings.Contains(got, "revision: 3\n") {
		t.Errorf("second save:\n%s\nwant revision 3", got)
	}
	// Saving twice without writing never skips a number.
	if got := applyLSPEdits(t, text, willSave(t, c, uri)); !strings.Contains(got, "revision: 3\n") {
		t.Errorf("repeated willSave:\n%s\nwant revision 3 again", got)
	}
}

func TestWillSaveCRLFUnicodeAndBrokenFrontmatter(t *testing.T) {
	c, data, _ := startDemo(t)
	// No frontmatter, CRLF: a block is added with CRLF line ends.
	plain := filepath.Join(data, "memory/user/editor.md")
	if err := os.WriteFile(plain, []byte("Use two-space indentation 🐸 in YAML.\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	uri := openFile(t, c, plain)
	text := "Use two-space indentation 🐸 in YAML.\r\nAnd four in Python.\r\n"
	setText(t, c, uri, 2, text)
	got := applyLSPEdits(t, text, willSave(t, c, uri))
	if !regexp.MustCompile(`^---\r\nrevision: 1\r\nupdated: [^\r\n]+Z\r\n---\r\n`).MatchString(got) || !strings.HasSuffix(got, "\r\n---\r\n"+text) {
		t.Errorf("no-frontmatter note after the bump: %q", got)
	}

	// CRLF frontmatter with characters outside the BMP and no `updated`: revision
	// replaced in place, `updated` added before the closing line, nothing else moved.
	uni := filepath.Join(data, "memory/user/notes/frog.md")
	orig := "---\r\ntitle: \"🐸🐸 frög\"\r\nrevision: 4\r\n---\r\n🐸 body\r\n"
	putFile(t, uni, orig)
	uri = openFile(t, c, uni)
	text = orig + "é more\r\n"
	setText(t, c, uri, 2, text)
	got = applyLSPEdits(t, text, willSave(t, c, uri))
	re := regexp.MustCompile(`^---\r\ntitle: "🐸🐸 frög"\r\nrevision: 5\r\nupdated: \d{4}-[^\r\n]+Z\r\n---\r\n🐸 body\r\né more\r\n$`)
	if !re.MatchString(got) {
		t.Errorf("CRLF/Unicode note after the bump: %q", got)
	}

	// Frontmatter that does not parse is never touched.
	broken := filepath.Join(data, "memory/user/notes/broken.md")
	orig = "---\nrevision: [1\n---\nbody\n"
	putFile(t, broken, orig)
	uri = openFile(t, c, broken)
	setText(t, c, uri, 2, orig+"x\n")
	if edits := willSave(t, c, uri); len(edits) != 0 {
		t.Errorf("edits on unparseable frontmatter: %+v", edits)
	}
}

func TestWillSaveAutoRevisionOff(t *testing.T) {
	data, project := demo(t)
	c := start(t)
	c.Initialize(string(session.PathToURI(project)), map[string]any{"dataDir": data, "autoRevision": false})
	waitIndexed(t, c)
	path := filepath.Join(data, "memory/account/tone.md")
	disk, _ := os.ReadFile(path)
	uri := openFile(t, c, path)
	setText(t, c, uri, 2, string(disk)+"x\n")
	if edits := willSave(t, c, uri); len(edits) != 0 {
		t.Errorf("autoRevision off: edits %+v", edits)
	}
}

// messageRequest waits for window/showMessageRequest and returns its params.
func messageRequest(t *testing.T, c *lsptest.Client) (msg string, actions []string) {
	t.Helper()
	var params struct {
		Message string
		Actions []struct{ Title string }
	}
	err := c.WaitFor("window/showMessageRequest", func(r lsptest.Recorded) bool {
		for _, m := range r.Requests {
			if m.Method == "window/showMessageRequest" {
				_ = json.Unmarshal(m.Params, &params)
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range params.Actions {
		actions = append(actions, a.Title)
	}
	return params.Message, actions
}

// appliedEdit waits for workspace/applyEdit and returns the edits for uri.
func appliedEdit(t *testing.T, c *lsptest.Client, uri string) []lspEdit {
	t.Helper()
	var params struct {
		Edit struct{ Changes map[string][]lspEdit }
	}
	err := c.WaitFor("workspace/applyEdit", func(r lsptest.Recorded) bool {
		for _, m := range r.Requests {
			if m.Method == "workspace/applyEdit" {
				_ = json.Unmarshal(m.Params, &params)
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatal(err)
	}
	return params.Edit.Changes[uri]
}

func chooseAction(title string) lsptest.Reply {
	return func(json.RawMessage) (any, error) { return map[string]any{"title": title}, nil }
}

func TestSaveConflictKeepMine(t *testing.T) {
	c, data, project := startDemoAt(t, steppingClock(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), time.Second))
	c.Reply("window/showMessageRequest", chooseAction("Keep mine as next revision"))
	_, uri, mine := editTone(t, c, data)

	// An agent writes revision 2 while the buffer is dirty; the save comes at once,
	// before the file watcher may have reported it.
	agentWrite(t, data, project, "account", "tone.md", "1", "The agent's tone rule.\n")
	if edits := willSave(t, c, uri); len(edits) != 0 {
		t.Fatalf("conflicting save got edits %+v; want none", edits)
	}
	if _, err := c.WaitDiagnostics(uri, hasCode("stale-revision")); err != nil {
		t.Fatal(err)
	}
	msg, actions := messageRequest(t, c)
	if strings.Join(actions, "|") != "Take disk version|Keep mine as next revision|Compare" {
		t.Errorf("actions %q (the agent rewrote the line the buffer appended after: no Merge)", actions)
	}
	mustContain(t, "conflict message", msg, "revision 2 on disk", "read revision 1")

	got := applyLSPEdits(t, mine, appliedEdit(t, c, uri))
	if !strings.Contains(got, "revision: 3\n") || !strings.HasSuffix(got, "My edit.\n") || !strings.Contains(got, "updated: 2026-11-30T09:00:") {
		t.Fatalf("Keep mine gave:\n%s\nwant revision 3 (disk 2 + 1), my edit and updated from the server's clock", got)
	}
	// The editor applies it; the buffer is now based on the disk version, so the
	// stale diagnostic goes and the next save goes through as revision 3.
	setText(t, c, uri, 3, got)
	if _, err := c.WaitDiagnostics(uri, func(p lsptest.PublishedDiagnostics) bool {
		return p.Version != nil && *p.Version == 3 && !hasCode("stale-revision")(p)
	}); err != nil {
		t.Fatal(err)
	}
	// The clock has moved on since Keep mine wrote `updated`: the edits are not empty.
	edits := willSave(t, c, uri)
	if next := applyLSPEdits(t, got, edits); len(edits) == 0 || !strings.Contains(next, "revision: 3\n") {
		t.Errorf("save after Keep mine: edits %+v →\n%s\nwant revision 3", edits, next)
	}
}

func TestSaveConflictTakeDisk(t *testing.T) {
	c, data, project := startDemo(t)
	// The user answers only after the editor has written its buffer over the
	// agent's version (a language server cannot stop the save itself).
	answer := make(chan struct{})
	c.Reply("window/showMessageRequest", func(json.RawMessage) (any, error) {
		<-answer
		return map[string]any{"title": "Take disk version"}, nil
	})
	path := filepath.Join(data, "memory/account/style/code.md")
	disk, _ := os.ReadFile(path)
	uri := openSettled(t, c, path)
	mine := string(disk) + "Mine 🐸.\r\n"
	setText(t, c, uri, 2, mine)
	agentWrite(t, data, project, "account", "style/code.md", "2", "Agent: prefer map/filter.\n")
	agents, _ := os.ReadFile(path)
	if edits := willSave(t, c, uri); len(edits) != 0 {
		t.Fatalf("conflicting save got edits %+v", edits)
	}
	_, actions := messageRequest(t, c)
	if len(actions) != 3 {
		t.Fatalf("actions %q", actions)
	}
	editorSave(t, c, uri, path, mine) // the editor writes the buffer as it is
	close(answer)

	edits := appliedEdit(t, c, uri)
	if len(edits) != 1 || edits[0].Range.Start != (lspPos{}) || edits[0].Range.End != utf16Pos(mine, len(mine)) {
		t.Fatalf("Take disk edit %+v; want the whole buffer (end %+v)", edits, utf16Pos(mine, len(mine)))
	}
	if edits[0].NewText != string(agents) {
		t.Fatalf("Take disk text %q; want the agent's version %q", edits[0].NewText, agents)
	}
	// Saving the taken version writes it back above the agent's revision.
	taken := applyLSPEdits(t, mine, edits)
	setText(t, c, uri, 3, taken)
	if got := applyLSPEdits(t, taken, willSave(t, c, uri)); !strings.Contains(got, "revision: 4\n") || !strings.Contains(got, "Agent: prefer map/filter.") {
		t.Errorf("save after Take disk:\n%s\nwant the agent's text as revision 4", got)
	}
}

func TestSaveConflictPlainEditorAndDeleted(t *testing.T) {
	c, data, _ := startDemo(t)
	// A plain text editor changes the body without touching revision: the hash
	// catches it. The default reply dismisses the question.
	path := filepath.Join(data, "memory/user/style/code.md")
	disk, _ := os.ReadFile(path)
	uri := openSettled(t, c, path)
	setText(t, c, uri, 2, string(disk)+"mine\n")
	if err := os.WriteFile(path, append(disk, "theirs\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if edits := willSave(t, c, uri); len(edits) != 0 {
		t.Fatalf("edits %+v over a hand-edited disk", edits)
	}
	msg, _ := messageRequest(t, c)
	mustContain(t, "message", msg, "still revision 4")
	if _, err := c.WaitDiagnostics(uri, hasCode("stale-revision")); err != nil {
		t.Fatal(err)
	}

	// Deleted on disk: the save re-creates the note, going on from the revision
	// that was deleted, and says so.
	gone := filepath.Join(data, "memory/account/tone.md")
	text, _ := os.ReadFile(gone)
	uri = openSettled(t, c, gone)
	setText(t, c, uri, 2, string(text)+"x\n")
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	got := applyLSPEdits(t, string(text)+"x\n", willSave(t, c, uri))
	if !strings.Contains(got, "revision: 2\n") {
		t.Errorf("save over a deleted note:\n%s\nwant revision 2", got)
	}
	if _, err := c.WaitNotification("window/showMessage", func(p json.RawMessage) bool {
		return strings.Contains(string(p), "deleted on disk")
	}); err != nil {
		t.Fatal(err)
	}
}

// Compare, then Merge: the agent appended a line, the buffer changed another;
// the question offers Merge, Compare sends the disk version and asks again, and
// Merge comes as one edit holding both changes at the next revision.
func TestSaveConflictCompareThenMerge(t *testing.T) {
	c, data, project := startDemo(t)
	var asked atomic.Int32
	var questions sync.Map // asked → message
	c.Reply("window/showMessageRequest", func(p json.RawMessage) (any, error) {
		var q struct{ Message string }
		_ = json.Unmarshal(p, &q)
		n := asked.Add(1)
		questions.Store(n, q.Message)
		if n == 1 {
			return map[string]any{"title": "Compare"}, nil
		}
		return map[string]any{"title": "Merge"}, nil
	})
	path := filepath.Join(data, "memory/account/tone.md")
	disk, _ := os.ReadFile(path)
	uri := openSettled(t, c, path)
	body := string(disk[strings.Index(string(disk), "\n---\n")+5:])
	mine := strings.Replace(string(disk), body, "Mine first.\n"+body, 1)
	setText(t, c, uri, 2, mine)
	agentWrite(t, data, project, "account", "tone.md", "1", body+"The agent's line.\n")
	agents, _ := os.ReadFile(path)
	if edits := willSave(t, c, uri); len(edits) != 0 {
		t.Fatalf("conflicting save got edits %+v", edits)
	}
	_, actions := messageRequest(t, c)
	if strings.Join(actions, "|") != "Take disk version|Keep mine as next revision|Compare|Merge" {
		t.Fatalf("actions %q", actions)
	}
	editorSave(t, c, uri, path, mine)
	n, err := c.WaitNotification("magicfrog/compare", nil)
	if err != nil {
		t.Fatal(err)
	}
	var cmp struct {
		URI, Title, Disk string
		Revision         int
	}
	_ = json.Unmarshal(n.Params, &cmp)
	if cmp.URI != uri || cmp.Disk != string(agents) || cmp.Revision != 2 || !strings.Contains(cmp.Title, "revision 2") {
		t.Errorf("magicfrog/compare %+v; want the agent's version at revision 2", cmp)
	}
	got := applyLSPEdits(t, mine, appliedEdit(t, c, uri))
	if asked.Load() != 2 {
		t.Errorf("asked %d times; want the question again after Compare", asked.Load())
	}
	// VS Code folds a notification equal to one still closing into it (and then
	// closes both): the question after Compare must not repeat the first.
	first, _ := questions.Load(int32(1))
	second, _ := questions.Load(int32(2))
	if first == second || !strings.Contains(fmt.Sprint(second), "open beside your buffer") {
		t.Errorf("question after Compare %q; want it to differ from the first (%q) and say the comparison is open", second, first)
	}
	if !strings.Contains(got, "revision: 3\n") || !strings.Contains(got, "Mine first.\n") || !strings.HasSuffix(got, "The agent's line.\n") {
		t.Errorf("Merge gave:\n%s\nwant both changes at revision 3", got)
	}
}

// TestSaveConflictKeepMineAfterTheEditorSaved is the Neovim and
// lsp-mode case: the editor writes the buffer anyway after a conflicting save
// (a language server cannot veto a save), so the disk holds the un-bumped
// buffer over the agent's revision. "Keep mine as next revision", answered
// afterwards, puts the next revision on disk at once instead of leaving the
// un-bumped save there until the user writes again.
func TestSaveConflictKeepMineAfterTheEditorSaved(t *testing.T) {
	c, data, project := startDemoAt(t, steppingClock(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), time.Second))
	c.Reply("window/showMessageRequest", func(json.RawMessage) (any, error) { return nil, nil }) // the user answers later
	path, uri, mine := editTone(t, c, data)
	agentWrite(t, data, project, "account", "tone.md", "1", "The agent's tone rule.\n")
	if edits := willSave(t, c, uri); len(edits) != 0 {
		t.Fatalf("conflicting save got edits %+v; want none", edits)
	}
	editorSave(t, c, uri, path, mine) // revision 1 again, over the agent's 2
	messageRequest(t, c)

	mustExec(t, c, "magicfrog.resolveConflict", map[string]any{"uri": uri, "choice": "keepMine"}, nil)
	got := applyLSPEdits(t, mine, appliedEdit(t, c, uri))
	if !strings.Contains(got, "revision: 3\n") || !strings.HasSuffix(got, "My edit.\n") {
		t.Fatalf("Keep mine gave the buffer:\n%s\nwant revision 3 and my edit", got)
	}
	if onDisk := diskBecomes(path, got); onDisk != got {
		t.Fatalf("after Keep mine the disk holds:\n%s\nwant the buffer at revision 3:\n%s", onDisk, got)
	}
	// The buffer takes the edit and equals the disk: no stale diagnostic, and
	// saving it again (the clock moved on) bumps nothing past the disk's 3.
	setText(t, c, uri, 3, got)
	if _, err := c.WaitDiagnostics(uri, func(p lsptest.PublishedDiagnostics) bool {
		return p.Version != nil && *p.Version == 3 && !hasCode("stale-revision")(p)
	}); err != nil {
		t.Fatal(err)
	}
	if edits := willSave(t, c, uri); len(edits) != 0 {
		t.Errorf("saving the buffer that equals the disk: edits %+v, want none", edits)
	}
}

// TestKeepMineAnsweredBeforeTheEditorsSaveLanded: Emacs answers the question
// while its save waits in willSaveWaitUntil, so "Keep mine" can reach the
// server before the editor has written the buffer, and eglot 1.9 (asking
// "Server wants to edit? Proceed?") may refuse the edit. The disk then holds
// the agent's revision 2 at the answer and the un-bumped buffer after the save:
// the revision the question promised must still land, with my edit, once that
// save does. (Seen once in CI: the disk stayed at revision 1.)
func TestKeepMineAnsweredBeforeTheEditorsSaveLanded(t *testing.T) {
	k := keepMineBeforeTheSave(t, refuseEdit)
	c, data, project, path, uri, mine, want := k.c, k.data, k.project, k.path, k.uri, k.mine, k.kept
	if len(k.saveEdits) != 0 {
		t.Fatalf("conflicting save got edits %+v; want none", k.saveEdits)
	}
	if !strings.Contains(k.question, "keep yours as revision 3") {
		t.Fatalf("question %q; want it to promise revision 3", k.question)
	}
	if on, _ := os.ReadFile(path); !strings.Contains(string(on), "The agent's tone rule.") {
		t.Fatalf("before the editor's save the disk holds:\n%s\nwant the agent's revision 2", on)
	}
	editorSave(t, c, uri, path, mine) // the save lands now: revision 1 over the agent's 2

	if onDisk := diskBecomes(path, want); onDisk != want {
		t.Fatalf("after Keep mine and the save the disk holds:\n%s\nwant my edit at revision 3:\n%s", onDisk, want)
	}
	out, err := exec.Command(binary(t), "history", "--data-dir", data, "--project", project, "account/tone.md").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "revision 2 ") {
		t.Fatalf("mf-lsp history: %v\n%s\nwant the agent's revision 2 listed", err, out)
	}
	// Saving again from the buffer (still revision 1, as the client refused the
	// edit) goes above the disk's 3, without a question.
	if edits := applyLSPEdits(t, mine, willSave(t, c, uri)); !strings.Contains(edits, "revision: 4\n") {
		t.Errorf("the next save gives:\n%s\nwant revision 4", edits)
	}
}

// TestKeepMineWrittenAfterItsSaveNeverReusesARevision: between the answer
// and the save landing (Keep mine still waiting for it), the agent wrote
// again, as revision 3, the number the question had promised. The editor's
// save then writes over it, and Keep mine's version must take the next
// number (4): two versions never share one.
func TestKeepMineWrittenAfterItsSaveNeverReusesARevision(t *testing.T) {
	k := keepMineBeforeTheSave(t, refuseEdit)
	c, data, project, path, uri, mine := k.c, k.data, k.project, k.path, k.uri, k.mine
	if !strings.Contains(k.question, "keep yours as revision 3") {
		t.Fatalf("question %q; want it to promise revision 3", k.question)
	}
	agentWrite(t, data, project, "account", "tone.md", "2", "The agent's tone rule, again.\n")
	editorSave(t, c, uri, path, mine)

	onDisk := diskUntil(path, func(s string) bool { return strings.Contains(s, "revision: 4\n") })
	if !strings.Contains(onDisk, "revision: 4\n") || !strings.HasSuffix(onDisk, "My edit.\n") {
		t.Fatalf("after Keep mine and the save the disk holds:\n%s\nwant my edit at revision 4: the agent's second write is revision 3", onDisk)
	}
}

// refuseEdit answers workspace/applyEdit as eglot 1.9 does when its
// "Server wants to edit … Proceed?" is answered no.
func refuseEdit(json.RawMessage) (any, error) { return nil, errors.New("User cancelled server edit") }

// applyEditAnswer answers workspace/applyEdit as a client that applied it.
func applyEditAnswer(json.RawMessage) (any, error) { return map[string]any{"applied": true}, nil }

// earlyKeepMine is a save conflict answered "Keep mine" while the editor's
// save of the buffer has not landed yet (keepMineBeforeTheSave).
type earlyKeepMine struct {
	c                        *lsptest.Client
	data, project, path, uri string
	mine, kept               string    // the buffer (my edit, revision 1), and with Keep mine's edit
	saveEdits                []lspEdit // the conflicting willSaveWaitUntil's answer
	question                 string    // the conflict's question
}

// keepMineBeforeTheSave opens the demo's account/tone.md and edits it; the
// agent writes revision 2; the save asks, "Keep mine" is answered and its
// edit answered by answer. The editor's own save is left to the test.
func keepMineBeforeTheSave(t *testing.T, answer lsptest.Reply) earlyKeepMine {
	t.Helper()
	c, data, project := startDemoAt(t, steppingClock(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), time.Second))
	c.Reply("window/showMessageRequest", func(json.RawMessage) (any, error) { return nil, nil })
	c.Reply("workspace/applyEdit", answer)
	k := earlyKeepMine{c: c, data: data, project: project}
	k.path, k.uri, k.mine = editTone(t, c, data)
	agentWrite(t, data, project, "account", "tone.md", "1", "The agent's tone rule.\n")
	k.saveEdits = willSave(t, c, k.uri)
	k.question, _ = messageRequest(t, c)
	mustExec(t, c, "magicfrog.resolveConflict", map[string]any{"uri": k.uri, "choice": "keepMine"}, nil)
	k.kept = applyLSPEdits(t, k.mine, appliedEdit(t, c, k.uri))
	return k
}

// TestKeepMineTakenByTheBufferIsLeftToItsNextSave: Neovim 0.10+ answers while
// its :write waits for willSaveWaitUntil and takes Keep mine's edit into the
// buffer; its write of the old text lands after. The buffer now holds the
// promised revision and its next :write writes it (a conflict no more): the
// server writes nothing behind the editor's back (Neovim would ask "The file
// has been changed since reading it" at that :write).
func TestKeepMineTakenByTheBufferIsLeftToItsNextSave(t *testing.T) {
	k := keepMineBeforeTheSave(t, applyEditAnswer)
	c, path, uri, mine, kept := k.c, k.path, k.uri, k.mine, k.kept
	editorSave(t, c, uri, path, mine) // the old text, then the edit in the buffer
	setText(t, c, uri, 3, kept)
	time.Sleep(300 * time.Millisecond) // a write by the server would land by now
	if onDisk, _ := os.ReadFile(path); string(onDisk) != mine {
		t.Fatalf("the server wrote behind the editor's back:\n%s\nwant the editor's own save", onDisk)
	}
	if next := applyLSPEdits(t, kept, willSave(t, c, uri)); !strings.Contains(next, "revision: 3\n") {
		t.Fatalf("the next save of the buffer at revision 3 gives:\n%s\nwant revision 3 (the buffer holds the revision promised)", next)
	}
	if msgs := c.Requests("window/showMessageRequest"); len(msgs) != 1 {
		t.Fatalf("%d questions, want only the first: the next save is no conflict", len(msgs))
	}
}

// TestKeepMineAfterAnUnaskedSaveNeverReusesARevision: lsp-mode waits 0.1 s for
// willSaveWaitUntil, so its save can land before the server's answer. The
// agent had written revision 2; the editor's save put the buffer (revision 1
// again) over it; the server's question then sees "still revision 1". Keep
// mine must give revision 3, above the overwritten 2, never a second,
// different revision 2.
func TestKeepMineAfterAnUnaskedSaveNeverReusesARevision(t *testing.T) {
	c, data, project := startDemoAt(t, steppingClock(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), time.Second))
	c.Reply("window/showMessageRequest", func(json.RawMessage) (any, error) { return nil, nil })
	path, uri, mine := editTone(t, c, data)
	agentWrite(t, data, project, "account", "tone.md", "1", "The agent's tone rule.\n")
	if _, err := c.WaitDiagnostics(uri, hasCode("stale-revision")); err != nil {
		t.Fatal(err)
	}
	// The editor writes before the server answered its willSaveWaitUntil:
	// revision 1 over the agent's 2, read by the server as the disk.
	if err := os.WriteFile(path, []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	willSave(t, c, uri)
	if msg, _ := messageRequest(t, c); !strings.Contains(msg, "revision") {
		t.Fatalf("question %q", msg)
	}
	mustExec(t, c, "magicfrog.resolveConflict", map[string]any{"uri": uri, "choice": "keepMine"}, nil)
	got := applyLSPEdits(t, mine, appliedEdit(t, c, uri))
	if !strings.Contains(got, "revision: 3\n") {
		t.Fatalf("Keep mine gave the buffer:\n%s\nwant revision 3: the agent's overwritten version is revision 2", got)
	}
}
