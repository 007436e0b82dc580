package main

import (
	"os/exec"
	"strings"
	"testing"
)

// heavy are the packages the hook commands never need, by import path prefix
// (an entry ending in "$" is that package exactly): gitleaks and its decoders
// (the checks' and sync's secret scan), the MCP SDK and its JSON Schema
// package, goldmark (the checks' links), go-git's root package and its
// transports with ssh, openpgp and net/http (sync), and the layers above
// the hook's: diagnostics, session, the language and MCP servers. go-git's
// storage (storage/filesystem) and its configuration package are out too:
// they link gcfg, which imports encoding/gob (its init builds a type table),
// and go-git's URL regexps; the history keeps its objects itself.
var heavy = []string{
	"github.com/zricethezav/gitleaks",
	"github.com/modelcontextprotocol/",
	"github.com/google/jsonschema-go",
	"github.com/yuin/goldmark",
	"github.com/go-git/go-git/v5$",
	"github.com/go-git/go-git/v5/plumbing/transport",
	"github.com/go-git/go-git/v5/storage/filesystem",
	"github.com/go-git/go-git/v5/config",
	"github.com/go-git/go-git/v5/internal/url",
	"github.com/go-git/gcfg",
	"encoding/gob",
	"golang.org/x/crypto/ssh",
	"github.com/ProtonMail/go-crypto",
	"github.com/magicfrog/mf-lsp/diagnostics",
	"github.com/magicfrog/mf-lsp/session$",
	"github.com/magicfrog/mf-lsp/lsp",
	"github.com/magicfrog/mf-lsp/mcpserver",
}

// lean are the packages that must link none of heavy, and what else each
// must not link: the engine has no network client at all (net/http is
// search's embeddings', in engine/embed, beneath participant).
var lean = map[string][]string{
	"github.com/magicfrog/mf-lsp/engine":             {"net/http$"},
	"github.com/magicfrog/mf-lsp/engine/history":     {"net/http$"},
	"github.com/magicfrog/mf-lsp/engine/participant": nil,
	"github.com/magicfrog/mf-lsp/session/base":       nil,
	"github.com/magicfrog/mf-lsp/cmd/internal/shell": nil,
	"github.com/magicfrog/mf-lsp/cmd/mf-hook":        nil,
}

// TestLeanDeps fails when a package of the hook commands' graph links one of
// heavy again: Go runs the initializers of every package a binary links, so
// one import of the checks, the servers or sync puts their start-up cost
// (gitleaks' rules, the SDK's schemas, go-git's transports) back on every
// hook call. It lists each package's dependencies with go list -deps.
func TestLeanDeps(t *testing.T) {
	for pkg, extra := range lean {
		cmd := exec.Command("go", "list", "-deps", pkg)
		cmd.Dir = moduleRoot
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		deps := strings.Fields(string(out))
		for _, bad := range append(append([]string(nil), heavy...), extra...) {
			exact := strings.HasSuffix(bad, "$")
			prefix := strings.TrimSuffix(bad, "$")
			for _, d := range deps {
				if d == prefix || (!exact && strings.HasPrefix(d, prefix)) {
					t.Errorf("%s links %s: the hook commands' graph must not (see docs/architecture.md, \"Start-up\")", pkg, d)
					break
				}
			}
		}
	}
}
