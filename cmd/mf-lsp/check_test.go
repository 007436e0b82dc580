package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/magicfrog/mf-lsp/diagnostics"
	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/session"
)

// check's text output on a generated tree (more findings than one printing
// chunk, notes below the current directory and outside it, related places,
// a file that does not load, a name with a newline) is what a plain
// line-by-line printer makes of CheckTree's findings: the printer it
// replaced, kept here as the reference.
func TestCheckPrintsLikeLineByLine(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	data, proj := filepath.Join(dir, "data"), filepath.Join(dir, "proj")
	write := func(rel, s string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("data/machine-id", "m1\n")
	write("data/magicfrog.json", `{"agents": ["larry"]}`)
	write("data/memory/user/binary.md", "\x00\x01")
	write("data/memory/user/new\nline.md", "no frontmatter\n")
	fm := "---\nrevision: 1\nupdated: 2026-10-20T09:12:00.000Z\n---\n"
	for i := range 2400 {
		body := fmt.Sprintf("Note %d\nsee [next](n%04d.md)\n", i, i+1)
		switch i % 4 {
		case 0:
			write(fmt.Sprintf("data/memory/account/d%02d/n%04d.md", i%7, i), fm+body)
		case 1: // shadows the account note before it
			write(fmt.Sprintf("data/memory/user/d%02d/n%04d.md", (i-1)%7, i-1), fm+body)
		case 2:
			write(fmt.Sprintf("data/memory/agent/moe/n%04d.md", i), "---\nrevision: 0\n---\n"+body)
		default:
			write(fmt.Sprintf("proj/.magicfrog/memory/n%04d.md", i), fm+body)
		}
	}
	t.Chdir(data)
	var got, gotErr bytes.Buffer
	code := run([]string{"check", "--data-dir", data, "--project", proj, "--today", "2026-11-30"}, strings.NewReader(""), &got, &gotErr)
	if code != exitError {
		t.Fatalf("exit %d, want %d\n%s", code, exitError, gotErr.String())
	}

	m, err := engine.Open(engine.Options{DataDir: data, ProjectDir: proj, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	day, _ := engine.Today("2026-11-30")
	findings := diagnostics.CheckTree(m, diagnostics.Input{Scope: m.DefaultScope(), Today: day, OpenLoopDays: diagnostics.DefaultOpenLoopDays})
	if len(findings) <= 2*printChunk {
		t.Fatalf("%d findings: fewer than the chunks this test means to cross", len(findings))
	}
	var want, wantErr bytes.Buffer
	printLineByLine(&want, &wantErr, m, findings)
	if got.String() != want.String() || gotErr.String() != wantErr.String() {
		t.Errorf("check printed %d bytes, the line-by-line printer %d; first difference at byte %d\n%s", got.Len(), want.Len(),
			firstDiff(got.Bytes(), want.Bytes()), gotErr.String())
	}
	for _, s := range []string{"memory/account/d00/n0000.md:", "\t" + "memory/user/d00/n0000.md:", proj, strconv.Quote("memory/user/new\nline.md"), "file-binary"} {
		if !strings.Contains(got.String(), s) {
			t.Errorf("output lacks %q; the tree no longer exercises it", s)
		}
	}
}

// printLineByLine is printFindings as it was: a Fprintf per line.
func printLineByLine(stdout, stderr io.Writer, m *engine.Memory, findings []diagnostics.Finding) {
	pos := session.NewPositions(m)
	cwd, _ := os.Getwd()
	show := func(p string) string {
		if cwd != "" {
			if rel, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(rel, "..") {
				p = rel
			}
		}
		if strings.ContainsFunc(p, unicode.IsControl) {
			return strconv.Quote(p)
		}
		return p
	}
	oneLine := func(s string) string { return strings.ReplaceAll(s, "\n", " ") }
	counts := map[diagnostics.Severity]int{}
	for _, f := range findings {
		counts[f.Severity]++
		l, col := pos.At(f.Path, f.Span.Start)
		fmt.Fprintf(stdout, "%s:%d:%d: %s %s: %s\n", show(f.Path), l, col, f.Severity, f.Code, oneLine(f.Message))
		for _, r := range f.Related {
			rl, rc := pos.At(r.Path, r.Span.Start)
			fmt.Fprintf(stdout, "\t%s:%d:%d: %s\n", show(r.Path), rl, rc, oneLine(r.Message))
		}
	}
	if len(findings) > 0 {
		fmt.Fprintf(stderr, "mf-lsp check: %s, %s, %d information, %s\n", plural(counts[diagnostics.Error], "error"),
			plural(counts[diagnostics.Warning], "warning"), counts[diagnostics.Information], plural(counts[diagnostics.Hint], "hint"))
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// below is filepath.Rel when that does not climb, whichever of its ways it
// takes.
func TestBelowIsRel(t *testing.T) {
	for _, cwd := range []string{"/", "/a", "/a/b", "/a/b/", "/a/./b", "a/b"} {
		p := newFindingPrinter(nil, cwd)
		for _, path := range []string{"/", "/a", "/a/b", "/a/b/c.md", "/a/bc/d.md", "/a/b/../b/c.md", "/a/b//c.md", "/a/b/..c/d.md",
			"/a/b/./c.md", "/x/y.md", "a/b/c.md", "/a/b/c/"} {
			rel, err := filepath.Rel(cwd, path)
			wantOK := err == nil && !strings.HasPrefix(rel, "..")
			got, ok := p.below(path)
			if ok != wantOK || (ok && got != rel) {
				t.Errorf("below(%q) from %q = %q, %v; Rel says %q, %v", path, cwd, got, ok, rel, wantOK)
			}
		}
	}
}
