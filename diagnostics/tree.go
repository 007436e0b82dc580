package diagnostics

import (
	"cmp"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/magicfrog/mf-lsp/engine"
)

// CheckTree checks every loaded note and reports every file the engine could
// not load (m.Problems()): what `mf-lsp check` prints. in gives the scope, today
// and the open-loop age (its Memory, Entry and Base are not used). Findings are
// sorted by path and position.
func CheckTree(m *engine.Memory, in Input) []Finding {
	problems := ProblemFindings(m)
	sortFindings(problems)
	return mergeFindings(CheckNotes(m, m.NotesUnordered(), in), problems)
}

// CheckNotes checks notes of m on every CPU and returns their findings sorted
// by path and position: each note's Check, in the order of the notes' paths.
// in gives the scope, today and the open-loop age (its Memory, Entry and Base
// are not used). The sync state is read once for all of them.
func CheckNotes(m *engine.Memory, notes []*engine.Note, in Input) []Finding {
	conflicts := in.SyncState.Conflicts(m)
	in.Memory, in.Note, in.Base, in.conflicts = m, nil, nil, &conflicts
	in.overwrites = m.Overwrites()
	if in.overwrites == nil {
		in.overwrites = map[string]engine.Overwrite{}
	}
	results := make([][]Finding, len(notes))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(notes), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(notes); i = int(next.Add(1) - 1) {
				one := in
				one.Note = notes[i]
				results[i] = Check(one)
			}
		}()
	}
	// Each note's findings are sorted and carry its path, so the notes in
	// path order give the findings in order, without sorting them all. The
	// paths are sorted here while the workers check (as pairs with the
	// index: a comparison then reads no note).
	type pathOf struct {
		path string
		i    int
	}
	order := make([]pathOf, len(notes))
	for i, e := range notes {
		order[i] = pathOf{e.Path, i}
	}
	slices.SortFunc(order, func(a, b pathOf) int {
		return cmp.Or(strings.Compare(a.path, b.path), cmp.Compare(a.i, b.i))
	})
	wg.Wait()
	n := 0
	for _, r := range results {
		n += len(r)
	}
	out := make([]Finding, 0, n)
	for _, o := range order {
		out = append(out, results[o.i]...)
	}
	return out
}

// mergeFindings merges two sorted lists, a's first where they tie: what a
// stable sort of a followed by b gives.
func mergeFindings(a, b []Finding) []Finding {
	if len(b) == 0 {
		return a
	}
	out := make([]Finding, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if compareFindings(b[0], a[0]) < 0 {
			out, b = append(out, b[0]), b[1:]
		} else {
			out, a = append(out, a[0]), a[1:]
		}
	}
	out = append(out, a...)
	return append(out, b...)
}

// ProblemFindings turns the files the engine could not load into findings at
// the start of each file.
func ProblemFindings(m *engine.Memory) []Finding {
	config := map[string]bool{}
	for _, p := range []string{m.Paths.LayersFile(), m.Paths.RosterFile(), m.Paths.ProjectConfigFile(), m.Paths.MachineIDFile()} {
		if p != "" {
			config[filepath.Clean(p)] = true
		}
	}
	var out []Finding
	for _, p := range m.Problems() {
		f := Finding{Path: p.Path, Message: p.Message}
		switch {
		case config[filepath.Clean(p.Path)]:
			f.Code, f.Severity = CodeConfigInvalid, Error
		case p.Kind == engine.ProblemBinary:
			f.Code, f.Severity = CodeFileBinary, Warning
		case p.Kind == engine.ProblemTooLarge:
			f.Code, f.Severity = CodeFileTooLarge, Warning
		case p.Kind == engine.ProblemLinkCrossesScope:
			f.Code, f.Severity = CodeLinkCrossesScope, Error
		default:
			f.Code, f.Severity = CodeFileUnreadable, Error
		}
		out = append(out, f)
	}
	return out
}
