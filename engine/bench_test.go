package engine_test

// Benchmarks on synthetic trees (engine/internal/synth):
//
//	go test -bench . -run NONE ./engine
//	go test -bench 'Load|Floor' -run NONE -cpuprofile cpu.out ./engine
//
// Targets: Open within 2× of the floor (reading every file and finding its
// frontmatter's end), Render under 10 ms and under 300 MB resident at 100k notes.

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/internal/synth"
)

var benchSizes = []int{10_000, 100_000}

// The generated trees live for the whole test binary run (removed by TestMain),
// so every benchmark of a run shares them.
var (
	treesMu  sync.Mutex
	trees    = map[int]*synth.Tree{}
	treeDirs []string
	loaded   = map[int]*engine.Memory{}
	floors   = map[int]time.Duration{}
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range treeDirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

func benchTree(b *testing.B, n int) *synth.Tree {
	b.Helper()
	treesMu.Lock()
	defer treesMu.Unlock()
	if t := trees[n]; t != nil {
		return t
	}
	dir, err := os.MkdirTemp("", fmt.Sprintf("mf-lsp-bench-%d-", n))
	if err != nil {
		b.Fatal(err)
	}
	treeDirs = append(treeDirs, dir)
	start := time.Now()
	t, err := synth.Generate(dir, n)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("generated %d notes (%d MB) in %v: %v", t.Notes, t.Bytes>>20, time.Since(start).Round(time.Millisecond), t.Counts)
	trees[n] = t
	return t
}

func benchOpen(b *testing.B, t *synth.Tree) *engine.Memory {
	b.Helper()
	m, err := engine.Open(engine.Options{DataDir: t.DataDir, ProjectDir: t.ProjectDir})
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// benchMemory is a loaded tree, shared by the benchmarks that do not time
// loading.
func benchMemory(b *testing.B, n int) (*synth.Tree, *engine.Memory) {
	t := benchTree(b, n)
	treesMu.Lock()
	defer treesMu.Unlock()
	if m := loaded[n]; m != nil {
		return t, m
	}
	m := benchOpen(b, t)
	if m.Len() != t.Notes {
		b.Fatalf("loaded %d notes of %d; problems: %v", m.Len(), t.Notes, m.Problems())
	}
	loaded[n] = m
	return t, m
}

func benchScope(t *synth.Tree) engine.Scope {
	return engine.Scope{Task: t.Task, Agents: []string{t.Agents[0]}, Machine: t.Machine}
}

// floor is synth.Floor on the tree: the least any loader must do.
func floor(t *synth.Tree) int { return synth.Floor(t.Roots()) }

// floorTime is the best of a few floor runs, for the load/floor ratio.
func floorTime(b *testing.B, t *synth.Tree, n int) time.Duration {
	treesMu.Lock()
	defer treesMu.Unlock()
	if d, ok := floors[n]; ok {
		return d
	}
	best := time.Duration(1 << 62)
	for i := 0; i < 5; i++ {
		start := time.Now()
		floor(t)
		if d := time.Since(start); d < best {
			best = d
		}
	}
	floors[n] = best
	return best
}

func sizeName(n int) string { return strconv.Itoa(n/1000) + "k" }

func BenchmarkFloor(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			t := benchTree(b, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if got := floor(t); got != t.Notes {
					b.Fatalf("floor found %d notes of %d", got, t.Notes)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(t.Notes), "ns/note")
		})
	}
}

func BenchmarkLoad(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			t := benchTree(b, n)
			fl := floorTime(b, t, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m := benchOpen(b, t)
				if m.Len() != t.Notes {
					b.Fatalf("loaded %d notes of %d", m.Len(), t.Notes)
				}
			}
			per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(per/float64(t.Notes), "ns/note")
			b.ReportMetric(per/float64(fl.Nanoseconds()), "load/floor")
		})
	}
}

// BenchmarkReload re-reads a loaded tree in place, as a configuration change
// does. It should cost what Open does.
func BenchmarkReload(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			t := benchTree(b, n)
			m := benchOpen(b, t)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m.Reload()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(t.Notes), "ns/note")
		})
	}
}

func BenchmarkView(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			t, m := benchMemory(b, n)
			s := benchScope(t)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				v := m.View(s)
				if len(v.Keys) == 0 {
					b.Fatal("empty view")
				}
			}
		})
	}
}

