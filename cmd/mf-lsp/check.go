package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/magicfrog/mf-lsp/cmd/internal/shell"
	"github.com/magicfrog/mf-lsp/diagnostics"
	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/session"
)

func runCheck(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c, f := newCheckCLI(stdout, stderr)
	paths, code, done := c.Parse(args, 0, 1<<20)
	if done {
		return code
	}
	in, code, ok := f.input(c)
	if !ok {
		return code
	}
	m, err := c.Open(false)
	if err != nil {
		return c.Fail("%v", err)
	}
	in.Scope = f.scope.Scope(c, m)
	findings, err := session.Check(m, session.CheckRequest{Paths: paths, Input: in})
	if err != nil {
		return c.Fail("%v", err)
	}
	if *f.format == "json" {
		if err := printFindingsJSON(stdout, m, findings); err != nil {
			return c.Fail("%v", err)
		}
	} else {
		printFindings(stdout, stderr, m, findings)
	}
	for _, f := range findings {
		if f.Severity == diagnostics.Error {
			return exitError
		}
	}
	return exitOK
}

// checkFlags are the flags of mf-lsp check.
type checkFlags struct {
	scope    shell.ScopeFlags
	format   *string
	today    *string
	loopDays *int
}

func newCheckCLI(stdout, stderr io.Writer) (*cli, *checkFlags) {
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
	f := &checkFlags{}
	f.scope.Register(c)
	f.format = c.FS.String("format", "text", "the output `FORMAT`: text or json")
	f.today = c.FS.String("today", "", "the journal's today, `YYYY-MM-DD`, for date-relative checks (default: the local date)")
	f.loopDays = c.FS.Int("open-loop-days", diagnostics.DefaultOpenLoopDays, "report a refined day's blocker or next step not mentioned again after `N` days")
	return c, f
}

// input checks the flags and makes the checks' input (without the scope,
// which needs the memory); a bad flag is a usage error (ok false).
func (f *checkFlags) input(c *cli) (in diagnostics.Input, code int, ok bool) {
	if *f.format != "text" && *f.format != "json" {
		return in, c.UsageError("--format: want text or json, got %q", *f.format), false
	}
	day, err := engine.Today(*f.today)
	if err != nil {
		return in, c.UsageError("--today: %v", err), false
	}
	if *f.loopDays < 1 {
		return in, c.UsageError("--open-loop-days: want a whole number of days, at least 1"), false
	}
	return diagnostics.Input{Today: day, OpenLoopDays: *f.loopDays}, exitOK, true
}

// printFindingsJSON is --format json: one JSON array of jsonFinding.
func printFindingsJSON(stdout io.Writer, m *engine.Memory, findings []diagnostics.Finding) error {
	pos := session.NewPositions(m)
	out := make([]jsonFinding, 0, len(findings))
	for _, f := range findings {
		l, col := pos.At(f.Path, f.Span.Start)
		el, ecol := pos.At(f.Path, f.Span.End)
		jf := jsonFinding{Path: f.Path, Line: l, Column: col, EndLine: el, EndColumn: ecol,
			Severity: f.Severity.String(), Code: f.Code, Message: f.Message, Related: []jsonRelated{}, Data: f.Data}
		for _, r := range f.Related {
			rl, rc := pos.At(r.Path, r.Span.Start)
			jf.Related = append(jf.Related, jsonRelated{Path: r.Path, Line: rl, Column: rc, Message: r.Message})
		}
		out = append(out, jf)
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// printFindings is the text output: FILE:LINE:COL: SEVERITY CODE: MESSAGE, a
// tab-indented line per related place, and a count per severity on stderr.
// The lines are formatted in chunks on every CPU and written in order, a
// chunk a write (a check of 100,000 notes prints about as many lines).
func printFindings(stdout, stderr io.Writer, m *engine.Memory, findings []diagnostics.Finding) {
	cwd, _ := os.Getwd()
	chunks := make([][]byte, (len(findings)+printChunk-1)/printChunk)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(chunks)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(chunks); i = int(next.Add(1) - 1) {
				chunk := findings[i*printChunk : min((i+1)*printChunk, len(findings))]
				chunks[i] = newFindingPrinter(m, cwd).append(make([]byte, 0, len(chunk)*lineSizeGuess), chunk)
			}
		}()
	}
	wg.Wait()
	for _, b := range chunks {
		stdout.Write(b)
	}
	counts := map[diagnostics.Severity]int{}
	for _, f := range findings {
		counts[f.Severity]++
	}
	if len(findings) > 0 {
		fmt.Fprintf(stderr, "mf-lsp check: %s, %s, %d information, %s\n", plural(counts[diagnostics.Error], "error"),
			plural(counts[diagnostics.Warning], "warning"), counts[diagnostics.Information], plural(counts[diagnostics.Hint], "hint"))
	}
}

