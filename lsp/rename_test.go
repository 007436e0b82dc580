package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/engine/mdlinks"
	"github.com/magicfrog/mf-lsp/lsp"
	"github.com/magicfrog/mf-lsp/lsp/lsptest"
	"github.com/magicfrog/mf-lsp/session"
)

// renameTree is a memory where larry's notes, the user's and bob's link to
// user/style.md, and style.md links to a note beside it.
func renameTree(t *testing.T) (root string, files map[string]string) {
	root = t.TempDir()
	files = map[string]string{
		"data/magicfrog.json":                 `{"agents": ["larry", "bob"]}`,
		"data/machine-id":                     "3f9c2a7e5b10d4c8\n",
		"project/.magicfrog/config.json":      `{"task": "T-7", "agents": ["larry"]}`,
		"data/memory/user/style.md":           "---\nrevision: 2\nupdated: 2026-10-01T12:00:00.000Z\n---\nShort functions; see [the guide](notes/guide.md#top) and [me](style.md).\n",
		"data/memory/user/notes/guide.md":     "---\nrevision: 1\nupdated: 2026-10-01T12:00:00.000Z\n---\nGuide: [style](../style.md).\n",
		"data/memory/agent/larry/plan.md":     "---\nrevision: 1\nupdated: 2026-10-01T12:00:00.000Z\n---\nRead [[style]] and [style](../../user/style.md).\n",
		"data/memory/agent/bob/plan.md":       "---\nrevision: 1\nupdated: 2026-10-01T12:00:00.000Z\n---\nBob reads [style](../../../user/style.md) and [[style]].\n",
		"data/memory/agent/team.md":           "---\nrevision: 1\nupdated: 2026-10-01T12:00:00.000Z\n---\nEvery agent's.\n",
		"data/memory/account/notes/style2.md": "---\nrevision: 1\nupdated: 2026-10-01T12:00:00.000Z\n---\nAccount-wide.\n",
	}
	for name, text := range files {
		putFile(t, filepath.Join(root, filepath.FromSlash(name)), text)
	}
	return root, files
}

// serveRenameTree serves renameTree, initialized for its project.
func serveRenameTree(t *testing.T) (c *lsptest.Client, root string, files map[string]string) {
	root, files = renameTree(t)
	c = serveInProcess(t, lsp.Options{})
	c.Initialize(string(session.PathToURI(filepath.Join(root, "project"))), map[string]any{"dataDir": filepath.Join(root, "data")})
	return c, root, files
}

type wireEdit struct {
	DocumentChanges   []json.RawMessage
	ChangeAnnotations map[string]struct {
		Label             string
		NeedsConfirmation bool
		Description       string
	}
}

// applyEdit applies a WorkspaceEdit's document changes to the disk, as a
// client does, and returns the files it changed.
func applyEdit(t *testing.T, e wireEdit) []string {
	t.Helper()
	var changed []string
	for _, raw := range e.DocumentChanges {
		var ch struct {
			Kind, OldURI, NewURI string
			TextDocument         struct{ URI string }
			Edits                []struct {
				Range   lspRange
				NewText string
			}
		}
		if err := json.Unmarshal(raw, &ch); err != nil {
			t.Fatal(err)
		}
		if ch.Kind == "rename" {
			from, _ := session.URIToPath(ch.OldURI)
			to, _ := session.URIToPath(ch.NewURI)
			if _, err := os.Stat(to); err == nil {
				t.Fatalf("rename onto an existing %s", to)
			}
			if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(from, to); err != nil {
				t.Fatal(err)
			}
			changed = append(changed, from, to)
			continue
		}
		path, _ := session.URIToPath(ch.TextDocument.URI)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m := lsp.NewMapper(src)
		// Apply from the end, so earlier offsets stay valid.
		sort.Slice(ch.Edits, func(i, j int) bool {
			a, b := ch.Edits[i].Range.Start, ch.Edits[j].Range.Start
			return a.Line > b.Line || a.Line == b.Line && a.Character > b.Character
		})
		out := string(src)
		for _, ed := range ch.Edits {
			start, _ := m.PositionOffset(wirePosition(ed.Range.Start))
			end, _ := m.PositionOffset(wirePosition(ed.Range.End))
			out = out[:start] + ed.NewText + out[end:]
		}
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		changed = append(changed, path)
	}
	return changed
}

