package session

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoProtocolImports: the core knows no protocol. Neither session nor
// anything it depends on imports glsp, a JSON-RPC package or the language
// server itself.
func TestNoProtocolImports(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "github.com/magicfrog/mf-lsp/session").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	forbidden := []string{"github.com/tliron/glsp", "github.com/magicfrog/mf-lsp/lsp", "jsonrpc"}
	for _, dep := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if strings.HasPrefix(dep, f) || (f == "jsonrpc" && strings.Contains(dep, f)) {
				t.Errorf("session depends on %s", dep)
			}
		}
	}
}
