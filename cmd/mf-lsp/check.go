package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/magicfrog/mf-lsp/diagnostics"
	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/safefs"
)

func runCheck(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCLI("check", "mf-lsp check [PATH...] [--format text|json] [--today YYYY-MM-DD] [--open-loop-days N] [--task ID] [--agent ID]... [--machine ID]", `
Run the editor's checks from the shell (docs/diagnostics.md): every note of
the memory tree, or the notes below each PATH (a note or a folder inside the
data directory or the project's .magicfrog/memory), and the files the engine
could not load.

Text output, one finding per line, sorted by file and position:

  FILE:LINE:COL: SEVERITY CODE: MESSAGE

LINE and COL are 1-based; COL counts bytes (as gcc, go vet and gopls do). FILE
is relative to the current directory when it is below it. Related places
follow on lines starting with a tab. --format json prints one JSON array of
{path, line, column, endLine, endColumn, severity, code, message, related,
data}.

Exit code 1 when any finding is an error, else 0 (warnings do not fail);
2 on bad usage.`, stdout, stderr)
	var sf scopeFlags
	sf.register(c)
	format := c.fs.String("format", "text", "the output `FORMAT`: text or json")
	today := c.fs.String("today", "", "the journal's today, `YYYY-MM-DD`, for date-relative checks (default: the local date)")
	loopDays := c.fs.Int("open-loop-days", diagnostics.DefaultOpenLoopDays, "report a refined day's blocker or next step not mentioned again after `N` days")
	paths, code, done := c.parse(args, 0, 1<<20)
	if done {
		return code
	}
	if *format != "text" && *format != "json" {
		return c.usageError("--format: want text or json, got %q", *format)
	}
	day, err := engine.Today(*today)
	if err != nil {
		return c.usageError("--today: %v", err)
	}
	if *loopDays < 1 {
		return c.usageError("--open-loop-days: want a whole number of days, at least 1")
	}
	m, err := c.open(false)
	if err != nil {
		return c.fail("%v", err)
	}
	scope := sf.scope(c, m)

	var findings []diagnostics.Finding
	if len(paths) == 0 {
		findings = diagnostics.CheckTree(m, diagnostics.Input{Scope: scope, Today: day, OpenLoopDays: *loopDays})
	} else {
		seen := map[string]bool{}
		problems := diagnostics.ProblemFindings(m)
		for _, arg := range paths {
			abs, err := filepath.Abs(arg)
			if err != nil {
				return c.fail("%s: %v", arg, err)
			}
			info, err := os.Stat(abs)
			if err != nil {
				return c.fail("%v", err)
			}
			if _, ok := m.Locate(abs); !ok && !isAncestorOfRoot(m, abs) {
				return c.fail("%s is not in the memory tree (data directory %s, project %s): pass --data-dir or --project", arg, m.Paths.DataDir, orDash(m.Paths.ProjectDir))
			}
			under := func(p string) bool {
				if !info.IsDir() {
					return p == abs
				}
				rel, err := filepath.Rel(abs, p)
				return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
			}
			matched := false
			for _, e := range m.Notes() {
				if !under(e.Path) || seen[e.Path] {
					continue
				}
				seen[e.Path], matched = true, true
				findings = append(findings, diagnostics.Check(diagnostics.Input{Memory: m, Note: e, Scope: scope, Today: day, OpenLoopDays: *loopDays})...)
			}
			for _, f := range problems {
				if under(f.Path) && !seen["problem\x00"+f.Path] {
					seen["problem\x00"+f.Path], matched = true, true
					findings = append(findings, f)
				}
			}
			if !matched && !info.IsDir() {
				return c.fail("%s is not a memory note (notes are .md files; hidden files are not read)", arg)
			}
		}
		sort.SliceStable(findings, func(i, j int) bool {
			if findings[i].Path != findings[j].Path {
				return findings[i].Path < findings[j].Path
			}
			return findings[i].Span.Start < findings[j].Span.Start
		})
	}

	pos := newPositions(m)
	cwd, _ := os.Getwd()
	show := func(p string) string {
		if cwd != "" {
			if rel, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(rel, "..") {
				p = rel
			}
		}
		if strings.ContainsFunc(p, unicode.IsControl) {
			return strconv.Quote(p) // a newline in a name must not split the line
		}
		return p
	}
	errors := 0
	counts := map[diagnostics.Severity]int{}
	for _, f := range findings {
		counts[f.Severity]++
		if f.Severity == diagnostics.Error {
			errors++
		}
	}
	if *format == "json" {
		out := make([]jsonFinding, 0, len(findings))
		for _, f := range findings {
			l, col := pos.at(f.Path, f.Span.Start)
			el, ecol := pos.at(f.Path, f.Span.End)
			jf := jsonFinding{Path: f.Path, Line: l, Column: col, EndLine: el, EndColumn: ecol,
				Severity: f.Severity.String(), Code: f.Code, Message: f.Message, Related: []jsonRelated{}, Data: f.Data}
			for _, r := range f.Related {
				rl, rc := pos.at(r.Path, r.Span.Start)
				jf.Related = append(jf.Related, jsonRelated{Path: r.Path, Line: rl, Column: rc, Message: r.Message})
			}
			out = append(out, jf)
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(out); err != nil {
			return c.fail("%v", err)
		}
	} else {
		for _, f := range findings {
			l, col := pos.at(f.Path, f.Span.Start)
			fmt.Fprintf(stdout, "%s:%d:%d: %s %s: %s\n", show(f.Path), l, col, f.Severity, f.Code, oneLine(f.Message))
			for _, r := range f.Related {
				rl, rc := pos.at(r.Path, r.Span.Start)
				fmt.Fprintf(stdout, "\t%s:%d:%d: %s\n", show(r.Path), rl, rc, oneLine(r.Message))
			}
		}
		if len(findings) > 0 {
			fmt.Fprintf(stderr, "mf-lsp check: %s, %s, %d information, %s\n", plural(counts[diagnostics.Error], "error"),
				plural(counts[diagnostics.Warning], "warning"), counts[diagnostics.Information], plural(counts[diagnostics.Hint], "hint"))
		}
	}
	if errors > 0 {
		return exitError
	}
	return exitOK
}

type jsonFinding struct {
	Path      string         `json:"path"`
	Line      int            `json:"line"`
	Column    int            `json:"column"`
	EndLine   int            `json:"endLine"`
	EndColumn int            `json:"endColumn"`
	Severity  string         `json:"severity"`
	Code      string         `json:"code"`
	Message   string         `json:"message"`
	Related   []jsonRelated  `json:"related"`
	Data      map[string]any `json:"data,omitempty"`
}

type jsonRelated struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
}

// positions converts byte offsets of notes to 1-based lines and byte columns,
// reading each file once (the loaded note's bytes, else the file).
type positions struct {
	m   *engine.Memory
	src map[string][]byte
}

func newPositions(m *engine.Memory) *positions {
	return &positions{m: m, src: map[string][]byte{}}
}

func (p *positions) at(path string, offset int) (line, col int) {
	src, ok := p.src[path]
	if !ok {
		if e := p.m.Note(path); e != nil {
			src = e.Src
		} else if b, err := safefs.ReadFile(path, engine.MaxNoteSize); err == nil {
			src = b
		}
		p.src[path] = src
	}
	offset = min(max(offset, 0), len(src))
	before := src[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	start := bytes.LastIndexByte(before, '\n') + 1
	return line, offset - start + 1
}

// isAncestorOfRoot reports whether dir holds a memory root (the data directory
// itself, the project): checking it checks the notes below.
func isAncestorOfRoot(m *engine.Memory, dir string) bool {
	for _, r := range m.Paths.Roots() {
		if rel, err := filepath.Rel(dir, r.Dir); err == nil && !strings.HasPrefix(rel, "..") {
			return true
		}
	}
	return false
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
