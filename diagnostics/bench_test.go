package diagnostics

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/journal"
	"github.com/magicfrog/mf-lsp/engine/store"
)

// BenchNotes is the size of the synthetic tree of BenchmarkCheck.
const benchNotes = 100_000

var (
	benchOnce sync.Once
	benchDir  string
	benchMem  *engine.Memory
	benchErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// benchTree builds, once, a tree of benchNotes notes: account and user notes
// sharing keys (so there is shadowing), larry's agent notes, task notes, and
// three years of a task journal (raw and refined days, weeklies with sources).
func benchTree(b *testing.B) (*engine.Memory, string) {
	benchOnce.Do(func() {
		tmp := "" // a RAM disk when there is one: the tree is 100,000 files
		if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
			tmp = "/dev/shm"
		}
		benchDir, benchErr = os.MkdirTemp(tmp, "mf-diag-bench-")
		if benchErr != nil {
			return
		}
		write := func(rel, s string) {
			p := filepath.Join(benchDir, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil && benchErr == nil {
				benchErr = err
			}
			if err := os.WriteFile(p, []byte(s), 0o644); err != nil && benchErr == nil {
				benchErr = err
			}
		}
		write("data/magicfrog.json", `{"agents": ["larry", "moe"]}`)
		write("data/machine-id", "m1\n")
		write("data/memory/layers.json", `{"layers": [{"name": "journal", "prefix": "journal/", "kind": "fractal"}]}`)
		write("project/.magicfrog/config.json", `{"task": "T-7", "agents": ["larry"]}`)
		n := 0
		body := fm + "A note about topic %d. See [the next one](n%06d.md) and [a missing one](gone-%d.md).\n\n## Details\n- one\n- two\n"
		start := journal.Day{Year: 2024, Month: 1, Day: 1}
		for d := 0; d < 3*365; d++ {
			day := start.AddDays(d)
			write(fmt.Sprintf("project/.magicfrog/memory/journal/%s.md", day), fm+"- worked on things\n")
			write(fmt.Sprintf("project/.magicfrog/memory/journal/refined/%s.md", day),
				fm+fmt.Sprintf("## Decisions Made\n- Decision %d\n\n## Blockers\n- Waiting for %sx %sy approval\n\n## Next Steps\n- Write exporter chapter %sz\n", d, word(d), word(d), word(d)))
			n += 2
			if day.Weekday() == time.Sunday {
				w := journal.WeekOf(day)
				src := "sources:\n"
				for _, x := range w.Days() {
					src += fmt.Sprintf("  - key: refined/%s.md\n    revision: 1\n    hash: %s\n", x, store.Hash([]byte(x.String())))
				}
				write(fmt.Sprintf("project/.magicfrog/memory/journal/weekly/%s.md", w),
					"---\nrevision: 1\nupdated: 2026-10-20T09:12:00.000Z\n"+src+"---\n## Themes\n- things\n")
				n++
			}
		}
		for i := 0; n < benchNotes; i++ {
			var rel string
			switch i % 10 {
			case 0, 1, 2:
				rel = fmt.Sprintf("data/memory/account/notes/d%03d/n%06d.md", i%100, i)
			case 3, 4, 5, 6: // 3, 4, 5 share keys with (shadow) account notes
				rel = fmt.Sprintf("data/memory/user/notes/d%03d/n%06d.md", (i-3)%100, i-3)
			case 7, 8:
				rel = fmt.Sprintf("data/memory/agent/larry/notes/d%03d/n%06d.md", i%100, i)
			default:
				rel = fmt.Sprintf("project/.magicfrog/memory/notes/d%03d/n%06d.md", i%100, i)
			}
			write(rel, fmt.Sprintf(body, i, i+1, i))
			n++
		}
		benchMem, benchErr = engine.Open(engine.Options{DataDir: filepath.Join(benchDir, "data"),
			ProjectDir: filepath.Join(benchDir, "project"), Getenv: func(string) string { return "" }})
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	if benchMem.Len() < benchNotes {
		b.Fatalf("tree has %d notes, want %d", benchMem.Len(), benchNotes)
	}
	return benchMem, benchDir
}

// word spells n in letters, so that every day's items have words of their own.
func word(n int) string {
	w := []byte{}
	for i := 0; i < 4; i++ {
		w = append(w, byte('a'+n%26))
		n /= 26
	}
	return string(w)
}

// BenchmarkCheck measures Check on single notes of a 100,000-note tree, as the
// LSP runs it on every change: p99-µs is the 99th percentile of one Check.
func BenchmarkCheck(b *testing.B) {
	m, dir := benchTree(b)
	today := journal.Day{Year: 2026, Month: 12, Day: 31}
	cases := []struct {
		name, rel string
		buffer    bool
		today     journal.Day
		none      bool // expect no findings
	}{
		{"shadowed-note", "data/memory/account/notes/d050/n005050.md", false, journal.Day{}, false},
		{"buffer-with-base", "data/memory/user/notes/d050/n005050.md", true, journal.Day{}, false},
		{"refined-day-open-loops", "project/.magicfrog/memory/journal/refined/2026-12-01.md", false, today, false},
		// The worst case: 90 days old, at the horizon, reads 90 days of journal.
		{"refined-day-at-horizon", "project/.magicfrog/memory/journal/refined/2026-10-02.md", false, today, false},
		{"refined-day-past-horizon", "project/.magicfrog/memory/journal/refined/2024-01-10.md", false, today, true},
		{"weekly-rollup-sources", "project/.magicfrog/memory/journal/weekly/2025-W10.md", false, today, false},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			path := filepath.Join(dir, filepath.FromSlash(c.rel))
			e := m.Note(path)
			if e == nil {
				b.Fatalf("%s not loaded", c.rel)
			}
			in := Input{Memory: m, Note: e, Scope: m.DefaultScope(), Today: c.today}
			if c.buffer {
				in.Note, _, _ = m.Parse(path, append(append([]byte(nil), e.TextOrNil()...), "More text [x](y.md).\n"...))
				in.Base = &Base{Revision: e.Revision(), Hash: e.Hash()}
			}
			if (len(Check(in)) == 0) != c.none {
				b.Fatalf("findings: %v, want none: %v", codes(Check(in)), c.none)
			}
			durs := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				Check(in)
				durs = append(durs, time.Since(t0))
			}
			b.StopTimer()
			slices.Sort(durs)
			b.ReportMetric(float64(durs[len(durs)*99/100].Nanoseconds())/1e3, "p99-µs")
		})
	}
}

// BenchmarkCheckTree is `mf-lsp check` on the whole 100,000-note tree.
func BenchmarkCheckTree(b *testing.B) {
	m, _ := benchTree(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		CheckTree(m, Input{Scope: m.DefaultScope(), Today: journal.Day{Year: 2026, Month: 12, Day: 31}})
	}
}
