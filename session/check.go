package session

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/magicfrog/mf-lsp/diagnostics"
	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/safefs"
)

// CheckRequest is `mf-lsp check`: the editor's checks over the notes below
// each of Paths (a note or a folder; none: the whole tree) and the files there
// the engine could not load, with Input's scope, today and open-loop days.
type CheckRequest struct {
	Paths []string
	Input diagnostics.Input
}

// Check runs the checks r asks for, sorted by file and position. A path
// outside the memory tree, or a file that is not a note, is an error.
func Check(m *engine.Memory, r CheckRequest) ([]diagnostics.Finding, error) {
	if len(r.Paths) == 0 {
		return diagnostics.CheckTree(m, r.Input), nil
	}
	var notes []*engine.Note
	var problems []diagnostics.Finding
	seen := map[string]bool{}
	all, allProblems := m.Notes(), diagnostics.ProblemFindings(m)
	for _, arg := range r.Paths {
		ns, ps, err := checkPath(m, arg, all, allProblems, seen)
		if err != nil {
			return nil, err
		}
		notes, problems = append(notes, ns...), append(problems, ps...)
	}
	findings := append(diagnostics.CheckNotes(m, notes, r.Input), problems...)
	sort.SliceStable(findings, func(i, j int) bool {
		if findings[i].Path != findings[j].Path {
			return findings[i].Path < findings[j].Path
		}
		return findings[i].Span.Start < findings[j].Span.Start
	})
	return findings, nil
}

// checkPath picks the notes and problems below one path that seen does not
// hold yet, and adds them to seen. A path outside the memory tree, or a file
// that is not a note, is an error.
func checkPath(m *engine.Memory, arg string, notes []*engine.Note, problems []diagnostics.Finding, seen map[string]bool) ([]*engine.Note, []diagnostics.Finding, error) {
	abs, err := filepath.Abs(arg)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", arg, err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return nil, nil, err
	}
	if _, ok := m.Locate(abs); !ok && !isAncestorOfRoot(m, abs) {
		return nil, nil, fmt.Errorf("%s is not in the memory tree (data directory %s, project %s): pass --data-dir or --project", arg, m.Paths.DataDir, orDash(m.Paths.ProjectDir))
	}
	under := func(p string) bool {
		if !info.IsDir() {
			return p == abs
		}
		rel, err := filepath.Rel(abs, p)
		return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	}
	var picked []*engine.Note
	var found []diagnostics.Finding
	for _, e := range notes {
		if under(e.Path) && !seen[e.Path] {
			seen[e.Path] = true
			picked = append(picked, e)
		}
	}
	for _, f := range problems {
		if under(f.Path) && !seen["problem\x00"+f.Path] {
			seen["problem\x00"+f.Path] = true
			found = append(found, f)
		}
	}
	if len(picked) == 0 && len(found) == 0 && !info.IsDir() {
		return nil, nil, fmt.Errorf("%s is not a memory note (notes are .md files; hidden files are not read)", arg)
	}
	return picked, found, nil
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

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Positions converts byte offsets of notes to 1-based lines and byte columns
// (as gcc, go vet and gopls count), reading each file once: the loaded note's
// bytes, else the file. Not safe for concurrent use; make one per goroutine.
type Positions struct {
	m        *engine.Memory
	src      map[string][]byte
	lastPath string // findings come sorted by file: the last one asked
	lastSrc  []byte
}

// NewPositions converts offsets of m's notes and files.
func NewPositions(m *engine.Memory) *Positions {
	return &Positions{m: m, src: map[string][]byte{}}
}

// At is the line and byte column of offset in path.
func (p *Positions) At(path string, offset int) (line, col int) {
	src := p.source(path)
	offset = min(max(offset, 0), len(src))
	before := src[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	start := bytes.LastIndexByte(before, '\n') + 1
	return line, offset - start + 1
}

func (p *Positions) source(path string) []byte {
	if path == p.lastPath && path != "" {
		return p.lastSrc
	}
	src, ok := p.src[path]
	if !ok {
		if e := p.m.Note(path); e != nil {
			src = e.TextOrNil()
		} else {
			if b, err := safefs.ReadFile(path, engine.MaxNoteSize); err == nil {
				src = b
			}
			p.src[path] = src // a note's bytes are at hand: only files are kept
		}
	}
	p.lastPath, p.lastSrc = path, src
	return src
}
