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
// whole process, each with why it is not a value main makes and passes down.
// The list only shrinks: a new cache or hook fails TestNoGlobalCachesOrHooks.
var processWideCaches = map[string]string{
	"engine/secrets.cache": "in-memory memo of a pure function (the scan of a text)",
	"cmd/mf-lsp.runEnv":    "package main's own: the caches mainExit makes (shell.Env), which each command's Cmd hands to engine.Options (a command takes no argument to carry them)",
}

// TestNoGlobalCachesOrHooks reads every package of the module (tests left out)
// with go/parser and fails on:
//   - a package-level variable that is a hook (a func type, or an uncalled
//     func literal: what a test would swap) or a cache (a *hashcache.File, or
//     a name that says cache or hook);
//   - an exported package-level function that replaces a package-level
//     variable (or a field of one): a process-wide switch
//     (engine.UseTokenCache, secrets.UseCache were two), whatever its name;
//   - a call of go-git's client.InstallProtocol, which replaces a transport
//     for every repository of the process.
//
// Such state belongs in an options struct that main makes and passes down
// (engine.Options, roam.Options, lsp.Options), so that two callers in one
// process never share a switch. Lazily built constants (sync.OnceValue, a
// sync.Once) are not state and pass.
func TestNoGlobalCachesOrHooks(t *testing.T) {
	var found []string
	fset := token.NewFileSet()
	for rel, pkg := range modulePackages(t) {
		var files []*ast.File
		pkgVars := map[string]bool{}
		for _, name := range pkg.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(pkg.Dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
			for _, decl := range f.Decls {
				gen, ok := decl.(*ast.GenDecl)
				if !ok || gen.Tok != token.VAR {
					continue
				}
				for _, spec := range gen.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, id := range vs.Names {
						pkgVars[id.Name] = true
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
		for _, f := range files {
			found = append(found, switchesIn(fset, rel, f, pkgVars)...)
		}
	}
	sort.Strings(found)
	for _, f := range found {
		t.Error(f)
	}
}

// switchesIn finds, in f of package rel, the exported package-level functions
// that assign a package-level variable (pkgVars) and the calls of
// client.InstallProtocol.
func switchesIn(fset *token.FileSet, rel string, f *ast.File, pkgVars map[string]bool) []string {
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "InstallProtocol" {
			found = append(found, fset.Position(call.Pos()).String()+": "+rel+" replaces a go-git transport for the whole process (client.InstallProtocol): drive a transport value instead")
		}
		return true
	})
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || !fn.Name.IsExported() || fn.Body == nil {
			continue
		}
		locals := map[string]bool{} // parameters and results shadow package variables
		for _, fl := range []*ast.FieldList{fn.Type.Params, fn.Type.Results} {
			if fl == nil {
				continue
			}
			for _, field := range fl.List {
				for _, id := range field.Names {
					locals[id.Name] = true
				}
			}
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			var lhs []ast.Expr
			switch st := n.(type) {
			case *ast.AssignStmt:
				if st.Tok == token.DEFINE {
					for _, e := range st.Lhs {
						if id, ok := e.(*ast.Ident); ok {
							locals[id.Name] = true
						}
					}
					return true
				}
				lhs = st.Lhs
			case *ast.IncDecStmt:
				lhs = []ast.Expr{st.X}
			case *ast.ValueSpec:
				for _, id := range st.Names {
					locals[id.Name] = true
				}
			}
			for _, e := range lhs {
				if id := rootIdent(e); id != nil && id.Name != "_" && pkgVars[id.Name] && !locals[id.Name] {
					found = append(found, fset.Position(e.Pos()).String()+": exported "+rel+"."+fn.Name.Name+" sets package variable "+id.Name+" for the whole process: make it a value the caller passes")
				}
			}
			return true
		})
	}
	return found
}

// rootIdent is the variable an assignment's left side replaces (x in x, x.f,
// *x), or nil. An element stored into a map or slice (x[k] = v: a registry
// that interns one value per key, as history.For does per memory root) is not
// a switch and is nil here.
func rootIdent(e ast.Expr) *ast.Ident {
	for {
		switch v := e.(type) {
		case *ast.Ident:
			return v
		case *ast.SelectorExpr:
			e = v.X
		case *ast.StarExpr:
			e = v.X
		case *ast.ParenExpr:
			e = v.X
		default:
			return nil
		}
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
