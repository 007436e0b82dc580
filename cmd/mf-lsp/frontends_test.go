package main

import (
	"encoding/json"
	"errors"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// frontEnds are the packages that only translate (docs/architecture.md, "One
// operations layer"): they call session and engine/participant for every
// operation and use engine types, never engine behaviour.
var frontEnds = []string{"cmd/mf-lsp", "cmd/mf-hook", "cmd/internal/shell", "lsp", "mcpserver"}

// behaviourPackages are the packages whose functions and methods a front end
// must not call: the engine below the operations layer, and the pure checks.
// engine/participant is the layer's lower half, so it is not here, nor its
// embedenv (the front ends that search set the embeddings with it).
func isBehaviourPackage(rel string) bool {
	if rel == "engine/participant" || strings.HasPrefix(rel, "engine/participant/") {
		return false
	}
	return rel == "engine" || strings.HasPrefix(rel, "engine/") || rel == "diagnostics"
}

// allowedCalls are the engine functions and methods a front end may call:
// pure accessors and formatters of engine types, which decide nothing. Keep
// it short; anything that loads, writes, renders, checks or plans belongs in
// session or participant. Key: "package.Func" or "package.Type.Method".
var allowedCalls = map[string]string{
	// Reading an error: its code, details and the engine's refusal it holds.
	"engine/errcode.Of":     "an error's code",
	"engine/errcode.DataOf": "an error's code and details",
	"engine.IsStale":        "the stale write an error holds",
	"engine.AsNotANote":     "the not-a-note refusal an error holds",
	// Parsing a flag's value and formatting a name.
	"engine.ParseDimension":       "a dimension's name",
	"engine.Today":                "a YYYY-MM-DD day",
	"engine.Ref":                  "formats a ref from its parts",
	"engine.Dimension.String":     "a dimension's name",
	"engine.Dimension.HasOwners":  "whether a dimension's notes have an ID",
	"engine.Problem.Error":        "formats a load's problem",
	"diagnostics.Severity.String": "a finding's severity's name",
	// A loaded value's own facts, read from its fields.
	"engine.Note.Ref":            "a note's ref",
	"engine.Note.Revision":       "a note's revision",
	"engine.Note.Updated":        "a note's updated",
	"engine.Note.Machine":        "a device note's machine",
	"engine.Note.Hash":           "a note's content hash",
	"engine.Memory.Len":          "how many notes a load holds",
	"engine.Memory.Problems":     "what a load could not read",
	"engine.Paths.TaskDir":       "where the task root is",
	"engine/rollup.Report.Count": "how many files of an import had a status",
	// A result's name, printed.
	"engine/rollup.Journal.String":  "a journal's name",
	"engine/journal.Rollup.String":  "a rollup kind's name",
	"engine/rollup.Summarizer.Name": "a summarizer's name",
}

// pending are the front ends' files not yet converted to the operations layer:
// they may still call engine behaviour. A file leaves the list when it
// translates only; the test fails for a listed file that no longer needs to be.
var pending = map[string]bool{}

// TestFrontEndsTranslate holds the front ends to the one operations layer:
// no non-test file of cmd/mf-lsp, lsp or mcpserver (outside pending) calls,
// or takes as a value, a function or method declared in engine/... (other
// than engine/participant) or diagnostics, except allowedCalls. It type-checks
// the front ends against the compiler's export data (go list -export).
func TestFrontEndsTranslate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the front ends' dependencies")
	}
	const module = "github.com/magicfrog/mf-lsp/"
	root, err := filepath.Abs(moduleRoot)
	if err != nil {
		t.Fatal(err)
	}
	exports := exportData(t, root, frontEnds)
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok || f == "" {
			return nil, errors.New("no export data for " + path)
		}
		return os.Open(f)
	})
	imports, violations := 0, map[string][]string{}
	used, allowedUsed := map[string]bool{}, map[string]bool{}
	behaviour := map[string]bool{} // "file package": the file calls the package's behaviour
	for _, rel := range frontEnds {
		files := parseDir(t, fset, filepath.Join(root, rel))
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
		conf := types.Config{Importer: imp}
		if _, err := conf.Check(module+rel, fset, files, info); err != nil {
			t.Fatalf("type-checking %s: %v", rel, err)
		}
		for _, f := range files {
			name := rel + "/" + filepath.Base(fset.Position(f.Pos()).Filename)
			for _, is := range f.Imports {
				p := strings.Trim(is.Path.Value, `"`)
				if dep, ok := strings.CutPrefix(p, module); ok && (dep == "engine" || strings.HasPrefix(dep, "engine/")) {
					imports++
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				id, ok := n.(*ast.Ident)
				if !ok {
					return true
				}
				fn, ok := info.Uses[id].(*types.Func)
				if !ok || fn.Pkg() == nil {
					return true
				}
				dep, ok := strings.CutPrefix(fn.Pkg().Path(), module)
				if !ok && fn.Pkg().Path() == strings.TrimSuffix(module, "/") {
					dep, ok = "", true
				}
				if !ok || !isBehaviourPackage(dep) {
					return true
				}
				key := dep + "." + fn.Name()
				if recv := fn.Signature().Recv(); recv != nil {
					rt := recv.Type()
					if p, isPtr := rt.(*types.Pointer); isPtr {
						rt = p.Elem()
					}
					if named, isNamed := rt.(*types.Named); isNamed {
						key = dep + "." + named.Obj().Name() + "." + fn.Name()
					} else if fn.Name() == "Error" || fn.Name() == "String" {
						return true // an interface's formatter
					}
				}
				if _, ok := allowedCalls[key]; ok {
					allowedUsed[key] = true
					return true
				}
				behaviour[name+" "+dep] = true
				if pending[name] {
					used[name] = true
					return true
				}
				violations[name] = append(violations[name], fset.Position(id.Pos()).String()[len(root)+1:]+": "+key)
				return true
			})
		}
	}
	t.Logf("file-to-package imports of engine packages from %s (non-test files): %d; of them calling engine behaviour: %d (pending files included)", strings.Join(frontEnds, ", "), imports, len(behaviour))
	var names []string
	for name := range violations {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Errorf("%s calls engine behaviour; call session or participant (or, for a pure accessor, add it to allowedCalls):\n\t%s",
			name, strings.Join(violations[name], "\n\t"))
	}
	for key := range allowedCalls {
		if !allowedUsed[key] {
			t.Errorf("allowedCalls lists %s, which no front end calls: take it off the list", key)
		}
	}
	for name := range pending {
		if !used[name] {
			if _, err := os.Stat(filepath.Join(root, name)); err == nil {
				t.Errorf("%s is pending but calls no engine behaviour: take it off the list", name)
			}
		}
	}
}

// exportData maps the import path of every dependency of the module's
// packages rels to its compiled export data.
func exportData(t *testing.T, root string, rels []string) map[string]string {
	args := []string{"list", "-export", "-deps", "-json=ImportPath,Export"}
	for _, rel := range rels {
		args = append(args, "./"+rel)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export: %v", err)
	}
	exports := map[string]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p struct{ ImportPath, Export string }
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list -export: %v", err)
		}
		exports[p.ImportPath] = p.Export
	}
	return exports
}

// parseDir parses the non-test Go files of dir that build here.
func parseDir(t *testing.T, fset *token.FileSet, dir string) []*ast.File {
	cmd := exec.Command("go", "list", "-f", "{{join .GoFiles \"\\n\"}}", ".")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v", dir, err)
	}
	var files []*ast.File
	for _, name := range strings.Fields(string(out)) {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}
