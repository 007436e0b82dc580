package lsp_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/lsp/lsptest"
	"github.com/magicfrog/mf-lsp/session"
)

// An editor that saves without willSaveWaitUntil (Vim with yegappan/lsp never
// sends it; Emacs lsp-mode raced it): the buffer read revision 1, an agent
// wrote revisions 2–7, and the editor writes its stale buffer over revision
// 7 itself and sends didSave. The overwrite is caught: the note is flagged
// overwritten-revision naming revision 7 (in the editor and in mf-lsp check),
// and mf-lsp restore brings revision 7 back byte for byte, with no remote (in
// one round the finding's Merge answers instead).
// The race runs 20 times; in odd rounds the save comes without waiting for
// the server to have seen the agent's writes.
func TestOverwriteBySaveWithoutWillSave(t *testing.T) {
	data, project := demo(t)
	c := start(t)
	p := lsptest.InitializeParams(string(session.PathToURI(project)), map[string]any{"dataDir": data, "today": "2026-11-30"})
	// A client that sends only didOpen/didChange/didSave.
	p["capabilities"].(map[string]any)["textDocument"].(map[string]any)["synchronization"] = map[string]any{"didSave": true}
	if _, err := c.CallRaw("initialize", p); err != nil {
		t.Fatal(err)
	}
	if err := c.Notify("initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	waitIndexed(t, c)
	for round := range 20 {
		key := fmt.Sprintf("notes/race-%d.md", round)
		ref := "user/" + key
		path := filepath.Join(data, "memory", "user", filepath.FromSlash(key))
		agentWrite(t, data, project, "user", key, "0", "Top line.\nMiddle.\nShared line.\n")
		uri := openSettled(t, c, path)
		rev1, _ := os.ReadFile(path)
		mine := strings.Replace(string(rev1), "Middle.", "Middle, edited in the editor.", 1)
		setText(t, c, uri, 2, mine)
		for rev := 2; rev <= 7; rev++ {
			agentWrite(t, data, project, "user", key, fmt.Sprint(rev-1), fmt.Sprintf("Top line.\nMiddle.\nShared line.\nThe agent's revision %d.\n", rev))
		}
		rev7, _ := os.ReadFile(path)
		if !strings.Contains(string(rev7), "revision: 7\n") {
			t.Fatalf("round %d: the agent's last write:\n%s", round, rev7)
		}
		if round%2 == 0 {
			if _, err := c.WaitDiagnostics(uri, func(p lsptest.PublishedDiagnostics) bool {
				return hasCode("stale-revision")(p) && strings.Contains(string(p.RawDiags), "revision 7")
			}); err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		// :w — the editor writes its buffer itself; no willSave was sent.
		editorSave(t, c, uri, path, mine)
		d, err := c.WaitDiagnostics(uri, hasCode("overwritten-revision"))
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if !strings.Contains(string(d.RawDiags), "revision 7 was overwritten") {
			t.Fatalf("round %d: the finding does not name revision 7: %s", round, d.RawDiags)
		}
		if round == 0 {
			out, _ := exec.Command(binary(t), "check", "--data-dir", data, "--project", project).CombinedOutput()
			mustContain(t, "mf-lsp check", string(out), "overwritten-revision", "race-0.md", "revision 7 was overwritten")
		}
		if round == 1 {
			// The finding's answers; Merge takes both changes as revision 8.
			as := actionsFor(t, c, uri)
			findAction(t, as, "Restore revision 7")
			findAction(t, as, "Keep this version (as revision 8)")
			merge := findAction(t, as, "Merge revision 7 into this version")
			if merge.Command == nil || merge.Command.Command != "magicfrog.resolveOverwrite" {
				t.Fatalf("Merge: %+v", merge.Command)
			}
			var res struct{ Revision int }
			if err := c.Call("workspace/executeCommand", map[string]any{"command": merge.Command.Command, "arguments": merge.Command.Arguments}, &res); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if res.Revision != 8 {
				t.Errorf("merge answered revision %d, want 8", res.Revision)
			}
			mustContain(t, "merged note", string(got), "revision: 8\n", "Middle, edited in the editor.\n", "The agent's revision 7.\n")
			out, _ := exec.Command(binary(t), "check", "--data-dir", data, "--project", project).CombinedOutput()
			if strings.Contains(string(out), "race-1.md:1:1: error overwritten-revision") {
				t.Errorf("mf-lsp check after the merge still reports the overwrite:\n%s", out)
			}
			if err := c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}}); err != nil {
				t.Fatal(err)
			}
			continue
		}
		out, err := exec.Command(binary(t), "restore", "--data-dir", data, "--project", project, ref, "7").CombinedOutput()
		if err != nil {
			t.Fatalf("round %d: mf-lsp restore: %v\n%s", round, err, out)
		}
		if got, _ := os.ReadFile(path); string(got) != string(rev7) {
			t.Fatalf("round %d: restore gave\n%s\nwant revision 7 byte for byte:\n%s", round, got, rev7)
		}
		if round == 0 {
			out, _ := exec.Command(binary(t), "check", "--data-dir", data, "--project", project).CombinedOutput()
			if strings.Contains(string(out), "overwritten-revision") {
				t.Errorf("mf-lsp check after the restore still reports the overwrite:\n%s", out)
			}
		}
		if err := c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}}); err != nil {
			t.Fatal(err)
		}
	}
}
