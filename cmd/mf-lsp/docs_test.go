package main

import (
	"errors"
	"go/build"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// moduleRoot is the repository root, seen from this package's directory (where go
// test runs).
const moduleRoot = "../.."

// TestEveryPackageHasADoc walks the module and wants a package comment on every
// package in it (packages added later included), so that `go doc` describes each
// in a sentence: "Package NAME ..." for a library, "Command NAME ..." for a
// program.
func TestEveryPackageHasADoc(t *testing.T) {
	checked := 0
	err := filepath.WalkDir(moduleRoot, func(dir string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if name := d.Name(); dir != moduleRoot && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(dir, 0)
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			return nil
		}
		if err != nil {
			t.Errorf("%s: %v", dir, err)
			return nil
		}
		checked++
		rel, _ := filepath.Rel(moduleRoot, dir)
		want := "Package " + pkg.Name + " "
		if pkg.Name == "main" {
			want = "Command "
		}
		switch {
		case pkg.Doc == "":
			t.Errorf("%s: no package comment; add a doc.go saying what package %s is, starting %q", rel, pkg.Name, want)
		case !strings.HasPrefix(pkg.Doc, want):
			t.Errorf("%s: package comment starts %q; want %q...", rel, pkg.Doc, want)
		case !strings.HasSuffix(pkg.Doc, "."):
			t.Errorf("%s: package comment's first sentence %q does not end in a full stop", rel, pkg.Doc)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 20 {
		t.Errorf("checked %d packages; the walk from %s missed the module", checked, moduleRoot)
	}
}