// TestRenameRoundTrip renames user/style.md from its first line into
// notes/: the edit moves the file and rewrites every link to it in larry's
// scope (his Markdown link and wikilink, the user's guide) and style.md's own
// links; once applied, every one of them resolves, and bob's note, which
// larry cannot see, is byte for byte what it was.
func TestRenameRoundTrip(t *testing.T) {
	root, files := renameTree(t)
	c := serveInProcess(t, lsp.Options{Now: func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) }})
	c.Initialize(string(session.PathToURI(filepath.Join(root, "project"))), map[string]any{"dataDir": filepath.Join(root, "data")})
	stylePath := filepath.Join(root, "data/memory/user/style.md")
	uri := openText(t, c, stylePath, files["data/memory/user/style.md"])
	pos := map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": 0, "character": 1}}

	var prep struct {
		Range       lspRange
		Placeholder string
	}
	if err := c.Call("textDocument/prepareRename", pos, &prep); err != nil {
		t.Fatal(err)
	}
	if prep.Placeholder != "style.md" {
		t.Errorf("prepareRename placeholder %q, want the key style.md", prep.Placeholder)
	}

	var e wireEdit
	pos["newName"] = "notes/style"
	if err := c.Call("textDocument/rename", pos, &e); err != nil {
		t.Fatal(err)
	}
	if len(e.ChangeAnnotations) != 0 {
		t.Errorf("annotations %v: the rename changes no shadowing", e.ChangeAnnotations)
	}
	changed := applyEdit(t, e)

	moved := filepath.Join(root, "data/memory/user/notes/style.md")
	if _, err := os.Stat(moved); err != nil {
		t.Fatalf("not moved: %v", err)
	}
	for _, name := range []string{"data/memory/user/notes/style.md", "data/memory/user/notes/guide.md", "data/memory/agent/larry/plan.md"} {
		path := filepath.Join(root, filepath.FromSlash(name))
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range mdlinks.Links(src, 0) {
			target, ok := mdlinks.NoteTarget(path, l.Dest)
			if _, err := os.Stat(target); !ok || err != nil {
				t.Errorf("%s: link %q leads nowhere after the rename", name, l.Dest)
			}
		}
		for _, l := range mdlinks.WikiLinks(src, 0) {
			if mdlinks.WikiKey(l.Dest) != "notes/style.md" {
				t.Errorf("%s: wikilink [[%s]] not renamed", name, l.Dest)
			}
		}
	}
	bob := filepath.Join(root, "data/memory/agent/bob/plan.md")
	for _, p := range changed {
		if strings.HasPrefix(p, filepath.Join(root, "data/memory/agent/bob")) {
			t.Errorf("the rename changed bob's %s", p)
		}
	}
	if got, _ := os.ReadFile(bob); string(got) != files["data/memory/agent/bob/plan.md"] {
		t.Errorf("bob's note changed:\n%s", got)
	}
}

// TestRenameRefusals: prepareRename refuses off the first line and links,
// and a rename refuses a name the engine would read as another scope or an
// existing note; a rename that changes what shadows what carries an
// annotation that needs confirmation.
func TestRenameRefusals(t *testing.T) {
	c, root, files := serveRenameTree(t)
	plan := filepath.Join(root, "data/memory/agent/larry/plan.md")
	uri := openText(t, c, plan, files["data/memory/agent/larry/plan.md"])
	at := func(line, char int) map[string]any {
		return map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": line, "character": char}}
	}
	var out json.RawMessage
	if err := c.Call("textDocument/prepareRename", at(4, 0), &out); err == nil {
		t.Errorf("prepareRename in the body, off any link: %s, want an error", out)
	}
	bobURI := openText(t, c, filepath.Join(root, "data/memory/agent/bob/plan.md"), files["data/memory/agent/bob/plan.md"])
	if err := c.Call("textDocument/prepareRename", map[string]any{"textDocument": map[string]any{"uri": bobURI}, "position": map[string]any{"line": 0, "character": 0}}, &out); err == nil || !strings.Contains(err.Error(), "not in this participant's scope") {
		t.Errorf("prepareRename on bob's note: %v, want refused as out of scope", err)
	}
	// The shared agent note may not move under an owner's folder, registered
	// (bob's) or not (helpers/), nor onto a note, nor out of its dimension.
	teamURI := openText(t, c, filepath.Join(root, "data/memory/agent/team.md"), files["data/memory/agent/team.md"])
	for name, want := range map[string]string{
		"bob/x":        "would be read as agent bob",
		"helpers/x":    "would be read as the unregistered folder helpers/",
		"team":         "exists already",
		"../user/team": "",
		"../../x/team": "",
	} {
		p := map[string]any{"textDocument": map[string]any{"uri": teamURI}, "position": map[string]any{"line": 0, "character": 0}, "newName": name}
		err := c.Call("textDocument/rename", p, &out)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("rename agent/team.md to %q: %v %s, want refused (%q)", name, err, out, want)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "data/memory/agent/team.md")); err != nil {
		t.Errorf("a refused rename touched the note: %v", err)
	}
	// From the link [style](../../user/style.md): rename user/style.md to
	// notes/style2, which the account has: the user's note will shadow it.
	p := at(4, 25)
	p["newName"] = "notes/style2"
	var e wireEdit
	if err := c.Call("textDocument/rename", p, &e); err != nil {
		t.Fatal(err)
	}
	a, ok := e.ChangeAnnotations["mf-lsp.shadowing"]
	if !ok || !a.NeedsConfirmation || !strings.Contains(a.Description, "notes/style2.md: this note will shadow account") {
		t.Errorf("annotations %+v, want one needing confirmation that says the note will shadow account", e.ChangeAnnotations)
	}
}

