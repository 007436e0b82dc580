package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/lsp/lsptest"
)

type caTextEdit struct {
	Range struct {
		Start, End struct{ Line, Character int }
	}
	NewText string
}

type codeAction struct {
	Title       string
	Kind        string
	Diagnostics []struct{ Code string }
	Edit        *struct {
		Changes         map[string][]caTextEdit
		DocumentChanges []json.RawMessage
	}
	Command *struct {
		Command   string
		Arguments []json.RawMessage
	}
}

// startDemoRich starts the demo with a client that takes documentChanges and
// file operations (rename, create), as VS Code and Neovim do.
func startDemoRich(t *testing.T) (c *lsptest.Client, data, project string) {
	t.Helper()
	return startDemoCaps(t, func(caps map[string]any) {
		caps["workspace"].(map[string]any)["workspaceEdit"] = map[string]any{
			"documentChanges": true, "resourceOperations": []string{"create", "rename", "delete"}}
	})
}

// actionsFor opens path (if not open yet: opened is false), waits for its first
// diagnostics and returns the code actions for lines 0..99.
func actionsFor(t *testing.T, c *lsptest.Client, uri string, only ...string) []codeAction {
	t.Helper()
	if _, err := c.WaitDiagnostics(uri, nil); err != nil {
		t.Fatal(err)
	}
	ctx := map[string]any{"diagnostics": []any{}}
	if len(only) > 0 {
		ctx["only"] = only
	}
	var out []codeAction
	err := c.Call("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": uri},
		"range":        map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 99, "character": 0}},
		"context":      ctx,
	}, &out)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func findAction(t *testing.T, as []codeAction, title string) codeAction {
	t.Helper()
	var titles []string
	for _, a := range as {
		if strings.HasPrefix(a.Title, title) {
			return a
		}
		titles = append(titles, a.Title)
	}
	t.Fatalf("no action %q in %q", title, titles)
	return codeAction{}
}

// applyTextEdits applies LSP text edits to ASCII text.
func applyTextEdits(t *testing.T, text string, edits []caTextEdit) string {
	t.Helper()
	offset := func(line, char int) int {
		off := 0
		for i := 0; i < line; i++ {
			nl := strings.IndexByte(text[off:], '\n')
			if nl < 0 {
				return len(text)
			}
			off += nl + 1
		}
		return min(off+char, len(text))
	}
	sort.SliceStable(edits, func(i, j int) bool {
		a, b := edits[i].Range.Start, edits[j].Range.Start
		return a.Line > b.Line || a.Line == b.Line && a.Character > b.Character
	})
	for _, e := range edits {
		s, end := offset(e.Range.Start.Line, e.Range.Start.Character), offset(e.Range.End.Line, e.Range.End.Character)
		text = text[:s] + e.NewText + text[end:]
	}
	return text
}

// applyQuickFix checks a is a quickfix for code and applies its text edits to text.
func applyQuickFix(t *testing.T, a codeAction, code, uri, text string) string {
	t.Helper()
	if a.Kind != "quickfix" || len(a.Diagnostics) != 1 || a.Diagnostics[0].Code != code {
		t.Errorf("%q: kind %q diagnostics %+v; want a quickfix for %s", a.Title, a.Kind, a.Diagnostics, code)
	}
	if a.Edit == nil {
		t.Fatalf("%q has no edit", a.Title)
	}
	var edits []caTextEdit
	if len(a.Edit.Changes) > 0 {
		edits = a.Edit.Changes[uri]
	}
	for _, dc := range a.Edit.DocumentChanges {
		var tde struct {
			TextDocument struct{ URI string }
			Edits        []caTextEdit
		}
		if json.Unmarshal(dc, &tde) == nil && tde.TextDocument.URI == uri {
			edits = append(edits, tde.Edits...)
		}
	}
	if len(edits) == 0 {
		t.Fatalf("%q: no edits of %s", a.Title, uri)
	}
	return applyTextEdits(t, text, edits)
}

