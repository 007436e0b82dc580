package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// knownJSONRPC are JSON-RPC implementations a module might require. The module has
// one, lsp/internal/jsonrpc, which the server and the test client (lsp/lsptest) both
// speak through; the MCP server's lives inside go-sdk and is not ours to choose.
var knownJSONRPC = []string{
	"github.com/sourcegraph/jsonrpc2",
	"go.lsp.dev/jsonrpc2",
	"github.com/creachadair/jrpc2",
	"github.com/ybbus/jsonrpc",
	"github.com/powerman/rpc-codec",
	"github.com/filecoin-project/go-jsonrpc",
	"github.com/AdamSLevy/jsonrpc2",
	"github.com/osamingo/jsonrpc",
}

// TestOneJSONRPCStack fails when go.mod requires a second JSON-RPC implementation
// (directly or as an indirect requirement): a known one, or any module whose path
// says it is one.
func TestOneJSONRPCStack(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(moduleRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, mod := range requiredModules(string(data)) {
		lower := strings.ToLower(mod)
		second := strings.Contains(lower, "jsonrpc") || strings.Contains(lower, "jrpc")
		for _, k := range knownJSONRPC {
			second = second || mod == k || strings.HasPrefix(mod, k+"/")
		}
		if second {
			t.Errorf("go.mod requires %s, a second JSON-RPC implementation: speak through lsp/internal/jsonrpc", mod)
		}
	}
}

// requiredModules lists the module paths of go.mod's require directives, in both
// the one-line and the block form.
func requiredModules(gomod string) []string {
	var mods []string
	inBlock := false
	for _, line := range strings.Split(gomod, "\n") {
		line, _, _ = strings.Cut(line, "//")
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
		case inBlock && f[0] == ")":
			inBlock = false
		case inBlock:
			mods = append(mods, f[0])
		case f[0] == "require" && len(f) >= 2 && f[1] == "(":
			inBlock = true
		case f[0] == "require" && len(f) >= 3:
			mods = append(mods, f[1])
		}
	}
	return mods
}

func TestRequiredModules(t *testing.T) {
	got := requiredModules("module m\n\nrequire a.b/c v1\nrequire (\n\td.e/f v2 // indirect\n\tg.h/i v3\n)\n")
	if strings.Join(got, " ") != "a.b/c d.e/f g.h/i" {
		t.Errorf("requiredModules = %q", got)
	}
}
