package main

import (
	"strings"
	"testing"
)

// layers is docs/architecture.md's layering, bottom up: a package imports
// packages of this module only from layers below its own (or its own layer's
// leaves, listed first). A package missing here fails the test: place it.
var layers = [][]string{
	// Leaves: one job each, stdlib and at most one library.
	{"engine/errcode", "engine/frontmatter", "engine/internal/flatjson", "engine/journal", "engine/safefs", "engine/textmerge", "engine/schedule", "engine/embed", "engine/internal/synth", "engine/internal/o200k", "engine/internal/o200k/gen", "engine/internal/ondemandtrace", "lsp/internal/jsonrpc"},
	{"engine/mdlinks", "engine/internal/hashcache", "engine/internal/notetexts", "lsp/lsptest"},
	{"engine/store", "engine/secrets/scancache"},
	// Secrets (gitleaks), consulting the scan cache.
	{"engine/secrets"},
	// The local history of a memory root (go-git's object store), on the store.
	{"engine/history"},
	// The memory model.
	{"engine"},
	// What stands on it: watching, rollups, roaming, agents, imports.
	{"engine/watch", "engine/rollup", "engine/roam", "engine/managed", "engine/internal/coldbench"},
	{"engine/participant", "engine/importers"},
	// The embedding provider the environment names, for the front ends that
	// search; the MCP server's watcher of a participant's tree.
	{"engine/participant/embedenv", "engine/participant/watcher"},
	// Pure checks.
	{"diagnostics"},
	// The protocol-free core: what the hook commands need (session/base),
	// then the rest.
	{"session/base"},
	{"session"},
	// Front ends: each translates, none imports another (the shell's shared
	// commands are one front end, both binaries' main packages call it).
	{"lsp", "mcpserver", "cmd/internal/shell"},
	{"cmd/mf-lsp", "cmd/mf-hook"},
}

// TestLayers holds the module to its layering: engine never reaches up to
// diagnostics, session or a front end; session imports no front end; lsp and
// mcpserver stand on the core, not on each other.
func TestLayers(t *testing.T) {
	const module = "github.com/magicfrog/mf-lsp/"
	level := map[string]int{}
	for i, l := range layers {
		for _, p := range l {
			level[p] = i
		}
	}
	for rel, pkg := range modulePackages(t) {
		mine, ok := level[rel]
		if !ok {
			t.Errorf("%s is in no layer of layers_test.go (and docs/architecture.md): place it", rel)
			continue
		}
		for _, imp := range pkg.Imports {
			dep, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			if theirs, known := level[dep]; known && theirs >= mine {
				t.Errorf("%s (layer %d) imports %s (layer %d): a package imports only from layers below it", rel, mine, dep, theirs)
			}
		}
	}
}