// printChunk is how many findings one formatting job takes.
const printChunk = 2048

// lineSizeGuess is about the length of a finding's line (170 bytes on a
// synthetic tree of 100,000 notes), so that a chunk's buffer seldom grows.
const lineSizeGuess = 192

// findingPrinter formats findings as text lines, remembering the last file
// it showed (findings come sorted by file).
type findingPrinter struct {
	pos       *session.Positions
	cwd       string
	cleanCwd  bool // cwd is clean and absolute (below's shortcut)
	last, shw string
}

func newFindingPrinter(m *engine.Memory, cwd string) *findingPrinter {
	return &findingPrinter{pos: session.NewPositions(m), cwd: cwd, cleanCwd: isCleanAbs(cwd)}
}

// append appends each finding's line, FILE:LINE:COL: SEVERITY CODE: MESSAGE,
// and a tab-indented FILE:LINE:COL: MESSAGE line per related place.
func (p *findingPrinter) append(b []byte, findings []diagnostics.Finding) []byte {
	for _, f := range findings {
		l, col := p.pos.At(f.Path, f.Span.Start)
		b = p.appendPlace(b, f.Path, l, col)
		b = append(b, ' ')
		b = append(b, f.Severity.String()...)
		b = append(b, ' ')
		b = append(b, f.Code...)
		b = append(b, ": "...)
		b = appendOneLine(b, f.Message)
		b = append(b, '\n')
		for _, r := range f.Related {
			rl, rc := p.pos.At(r.Path, r.Span.Start)
			b = append(b, '\t')
			b = p.appendPlace(b, r.Path, rl, rc)
			b = append(b, ' ')
			b = appendOneLine(b, r.Message)
			b = append(b, '\n')
		}
	}
	return b
}

// appendPlace appends FILE:LINE:COL: .
func (p *findingPrinter) appendPlace(b []byte, path string, line, col int) []byte {
	b = append(b, p.show(path)...)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(line), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(col), 10)
	return append(b, ':')
}

// show is how a file is named: relative to the current directory when it is
// below it, quoted when it holds a control character.
func (p *findingPrinter) show(path string) string {
	if path == p.last {
		return p.shw
	}
	shown := path
	if p.cwd != "" {
		if rel, ok := p.below(path); ok {
			shown = rel
		}
	}
	if strings.ContainsFunc(shown, unicode.IsControl) {
		shown = strconv.Quote(shown) // a newline in a name must not split the line
	}
	p.last, p.shw = path, shown
	return shown
}

// below is filepath.Rel(cwd, path) when that does not climb (start with
// ".."). Rel cleans both paths on every call, most of the cost of printing
// 100,000 findings; for two clean absolute paths it is what follows cwd in
// path, or climbs.
func (p *findingPrinter) below(path string) (string, bool) {
	if !p.cleanCwd || !isCleanAbs(path) {
		rel, err := filepath.Rel(p.cwd, path)
		return rel, err == nil && !strings.HasPrefix(rel, "..")
	}
	var rel string
	switch {
	case path == p.cwd:
		rel = "."
	case p.cwd == "/":
		rel = path[1:]
	case len(path) > len(p.cwd) && path[len(p.cwd)] == '/' && strings.HasPrefix(path, p.cwd):
		rel = path[len(p.cwd)+1:]
	default:
		return "", false
	}
	return rel, !strings.HasPrefix(rel, "..")
}

// isCleanAbs reports whether path is absolute and clean (filepath.Clean
// would return it as it is), on systems whose separator is a slash.
func isCleanAbs(path string) bool {
	if filepath.Separator != '/' || !strings.HasPrefix(path, "/") {
		return false
	}
	if path == "/" {
		return true
	}
	for rest := path[1:]; ; {
		elem, after, more := strings.Cut(rest, "/")
		if elem == "" || elem == "." || elem == ".." {
			return false
		}
		if !more {
			return true
		}
		rest = after
	}
}

func appendOneLine(b []byte, s string) []byte {
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return append(b, s...)
		}
		b = append(b, s[:i]...)
		b = append(b, ' ')
		s = s[i+1:]
	}
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