func BenchmarkRender(b *testing.B) {
	for _, n := range benchSizes {
		for _, budget := range []int{0, 8000} {
			name := sizeName(n)
			if budget > 0 {
				name += "/budget=" + strconv.Itoa(budget)
			}
			b.Run(name, func(b *testing.B) {
				t, m := benchMemory(b, n)
				opts := engine.RenderOptions{Scope: benchScope(t), Budget: budget, Today: "2026-10-20"}
				blk, err := m.Render(opts) // first render counts every note's tokens
				if err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := m.Render(opts); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(blk.Included)), "notes")
				b.ReportMetric(float64(blk.CountTokens()), "tokens")
			})
		}
	}
}

// BenchmarkResident measures what a loaded 100k tree keeps in memory: the Go
// heap in use and the process's resident set, after a collection.
func BenchmarkResident(b *testing.B) {
	n := benchSizes[len(benchSizes)-1]
	b.Run(sizeName(n), func(b *testing.B) {
		t := benchTree(b, n)
		engine.Tokens("warm the tokenizer") // its tables are part of what a server keeps
		var before, after runtime.MemStats
		var rss, rss0 float64
		for i := 0; i < b.N; i++ {
			debug.FreeOSMemory() // give back what generating the tree took
			runtime.ReadMemStats(&before)
			rss0 = vmRSS()
			m := benchOpen(b, t)
			debug.FreeOSMemory()
			runtime.ReadMemStats(&after)
			rss = vmRSS()
			runtime.KeepAlive(m)
		}
		b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/(1<<20), "tree-heap-MB")
		b.ReportMetric(float64(after.HeapInuse)/(1<<20), "heap-MB")
		b.ReportMetric(rss0, "rss-before-MB")
		b.ReportMetric(rss, "rss-MB")
	})
}

// vmRSS is the process's resident set in MB (Linux), or 0.
func vmRSS() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseFloat(f[0], 64)
				return kb / 1024
			}
		}
	}
	return 0
}

// BenchmarkHeapPerNote measures what a loaded tree keeps on the Go heap per
// note (after a collection) and what loading it allocates in all (live plus
// garbage: the peak RSS of a server follows both). It loads the synthetic
// 100k tree, or the kept tree at $MF_BENCH_TREE (a folder holding data/ and
// project/, as coldbench -keep leaves them); $MF_BENCH_HEAPPROFILE names a
// file for the heap profile taken after the load:
//
//	MF_BENCH_TREE=/tmp/perf13/trees/100000 MF_BENCH_HEAPPROFILE=/tmp/heap.out \
//	  go test -bench HeapPerNote -benchtime 1x -run NONE ./engine
//	go tool pprof -sample_index=inuse_space -top /tmp/heap.out
func BenchmarkHeapPerNote(b *testing.B) {
	opts, notes := engine.Options{}, 0
	if dir := os.Getenv("MF_BENCH_TREE"); dir != "" {
		opts = engine.Options{DataDir: dir + "/data", ProjectDir: dir + "/project"}
	} else {
		t := benchTree(b, benchSizes[len(benchSizes)-1])
		opts, notes = engine.Options{DataDir: t.DataDir, ProjectDir: t.ProjectDir}, t.Notes
	}
	var before, after runtime.MemStats
	var m *engine.Memory
	for i := 0; i < b.N; i++ {
		m = nil
		runtime.GC()
		runtime.ReadMemStats(&before)
		var err error
		if m, err = engine.Open(opts); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
	}
	if notes != 0 && m.Len() != notes {
		b.Fatalf("loaded %d notes of %d", m.Len(), notes)
	}
	if p := os.Getenv("MF_BENCH_HEAPPROFILE"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			b.Fatal(err)
		}
		if err := pprof.WriteHeapProfile(f); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	n := float64(m.Len())
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "heap-B/note")
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "heap-MB")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/n, "alloc-B/note")
	runtime.KeepAlive(m)
}

// BenchmarkRefreshChangedNote is the watcher's refresh of one note changed in
// place (the tree's update under its lock, then the local history's record and
// judgement of what it saw, after the lock).
func BenchmarkRefreshChangedNote(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			t := benchTree(b, n)
			m := benchOpen(b, t)
			var path string
			for _, note := range m.Notes() {
				if note.Dimension == engine.User {
					path = note.Path
					break
				}
			}
			orig, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			defer func() {
				os.WriteFile(path, orig, 0o644)
				m.Refresh(path)
			}()
			variants := [][]byte{append(append([]byte(nil), orig...), "edited\n"...), orig}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := os.WriteFile(path, variants[i%2], 0o644); err != nil {
					b.Fatal(err)
				}
				m.Refresh(path)
			}
		})
	}
}
