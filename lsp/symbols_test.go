package lsp_test

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/session"
)

type docSymbol struct {
	Name           string
	Detail         string
	Kind           int
	Range          lspRange
	SelectionRange lspRange
	Children       []docSymbol
}

type symbolInfo struct {
	Name          string
	Kind          int
	ContainerName string
	Location      struct {
		URI   string
		Range lspRange
	}
}

func TestDocumentSymbols(t *testing.T) {
	c, data, _ := startDemo(t)
	text := "---\r\nrevision: 2\r\nupdated: 2026-09-02T10:00:00.000Z\r\nname: \"🐸 frog\"\r\n---\r\n" +
		"# Top 🐸\r\nintro\r\n## Sub one\r\nx\r\n### Deep\r\ny\r\n## Sub two\r\nz\r\n\r\nSetext\r\n======\r\nlast\r\n"
	uri := openText(t, c, filepath.Join(data, "memory/user/notes/symbols.md"), text)
	var syms []docSymbol
	if err := c.Call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &syms); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range syms {
		names = append(names, s.Name)
	}
	if strings.Join(names, "|") != "revision|updated|name|Top 🐸|Setext" {
		t.Fatalf("top-level symbols %q", names)
	}
	for _, s := range syms[:3] {
		if s.Kind != 7 {
			t.Errorf("%s: kind %d, want Property (7)", s.Name, s.Kind)
		}
	}
	if syms[0].Detail != "2" || syms[2].Detail != `"🐸 frog"` {
		t.Errorf("details %q %q", syms[0].Detail, syms[2].Detail)
	}
	top := syms[3]
	if len(top.Children) != 2 || top.Children[0].Name != "Sub one" || top.Children[1].Name != "Sub two" ||
		len(top.Children[0].Children) != 1 || top.Children[0].Children[0].Name != "Deep" {
		t.Fatalf("heading tree %+v", top)
	}
	// Ranges in UTF-16: "# Top 🐸" is 8 units long (the frog is two).
	if top.SelectionRange != (lspRange{lspPos{5, 0}, lspPos{5, 8}}) {
		t.Errorf("Top selection %+v", top.SelectionRange)
	}
	// A section runs to the next heading of its level or higher.
	if top.Range.Start != (lspPos{5, 0}) || top.Range.End != (lspPos{12, 1}) {
		t.Errorf("Top range %+v, want 5:0-12:1", top.Range)
	}
	if sub := top.Children[0]; sub.Range.End != (lspPos{10, 1}) {
		t.Errorf("Sub one range %+v, want end 10:1", sub.Range)
	}
	setext := syms[4]
	if setext.SelectionRange != (lspRange{lspPos{14, 0}, lspPos{15, 6}}) || setext.Range.End != (lspPos{16, 4}) {
		t.Errorf("setext heading %+v", setext)
	}
	// The name value spans its quotes: "🐸 frog" with quotes is 9 UTF-16 units.
	if syms[2].Range != (lspRange{lspPos{3, 0}, lspPos{3, 15}}) {
		t.Errorf("name property range %+v", syms[2].Range)
	}
}

func TestWorkspaceSymbols(t *testing.T) {
	c, data, project := startDemo(t)
	query := func(q string) []symbolInfo {
		t.Helper()
		var out []symbolInfo
		if err := c.Call("workspace/symbol", map[string]any{"query": q}, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	all := query("")
	notes := 0
	for _, dir := range []string{filepath.Join(data, "memory"), filepath.Join(project, ".magicfrog/memory")} {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
				notes++
			}
			return nil
		})
	}
	if len(all) != notes {
		t.Errorf("empty query: %d symbols, want every note (%d)", len(all), notes)
	}
	got := query("STYLE/code")
	var conts []string
	for _, s := range got {
		conts = append(conts, s.ContainerName)
		if s.Name != "style/code.md" || s.Kind != 1 || s.Location.Range != (lspRange{}) {
			t.Errorf("symbol %+v", s)
		}
	}
	if strings.Join(conts, ",") != "account,user,task" {
		t.Errorf("style/code containers %q, want account,user,task", conts)
	}
	// Subsequence: "lrystl" matches agent/larry/notes/style.md only.
	got = query("lrystl")
	if len(got) != 1 || got[0].ContainerName != "agent/larry" ||
		got[0].Location.URI != string(session.PathToURI(filepath.Join(data, "memory/agent/larry/notes/style.md"))) {
		t.Errorf("subsequence query: %+v", got)
	}
	// Substring matches come before subsequence matches.
	got = query("progress")
	if len(got) != 2 || got[0].ContainerName != "task" || got[1].ContainerName != "task/T-7" ||
		got[1].Location.URI != string(session.PathToURI(filepath.Join(project, ".magicfrog/memory/T-7/notes/progress.md"))) {
		t.Errorf("progress: %+v", got)
	}
	if got := query("zzzz"); len(got) != 0 {
		t.Errorf("no match: %+v", got)
	}
}
