package diagnostics

import (
	"path/filepath"
	"runtime"
	"sync"

	"github.com/magicfrog/mf-lsp/engine"
)

// CheckTree checks every loaded note and reports every file the engine could
// not load (m.Problems()): what `mf-lsp check` prints. in gives the scope, today
// and the open-loop age (its Memory, Entry and Base are not used). Findings are
// sorted by path and position.
func CheckTree(m *engine.Memory, in Input) []Finding {
	entries := m.Notes()
	results := make([][]Finding, len(entries))
	var wg sync.WaitGroup
	next := make(chan int, len(entries))
	for i := range entries {
		next <- i
	}
	close(next)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				one := in
				one.Memory, one.Note, one.Base = m, entries[i], nil
				results[i] = Check(one)
			}
		}()
	}
	wg.Wait()
	var out []Finding
	for _, r := range results {
		out = append(out, r...)
	}
	out = append(out, ProblemFindings(m)...)
	sortFindings(out)
	return out
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
		default:
			f.Code, f.Severity = CodeFileUnreadable, Error
		}
		out = append(out, f)
	}
	return out
}
