package lsp_test

import (
	"path/filepath"
	"testing"

	"github.com/magicfrog/mf-lsp/session"
)

// Issue 14, smaller items: a bad scope is bad params (-32602), not a failed
// request (-32803), and a rollup for scope "../../x" is refused instead of
// answering OK having done nothing.
func TestCommandsRefuseBadScopes(t *testing.T) {
	c, _, project := startDemo(t)
	src := session.PathToURI(filepath.Join(project, ".magicfrog/memory/T-7/notes/progress.md"))
	for _, scope := range []string{"../../x", " ", "a\nb", ".hidden"} {
		wantInvalidParams(t, c, "magicfrog.promote", map[string]any{"uri": src, "to": "agent", "scope": scope}, `"scope"`)
		wantInvalidParams(t, c, "magicfrog.today", map[string]any{"dimension": "agent", "scope": scope}, `"scope"`)
		wantInvalidParams(t, c, "magicfrog.rollup", map[string]any{"kind": "due", "scope": scope}, `"scope"`)
	}
}
