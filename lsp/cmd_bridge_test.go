package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// magicfrog.renderInto keeps the managed section of the project's CLAUDE.md:
// appended, then unchanged, every byte outside the markers kept.
func TestCommandRenderInto(t *testing.T) {
	c, _, project := startDemo(t)
	host := filepath.Join(project, "CLAUDE.md")
	mine := "# For agents\r\n\r\nRun make.\r\n"
	if err := os.WriteFile(host, []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	var res struct{ Path, URI, Outcome, Generation string }
	mustExec(t, c, "magicfrog.renderInto", map[string]any{}, &res)
	if res.Path != host || res.Outcome != "appended" || len(res.Generation) != 8 {
		t.Fatalf("renderInto: %+v", res)
	}
	b, _ := os.ReadFile(host)
	if !strings.HasPrefix(string(b), mine+"\r\n<!-- mf-lsp:begin") || !strings.Contains(string(b), `task="T-7"`) {
		t.Errorf("CLAUDE.md:\n%q", b)
	}
	mustExec(t, c, "magicfrog.renderInto", map[string]any{"file": "CLAUDE.md"}, &res)
	if res.Outcome != "unchanged" {
		t.Errorf("second renderInto: %+v", res)
	}
	wantInvalidParams(t, c, "magicfrog.renderInto", map[string]any{"budget": -1}, "budget")
}
