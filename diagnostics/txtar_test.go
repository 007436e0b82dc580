package diagnostics

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/journal"
)

// TestTxtar runs the cases in testdata/diagnostics/*.txtar. Each archive is a
// small tree (files under data/ and project/) plus:
//
//	comment lines (directives):
//	  today YYYY-MM-DD            enable journal checks with this today
//	  scope task=T agents=a,b machine=M   the session scope (default: the project's)
//	  base PATH REV [hash=H]      check the "buffer PATH" section against this base
//	  nul PATH                    write a file holding a NUL byte (binary)
//	  big PATH                    write a file larger than engine.MaxNoteSize
//	  symlink PATH TARGET         make a symbolic link
//	-- buffer PATH --             an unsaved editor buffer for PATH: its findings
//	                              replace those of the file on disk
//	-- want --                    one finding per line:
//	                              PATH:LINE:COL-LINE:COL SEVERITY CODE ["message substring"]
//
// Lines and columns are 1-based; columns count bytes. Every finding of the tree
// must be listed, no more, no less.
func TestTxtar(t *testing.T) {
	files, _ := filepath.Glob("../testdata/diagnostics/*.txtar")
	if len(files) == 0 {
		t.Fatal("no txtar cases")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			runTxtar(t, file)
		})
	}
}

type wantLine struct {
	key  string // "path:l:c-l:c severity code"
	text string // optional message substring
	line string
}

func runTxtar(t *testing.T, file string) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	buffers := map[string][]byte{}
	var wants []wantLine
	for _, f := range ar.Files {
		switch {
		case f.Name == "want":
			for _, l := range strings.Split(string(f.Data), "\n") {
				l = strings.TrimSpace(l)
				if l == "" || strings.HasPrefix(l, "#") {
					continue
				}
				fs := strings.SplitN(l, " ", 4)
				if len(fs) < 3 {
					t.Fatalf("bad want line %q", l)
				}
				w := wantLine{key: strings.Join(fs[:3], " "), line: l}
				if len(fs) == 4 {
					w.text, err = strconv.Unquote(strings.TrimSpace(fs[3]))
					if err != nil {
						t.Fatalf("want line %q: message must be quoted: %v", l, err)
					}
				}
				wants = append(wants, w)
			}
		case strings.HasPrefix(f.Name, "buffer "):
			buffers[strings.TrimPrefix(f.Name, "buffer ")] = f.Data
		default:
			writeFile(t, filepath.Join(dir, f.Name), f.Data)
		}
	}
	var today journal.Day
	var scope *engine.Scope
	bases := map[string]*Base{}
	for _, l := range strings.Split(string(ar.Comment), "\n") {
		fs := strings.Fields(l)
		if len(fs) == 0 || strings.HasPrefix(fs[0], "#") {
			continue
		}
		switch fs[0] {
		case "today":
			if today, err = journal.ParseDay(fs[1]); err != nil {
				t.Fatal(err)
			}
		case "scope":
			scope = &engine.Scope{}
			for _, kv := range fs[1:] {
				k, v, _ := strings.Cut(kv, "=")
				switch k {
				case "task":
					scope.Task = v
				case "agents":
					scope.Agents = strings.Split(v, ",")
				case "machine":
					scope.Machine = v
				}
			}
		case "base":
			rev, _ := strconv.Atoi(fs[2])
			b := &Base{Revision: rev}
			if len(fs) > 3 {
				b.Hash = strings.TrimPrefix(fs[3], "hash=")
			}
			bases[fs[1]] = b
		case "nul":
			writeFile(t, filepath.Join(dir, fs[1]), []byte("---\nrevision: 1\n---\nbinary\x00data\n"))
		case "big":
			writeFile(t, filepath.Join(dir, fs[1]), bytes.Repeat([]byte("x"), engine.MaxNoteSize+1))
		case "symlink":
			p := filepath.Join(dir, fs[1])
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.Symlink(fs[2], p); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("unknown directive %q", l)
		}
	}

	opts := engine.Options{DataDir: filepath.Join(dir, "data"), Getenv: func(string) string { return "" }}
	if _, err := os.Stat(filepath.Join(dir, "project")); err == nil {
		opts.ProjectDir = filepath.Join(dir, "project")
	}
	m, err := engine.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	s := m.DefaultScope()
	if scope != nil {
		s = *scope
	}
	got := CheckTree(m, Input{Scope: s, Today: today})
	sources := map[string][]byte{}
	for _, e := range m.Notes() {
		sources[e.Path] = e.TextOrNil()
	}
	for rel, buf := range buffers {
		path := filepath.Join(dir, rel)
		e, p, ok := m.Parse(path, buf)
		if !ok || p != nil {
			t.Fatalf("buffer %s: not a note (%v)", rel, p)
		}
		kept := got[:0]
		for _, f := range got {
			if f.Path != path {
				kept = append(kept, f)
			}
		}
		got = append(kept, Check(Input{Memory: m, Note: e, Scope: s, Base: bases[rel], Today: today})...)
		sources[path] = buf
	}
	var gotKeys []string
	gotByKey := map[string][]Finding{}
	for _, f := range got {
		checkSpan(t, f, sources[f.Path])
		rel, _ := filepath.Rel(dir, f.Path)
		k := fmt.Sprintf("%s:%s %s %s", filepath.ToSlash(rel), position(sources[f.Path], f), f.Severity, f.Code)
		gotKeys = append(gotKeys, k)
		gotByKey[k] = append(gotByKey[k], f)
	}
	var wantKeys []string
	for _, w := range wants {
		wantKeys = append(wantKeys, w.key)
		if w.text == "" {
			continue
		}
		found := false
		for _, f := range gotByKey[w.key] {
			found = found || strings.Contains(f.Message, w.text)
		}
		if !found && len(gotByKey[w.key]) > 0 {
			t.Errorf("%s: no message contains %q; got %q", w.key, w.text, gotByKey[w.key][0].Message)
		}
	}
	sort.Strings(gotKeys)
	sort.Strings(wantKeys)
	if strings.Join(gotKeys, "\n") != strings.Join(wantKeys, "\n") {
		t.Errorf("findings differ\n--- got\n%s\n--- want\n%s", strings.Join(gotKeys, "\n"), strings.Join(wantKeys, "\n"))
		for _, f := range got {
			t.Logf("  %s: %s", f.Code, f.Message)
		}
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// position renders a finding's span as LINE:COL-LINE:COL (1-based, byte columns).
func position(src []byte, f Finding) string {
	l1, c1 := lineCol(src, f.Span.Start)
	l2, c2 := lineCol(src, f.Span.End)
	return fmt.Sprintf("%d:%d-%d:%d", l1, c1, l2, c2)
}

func lineCol(src []byte, off int) (int, int) {
	if off > len(src) {
		off = len(src)
	}
	line := 1 + bytes.Count(src[:off], []byte("\n"))
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	return line, off - start + 1
}

// checkSpan holds every finding to a valid range of its note's source.
func checkSpan(t *testing.T, f Finding, src []byte) {
	t.Helper()
	if f.Span.Start < 0 || f.Span.End < f.Span.Start || f.Span.End > len(src) {
		t.Errorf("%s %s: span %v outside the source (%d bytes)", f.Path, f.Code, f.Span, len(src))
	}
}