func wirePosition(p lspPos) protocol.Position {
	return protocol.Position{Line: uint32(p.Line), Character: uint32(p.Character)}
}

// TestWillRenameFiles: a note moved in the file explorer gets the same link
// edits as a rename, without the rename (the client moves the file), and no
// edit of bob's note.
func TestWillRenameFiles(t *testing.T) {
	c, root, _ := serveRenameTree(t)
	from := session.PathToURI(filepath.Join(root, "data/memory/user/style.md"))
	to := session.PathToURI(filepath.Join(root, "data/memory/user/notes/style.md"))
	var e wireEdit
	if err := c.Call("workspace/willRenameFiles", map[string]any{"files": []any{map[string]any{"oldUri": from, "newUri": to}}}, &e); err != nil {
		t.Fatal(err)
	}
	var edited []string
	for _, raw := range e.DocumentChanges {
		var ch struct {
			Kind         string
			TextDocument struct{ URI string }
		}
		_ = json.Unmarshal(raw, &ch)
		if ch.Kind != "" {
			t.Errorf("a %s in willRenameFiles' edit: the client moves the file", ch.Kind)
		}
		edited = append(edited, strings.TrimPrefix(ch.TextDocument.URI, string(session.PathToURI(root))))
	}
	want := []string{"/data/memory/agent/larry/plan.md", "/data/memory/user/notes/guide.md", "/data/memory/user/style.md"}
	if strings.Join(edited, " ") != strings.Join(want, " ") {
		t.Errorf("edited %v, want %v", edited, want)
	}
}

// TestRenameEditTriggersNoSecondEdit: VS Code applies a rename's WorkspaceEdit
// and, for its RenameFile, asks workspace/willRenameFiles as for a move in the
// explorer. The rename already rewrote the links: answering their edits again
// made VS Code ask "wants to make refactoring changes with this file move"
// about a second set of the same link edits. The rename's own move gets
// no edits, once; the same move asked again (the user's, in the explorer) gets
// them as before.
func TestRenameEditTriggersNoSecondEdit(t *testing.T) {
	c, root, files := serveRenameTree(t)
	stylePath := filepath.Join(root, "data/memory/user/style.md")
	uri := openText(t, c, stylePath, files["data/memory/user/style.md"])
	var e wireEdit
	if err := c.Call("textDocument/rename", map[string]any{"textDocument": map[string]any{"uri": uri},
		"position": map[string]any{"line": 0, "character": 1}, "newName": "notes/style"}, &e); err != nil {
		t.Fatal(err)
	}
	var rn renameFile
	for _, raw := range e.DocumentChanges {
		if json.Unmarshal(raw, &rn) == nil && rn.Kind == "rename" {
			break
		}
	}
	if rn.Kind != "rename" {
		t.Fatalf("the rename's edit has no RenameFile: %s", e.DocumentChanges)
	}
	willRename := func(from, to string) int {
		t.Helper()
		var will wireEdit
		if err := c.Call("workspace/willRenameFiles", map[string]any{"files": []any{map[string]any{"oldUri": from, "newUri": to}}}, &will); err != nil {
			t.Fatal(err)
		}
		return len(will.DocumentChanges)
	}
	if n := willRename(rn.OldURI, rn.NewURI); n != 0 {
		t.Errorf("willRenameFiles for the rename's own move: %d changes, want none (the rename made them)", n)
	}
	// Once: the same move asked again is the user's (in the explorer), and its links follow.
	if n := willRename(rn.OldURI, rn.NewURI); n == 0 {
		t.Errorf("willRenameFiles for the same move again: no changes, want the link edits")
	}
}
