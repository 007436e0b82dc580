package lsp_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/magicfrog/mf-lsp/engine/errcode"
	"github.com/magicfrog/mf-lsp/lsp"
	"github.com/magicfrog/mf-lsp/session"
)

// TestSearchCommand: magicfrog.search, through the real binary, answers the
// session participant's search: the hit with its passage's lines in the body
// and in the file (UTF-16 end), and never another agent's note that holds the
// same words.
func TestSearchCommand(t *testing.T) {
	data, project := demo(t)
	passage := "Reconcile the quarterly ledger — before closing 🐸 the month."
	write := func(rel, body string) string {
		p := filepath.Join(data, "memory", rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("---\nrevision: 1\n---\n"+body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	moe := write("agent/moe/notes/runbook.md", "# Billing runbook\n\n\n"+passage+"\n\nAsk finance for the export.\n")
	write("agent/larry/notes/ledger.md", passage+"\nLarry reconciles the quarterly ledger too.\n")

	c := start(t)
	c.Initialize(string(session.PathToURI(project)), map[string]any{"dataDir": data, "today": "2026-11-30",
		"agents": []string{"larry", "moe"}, "participant": "moe"})
	waitIndexed(t, c)

	var res session.SearchResult
	mustExec(t, c, "magicfrog.search", map[string]any{"query": "reconcile the quarterly ledger", "limit": 5}, &res)
	if len(res.Hits) == 0 {
		t.Fatalf("no hits: %+v", res)
	}
	for _, h := range res.Hits {
		if strings.Contains(h.Path, "larry") || strings.Contains(h.Dimension, "larry") {
			t.Errorf("participant moe was answered larry's note %s", h.Path)
		}
	}
	h := res.Hits[0]
	if h.Path != moe || h.Location.URI != string(session.PathToURI(moe)) || h.Dimension != "agent/moe" || h.Key != "notes/runbook.md" || h.Ref != "agent/moe/notes/runbook.md" {
		t.Errorf("best hit %+v; want moe's runbook", h)
	}
	if h.StartLine != 4 || h.EndLine != 4 || h.Snippet != passage {
		t.Errorf("passage: body lines %d-%d %q; want 4-4 %q", h.StartLine, h.EndLine, h.Snippet, passage)
	}
	// Three frontmatter lines: body line 4 is the file's line 6 (from 0).
	want := session.LineRange{Start: session.LinePos{Line: 6}, End: session.LinePos{Line: 6, Character: len(utf16.Encode([]rune(passage)))}}
	if h.Location.Range != want {
		t.Errorf("range %+v; want %+v", h.Location.Range, want)
	}

	// The same search everywhere: the shell's `mf-lsp search --json`, as the
	// same participant, gives the same hits in the same order.
	cli := exec.Command(binary(t), "search", "--json", "--data-dir", data, "--agent", "moe", "--today", "2026-11-30",
		"--limit", "5", "reconcile the quarterly ledger")
	cli.Dir = project
	out, err := cli.Output()
	if err != nil {
		t.Fatalf("mf-lsp search --json: %v", err)
	}
	var shell struct {
		Hits []struct {
			Dimension, Key, Snippet string
			Score                   float64
			StartLine               int `json:"start_line"`
			EndLine                 int `json:"end_line"`
		}
		Total int
	}
	if err := json.Unmarshal(out, &shell); err != nil {
		t.Fatalf("mf-lsp search --json: %v in %s", err, out)
	}
	if len(shell.Hits) != len(res.Hits) || shell.Total != res.Total {
		t.Fatalf("the shell found %d of %d, the editor %d of %d:\n%s", len(shell.Hits), shell.Total, len(res.Hits), res.Total, out)
	}
	for i, sh := range shell.Hits {
		e := res.Hits[i]
		if sh.Dimension != e.Dimension || sh.Key != e.Key || sh.Snippet != e.Snippet || sh.Score != e.Score || sh.StartLine != e.StartLine || sh.EndLine != e.EndLine {
			t.Errorf("hit %d: the shell's %+v, the editor's %+v", i, sh, e.Hit)
		}
	}

	// Bad arguments are InvalidParams with code invalid-argument.
	for _, arg := range []map[string]any{{}, {"query": "the what"}, {"query": "ledger", "limit": -1}} {
		_, err := execCommand(c, "magicfrog.search", arg)
		if rpcCode(err) != lsp.CodeInvalidParams || rpcData(t, err).Code != errcode.InvalidArgument {
			t.Errorf("search %v: %v; want InvalidParams, invalid-argument", arg, err)
		}
	}
}
