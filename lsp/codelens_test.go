package lsp_test

import (
	"path/filepath"
	"testing"

	"github.com/magicfrog/mf-lsp/session"
)

type codeLens struct {
	Range   lspRange
	Command *struct {
		Title     string
		Command   string
		Arguments []map[string]string
	}
}

func TestCodeLensStanding(t *testing.T) {
	c, data, project := startDemo(t)
	mem := filepath.Join(data, "memory")
	task := filepath.Join(project, ".magicfrog/memory")
	for _, tc := range []struct {
		path, title, opens string
	}{
		{filepath.Join(task, "style/code.md"), "effective · shadows user, account", ""},
		{filepath.Join(mem, "account/style/code.md"), "shadowed by task (rev 2)", filepath.Join(task, "style/code.md")},
		{filepath.Join(mem, "agent/notes/style.md"), "shadowed by agent larry (rev 5)", filepath.Join(mem, "agent/larry/notes/style.md")},
		{filepath.Join(mem, "agent/larry/notes/style.md"), "effective · shadows agent", ""},
		{filepath.Join(task, "T-7/notes/progress.md"), "effective · shadows task", ""},
		{filepath.Join(mem, "account/tone.md"), "effective", ""},
		{filepath.Join(mem, "device/tools.md"), "device · this machine", ""},
		{filepath.Join(mem, "device/gpu.md"), "device · machine a71be0c94d2f6e13 (not this one)", ""},
		{filepath.Join(mem, "agent/moe/notes/focus.md"), "not in scope (agent moe)", ""},
		{filepath.Join(mem, "agent/helpers/notes.md"), "unregistered folder helpers/: in no block", ""},
	} {
		uri := openFile(t, c, tc.path)
		var lenses []codeLens
		if err := c.Call("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": uri}}, &lenses); err != nil {
			t.Fatal(err)
		}
		if len(lenses) != 1 || lenses[0].Command == nil {
			t.Errorf("%s: lenses %+v, want one with a command", tc.path, lenses)
			continue
		}
		l := lenses[0]
		if l.Range != (lspRange{}) {
			t.Errorf("%s: lens range %+v, want line 0", tc.path, l.Range)
		}
		if l.Command.Title != tc.title {
			t.Errorf("%s: lens %q, want %q", tc.path, l.Command.Title, tc.title)
		}
		want := uri
		if tc.opens != "" {
			want = string(session.PathToURI(tc.opens))
		}
		if l.Command.Command != "magicfrog.showEntry" || len(l.Command.Arguments) != 1 || l.Command.Arguments[0]["uri"] != want {
			t.Errorf("%s: lens command %+v, want magicfrog.showEntry {uri: %s}", tc.path, l.Command, want)
		}
	}
	// A Markdown file that is not memory gets no lens.
	readme := openFile(t, c, filepath.Join(project, "README.md"))
	var lenses []codeLens
	if err := c.Call("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": readme}}, &lenses); err != nil || len(lenses) != 0 {
		t.Errorf("README lenses %+v, %v; want none", lenses, err)
	}
}
