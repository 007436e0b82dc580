package main

import (
	"errors"
	"go/build"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// layers is docs/architecture.md's layering, bottom up: a package imports
// packages of this module only from layers below its own (or its own layer's
// leaves, listed first). A package missing here fails the test: place it.
var layers = [][]string{
	// Leaves: one job each, stdlib and at most one library.
	{"engine/frontmatter", "engine/journal", "engine/safefs", "engine/textmerge", "engine/schedule", "engine/internal/synth", "lsp/internal/jsonrpc", "lsp/lsptest"},
	{"engine/mdlinks", "engine/internal/hashcache"},
	{"engine/store", "engine/secrets"},
	// The memory model.
	{"engine"},
	// What stands on it: watching, rollups, roaming, agents, imports.
	{"engine/watch", "engine/rollup", "engine/roam", "engine/managed", "engine/internal/coldbench"},
	{"engine/participant", "engine/importers"},
	// Pure checks.
	{"diagnostics"},
	// The protocol-free core.
	{"session"},
	// Front ends: each translates, none imports another.
	{"lsp", "mcpserver"},
	{"cmd/mf-lsp"},
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
	err := filepath.WalkDir(moduleRoot, func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if name := d.Name(); dir != moduleRoot && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(dir, 0)
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			return nil
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(moduleRoot, dir)
		rel = filepath.ToSlash(rel)
		mine, ok := level[rel]
		if !ok {
			t.Errorf("%s is in no layer of layers_test.go (and docs/architecture.md): place it", rel)
			return nil
		}
		for _, imp := range pkg.Imports {
			dep, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			if theirs, known := level[dep]; known && theirs >= mine && !(rel == "cmd/mf-lsp") {
				t.Errorf("%s (layer %d) imports %s (layer %d): a package imports only from layers below it", rel, mine, dep, theirs)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