func writeNote(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCodeActionFrontmatterFixes(t *testing.T) {
	c, data, _ := startDemo(t)

	editor := filepath.Join(data, "memory/user/editor.md")
	body, _ := os.ReadFile(editor)
	uri := openFile(t, c, editor)
	got := applyQuickFix(t, findAction(t, actionsFor(t, c, uri), "Add frontmatter"), "frontmatter-missing", uri, string(body))
	if !strings.HasPrefix(got, "---\nrevision: 1\nupdated: 20") || !strings.HasSuffix(got, "---\n"+string(body)) {
		t.Errorf("add frontmatter:\n%s", got)
	}

	bad := filepath.Join(data, "memory/user/bad.md")
	text := "---\nrevision: \"4\"\nupdated: 2026-10-20T11:12:00+02:00\nmachine: m1\ntags: [a, b]\n---\nBody.\n"
	writeNote(t, bad, text)
	uri = openFile(t, c, bad)
	as := actionsFor(t, c, uri)
	if got := applyQuickFix(t, findAction(t, as, "Set revision to 4"), "revision-not-integer", uri, text); got != strings.Replace(text, `"4"`, "4", 1) {
		t.Errorf("set revision:\n%s", got)
	}
	if got := applyQuickFix(t, findAction(t, as, "Remove machine"), "machine-forbidden", uri, text); got != strings.Replace(text, "machine: m1\n", "", 1) {
		t.Errorf("remove machine:\n%s", got)
	}
	if got := applyQuickFix(t, findAction(t, as, "Write it as UTC"), "updated-invalid", uri, text); got != strings.Replace(text, "2026-10-20T11:12:00+02:00", "2026-10-20T09:12:00.000Z", 1) {
		t.Errorf("write as UTC:\n%s", got)
	}

	// A device note without a machine is bound to this one.
	dev := filepath.Join(data, "memory/device/new.md")
	text = "---\nrevision: 1\nupdated: 2026-10-20T09:12:00.000Z\n---\nGPU drivers.\n"
	writeNote(t, dev, text)
	uri = openFile(t, c, dev)
	if got := applyQuickFix(t, findAction(t, actionsFor(t, c, uri), "Bind to this machine"), "machine-missing", uri, text); got != strings.Replace(text, "---\nGPU", "machine: 3f9c2a7e5b10d4c8\n---\nGPU", 1) {
		t.Errorf("bind to this machine:\n%s", got)
	}

	// Duplicate keys: the later line goes.
	dup := filepath.Join(data, "memory/user/dup.md")
	text = "---\nrevision: 1\nupdated: 2026-10-20T09:12:00.000Z\nrevision: 2\n---\nBody.\n"
	writeNote(t, dup, text)
	uri = openFile(t, c, dup)
	if got := applyQuickFix(t, findAction(t, actionsFor(t, c, uri), "Remove the duplicate"), "duplicate-key", uri, text); got != strings.Replace(text, "revision: 2\n", "", 1) {
		t.Errorf("remove duplicate:\n%s", got)
	}
	alive(t, c)
}

func TestCodeActionCommands(t *testing.T) {
	c, data, project := startDemo(t)

	// unregistered-agent-folder: register the folder as an agent ID.
	helpers := openFile(t, c, filepath.Join(data, "memory/agent/helpers/notes.md"))
	as := actionsFor(t, c, helpers)
	findAction(t, as, "Keep shared")
	reg := findAction(t, as, "Register helpers as an agent ID")
	if reg.Kind != "quickfix" || reg.Command == nil || reg.Command.Command != "magicfrog.registerAgent" {
		t.Fatalf("register action: %+v", reg)
	}
	mustExec(t, c, reg.Command.Command, reg.Command.Arguments[0], nil)
	if b, _ := os.ReadFile(filepath.Join(data, "magicfrog.json")); !strings.Contains(string(b), `"helpers"`) || !strings.Contains(string(b), `"larry"`) {
		t.Errorf("magicfrog.json:\n%s", b)
	}
	if _, err := c.WaitDiagnostics(helpers, func(p lsptest.PublishedDiagnostics) bool { return !hasCode("unregistered-agent-folder")(p) }); err != nil {
		t.Error(err)
	}

	// legacy-location: move to the canonical tree.
	paths := filepath.Join(data, "memory/machine/paths.md")
	mv := findAction(t, actionsFor(t, c, openFile(t, c, paths)), "Move to the canonical tree (memory/device/paths.md)")
	if mv.Command == nil || mv.Command.Command != "magicfrog.promote" {
		t.Fatalf("move action: %+v", mv)
	}
	mustExec(t, c, mv.Command.Command, mv.Command.Arguments[0], nil)
	if _, err := os.Stat(filepath.Join(data, "memory/device/paths.md")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(paths); !os.IsNotExist(err) {
		t.Errorf("legacy file still there: %v", err)
	}

	// shadowed: open the winner.
	open := findAction(t, actionsFor(t, c, openFile(t, c, filepath.Join(data, "memory/account/style/code.md"))), "Open the winning version")
	if open.Command == nil || open.Command.Command != "magicfrog.showEntry" || !strings.Contains(string(open.Command.Arguments[0]), ".magicfrog/memory/style/code.md") {
		t.Errorf("open the winner: %+v", open.Command)
	}

	// Promotions of a task note: up the chain and into skills, as refactor.move commands.
	progress := openFile(t, c, filepath.Join(project, ".magicfrog/memory/T-7/notes/progress.md"))
	as = actionsFor(t, c, progress)
	for _, title := range []string{"Promote to agent larry", "Promote to every agent", "Promote to user", "Promote to account", "Move into the skills layer"} {
		a := findAction(t, as, title)
		if a.Kind != "refactor.move" || a.Command == nil || a.Command.Command != "magicfrog.promote" {
			t.Errorf("%q: %+v", title, a)
		}
	}
	for _, a := range actionsFor(t, c, progress, "quickfix") {
		if a.Kind != "quickfix" {
			t.Errorf("only quickfix: got %q (%s)", a.Title, a.Kind)
		}
	}
	// An existing destination: the action says which revision it replaces and
	// carries both revisions (a compare-and-swap on both ends).
	style := openFile(t, c, filepath.Join(project, ".magicfrog/memory/style/code.md"))
	rep := findAction(t, actionsFor(t, c, style), "Promote to user (replaces revision 4 there)")
	var repArg struct{ SourceRevision, DestRevision int }
	if rep.Command == nil || json.Unmarshal(rep.Command.Arguments[0], &repArg) != nil || repArg.SourceRevision != 2 || repArg.DestRevision != 4 {
		t.Errorf("promote onto user/style/code.md: %+v", rep.Command)
	} else {
		var res struct{ Revision int }
		mustExec(t, c, rep.Command.Command, rep.Command.Arguments[0], &res)
		if res.Revision != 5 {
			t.Errorf("promoted over revision 4: revision %d, want 5", res.Revision)
		}
	}
	up := findAction(t, as, "Promote to agent larry")
	mustExec(t, c, up.Command.Command, up.Command.Arguments[0], nil)
	if _, err := os.Stat(filepath.Join(data, "memory/agent/larry/notes/progress.md")); err != nil {
		t.Error(err)
	}
}

func TestCodeActionStaleRevision(t *testing.T) {
	c, data, _ := startDemo(t)
	path := filepath.Join(data, "memory/agent/larry/notes/style.md")
	mine, _ := os.ReadFile(path)
	uri := openFile(t, c, path)
	if _, err := c.WaitDiagnostics(uri, nil); err != nil {
		t.Fatal(err)
	}
	disk := "---\nrevision: 6\nupdated: 2026-11-30T08:00:00.000Z\n---\nAn agent rewrote this.\n"
	writeNote(t, path, disk)
	if _, err := c.WaitDiagnostics(uri, hasCode("stale-revision")); err != nil {
		t.Fatal(err)
	}
	as := actionsFor(t, c, uri)
	take := findAction(t, as, "Take disk version")
	keep := findAction(t, as, "Keep mine as next revision (7)")
	for _, a := range []codeAction{take, keep} {
		if a.Kind != "quickfix" || len(a.Diagnostics) != 1 || a.Diagnostics[0].Code != "stale-revision" {
			t.Errorf("%q: kind %q diagnostics %+v; want a quickfix for stale-revision", a.Title, a.Kind, a.Diagnostics)
		}
		if a.Command == nil || a.Command.Command != "magicfrog.resolveConflict" {
			t.Fatalf("%q: command %+v; want magicfrog.resolveConflict", a.Title, a.Command)
		}
	}
	// Keep mine: the server sends the edit making the buffer revision 7 (the
	// disk's 6 + 1) and bases the buffer on the disk version.
	mustExec(t, c, keep.Command.Command, keep.Command.Arguments[0], nil)
	kept := applyTextEdits(t, string(mine), toCAEdits(appliedEdit(t, c, uri)))
	if !strings.Contains(kept, "revision: 7\n") || !strings.Contains(kept, "Larry: lead with the decision") {
		t.Errorf("keep mine:\n%s", kept)
	}
	_ = c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": kept}}})
	if _, err := c.WaitDiagnostics(uri, func(p lsptest.PublishedDiagnostics) bool {
		return p.Version != nil && *p.Version == 2 && !hasCode("stale-revision")(p)
	}); err != nil {
		t.Error(err)
	}
	// Bad arguments are refused clearly.
	var resp any
	if err := c.Call("workspace/executeCommand", map[string]any{"command": "magicfrog.resolveConflict",
		"arguments": []any{map[string]any{"uri": uri, "choice": "rebase"}}}, &resp); rpcCode(err) != -32602 {
		t.Errorf("choice rebase: %v", err)
	}
}

// toCAEdits converts the save tests' edits to the code action tests' edits.
func toCAEdits(in []lspEdit) []caTextEdit {
	b, _ := json.Marshal(in)
	var out []caTextEdit
	_ = json.Unmarshal(b, &out)
	return out
}

// KindSourceRollupForTest is lsp.KindSourceRollup (this is package lsp_test).
const KindSourceRollupForTest = "source.rollup"

func TestCodeActionJournal(t *testing.T) {
	c, _, project := startDemoRich(t)
	journal := filepath.Join(project, ".magicfrog/memory/journal")

	// A source of the W46 weekly changes: the weekly is stale; rerun it.
	day := filepath.Join(journal, "refined/2026-11-10.md")
	b, _ := os.ReadFile(day)
	writeNote(t, day, string(b)+"\n- One more thing built.\n")
	weekly := openFile(t, c, filepath.Join(journal, "weekly/2026-W46.md"))
	if _, err := c.WaitDiagnostics(weekly, hasCode("rollup-stale")); err != nil {
		t.Fatal(err)
	}
	rerun := findAction(t, actionsFor(t, c, weekly), "Rerun the rollup (week 2026-W46)")
	if rerun.Command == nil || rerun.Command.Command != "magicfrog.rollup" {
		t.Fatalf("rerun: %+v", rerun)
	}
	var res struct{ Written []string }
	mustExec(t, c, rerun.Command.Command, rerun.Command.Arguments[0], &res)
	if len(res.Written) != 1 || !strings.HasSuffix(res.Written[0], "weekly/2026-W46.md") {
		t.Errorf("rerun wrote %v", res.Written)
	}

	// Journal files offer the rollups they feed (source.rollup): a raw day is
	// refined from its own action, and the refinement lands on disk.
	raw := openFile(t, c, filepath.Join(journal, "2026-11-23.md"))
	refine := findAction(t, actionsFor(t, c, raw), "Refine 2026-11-23 (rollup day)")
	if refine.Kind != KindSourceRollupForTest || refine.Command == nil {
		t.Fatalf("refine: %+v", refine)
	}
	res.Written = nil
	mustExec(t, c, refine.Command.Command, refine.Command.Arguments[0], &res)
	if len(res.Written) != 1 || !strings.HasSuffix(res.Written[0], "refined/2026-11-23.md") {
		t.Errorf("refine wrote %v", res.Written)
	}
	refined := openFile(t, c, filepath.Join(journal, "refined/2026-11-16.md"))
	findAction(t, actionsFor(t, c, refined), "Roll up week 2026-W47")

	// A misnamed journal file: rename it.
	odd := filepath.Join(journal, "2026-11-5.md")
	writeNote(t, odd, "---\nrevision: 1\nupdated: 2026-11-05T09:00:00.000Z\n---\nA day.\n")
	uri := openFile(t, c, odd)
	as := actionsFor(t, c, uri)
	rename := findAction(t, as, "Rename to ")
	if rename.Edit == nil || len(rename.Edit.DocumentChanges) != 1 || !strings.Contains(string(rename.Edit.DocumentChanges[0]), `"kind":"rename"`) ||
		!strings.Contains(string(rename.Edit.DocumentChanges[0]), "journal/2026-11-05.md") {
		t.Errorf("rename: %+v", rename.Edit)
	}

	// Lessons of a month are offered with a change annotation that needs confirmation.
	mustExec(t, c, "magicfrog.rollup", map[string]any{"kind": "due"}, nil)
	mustExec(t, c, "magicfrog.rollup", map[string]any{"kind": "month", "period": "2026-11"}, nil)
	err := c.WaitFor("annotated applyEdit", func(r lsptest.Recorded) bool {
		for _, m := range r.Requests {
			if m.Method == "workspace/applyEdit" && strings.Contains(string(m.Params), `"needsConfirmation":true`) {
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Error(err)
	}
}
