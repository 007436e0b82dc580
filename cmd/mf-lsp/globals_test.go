package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// processWideCaches are the package variables that still hold a cache for the
// whole process, each with why it is not yet a value main makes and passes down.
// The list only shrinks: a new cache or hook fails TestNoGlobalCachesOrHooks.
var processWideCaches = map[string]string{
	// The token-count cache: Note.Tokens reads it, and a note has no way to its
	// Memory's options yet.
	"engine.tokenCacheMu":         "token-count cache",
	"engine.persistent":           "token-count cache",
	"engine.tokenCacheMaxRecords": "token-count cache (its bound, lowered by a test)",
	"engine/secrets.scanCacheMu":  "secret-scan cache",
	"engine/secrets.scanCache":    "secret-scan cache: diagnostics' secret check reads it",
	"engine/secrets.cache":        "in-memory memo of a pure function (the scan of a text)",
	"engine/roam.stateCache":      "sync-state cache: diagnostics read it on every keystroke",
}

// TestNoGlobalCachesOrHooks reads every package of the module (tests left out)
// with go/parser and fails on a package-level variable that is a hook (a func
// type, or an uncalled func literal: what a test would swap) or a cache (a
// *hashcache.File, or a name that says cache or hook): such state belongs in an
// options struct that main makes and passes down (engine.Options, roam.Options,
// lsp.Options), so that two callers in one process never share a switch. Lazily
// built constants (sync.OnceValue) are not state and pass.
func TestNoGlobalCachesOrHooks(t *testing.T) {
	var found []string
	fset := token.NewFileSet()
	for rel, pkg := range modulePackages(t) {
		for _, name := range pkg.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(pkg.Dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, decl := range f.Decls {
				gen, ok := decl.(*ast.GenDecl)
				if !ok || gen.Tok != token.VAR {
					continue
				}
				for _, spec := range gen.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, id := range vs.Names {
						var value ast.Expr
						if i < len(vs.Values) {
							value = vs.Values[i]
						}
						why := globalState(id.Name, vs.Type, value)
						if why == "" {
							continue
						}
						key := rel + "." + id.Name
						if _, known := processWideCaches[key]; known {
							continue
						}
						found = append(found, fset.Position(id.Pos()).String()+": package variable "+key+" is "+why+": make it a field of the package's options")
					}
				}
			}
		}
	}
	sort.Strings(found)
	for _, f := range found {
		t.Error(f)
	}
}

// globalState says why a package variable is a hook or a cache, or "".
func globalState(name string, typ, value ast.Expr) string {
	if _, ok := typ.(*ast.FuncType); ok {
		return "a hook (a func variable)"
	}
	if _, ok := value.(*ast.FuncLit); ok {
		return "a hook (a func variable)"
	}
	if call, ok := value.(*ast.CallExpr); ok {
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && strings.HasPrefix(sel.Sel.Name, "OnceValue") {
			return "" // a constant built on first use
		}
	}
	if typ != nil && strings.Contains(exprString(typ), "hashcache.") {
		return "a cache"
	}
	lower := strings.ToLower(name)
	switch {
	case strings.Contains(lower, "hook"):
		return "a hook"
	case strings.Contains(lower, "cache"):
		return "a cache"
	}
	return ""
}

// exprString is a type expression's text, enough to spot a package's name in it.
func exprString(e ast.Expr) string {
	var b strings.Builder
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			b.WriteString(id.Name + ".")
		}
		return true
	})
	return b.String()
}
