//go:build unix

package participant_test

// Search must answer in under 50 ms at 10,000 notes in scope (issue 10), p99
// under 20 ms with the index warm and under 100 ms at 100,000 notes (issue
// 26; the first search analyzes every note, the cold build):
//
//	go test -bench 'Search$|Search100k|SearchCold' -run NONE -benchtime 20x ./engine/participant
//
// Each query reports p50, p99 and CPU time per op; on a shared machine the
// wall times measure the neighbours too (docs/architecture.md keeps the
// figures with their load average).
//
// Every note of the tree is in the participant's scope (the worst case: a
// scan reads them all); bodies are about 1 KB of words drawn from a 2,000-word
// vocabulary with a Zipf-like spread, as prose is.

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/participant"
)

func searchTree(b *testing.B, n int) (*participant.Participant, []string) {
	p, vocab, _ := searchTreeAt(b, n)
	return p, vocab
}

// searchTreeAt writes the benchmark's tree of n notes and opens it; it also
// returns the note files' paths.
func searchTreeAt(b *testing.B, n int) (*participant.Participant, []string, []string) {
	b.Helper()
	var files []string
	root := b.TempDir()
	data, project := filepath.Join(root, "data"), filepath.Join(root, "project")
	r := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 2000)
	for i := range vocab {
		w := make([]byte, 3+r.IntN(8))
		for j := range w {
			w[j] = byte('a' + r.IntN(26))
		}
		vocab[i] = string(w)
	}
	zipf := rand.NewZipf(r, 1.1, 1, uint64(len(vocab)-1))
	dims := []string{"user", "account", "agent/larry", "agent"}
	for i := 0; i < n; i++ {
		var body strings.Builder
		for body.Len() < 1000 {
			body.WriteString(vocab[zipf.Uint64()])
			body.WriteByte(' ')
		}
		dir := filepath.Join(data, "memory", filepath.FromSlash(dims[i%len(dims)]), "notes", fmt.Sprint(i%50))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		note := fmt.Sprintf("---\nrevision: 1\nupdated: 2026-11-30T09:00:00.000Z\n---\n%s\n", body.String())
		file := filepath.Join(dir, fmt.Sprintf("n%d.md", i))
		if err := os.WriteFile(file, []byte(note), 0o644); err != nil {
			b.Fatal(err)
		}
		files = append(files, file)
	}
	if err := os.WriteFile(filepath.Join(data, "magicfrog.json"), []byte(`{"agents": ["larry"], "shared": ["notes"]}`), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(project, 0o755); err != nil {
		b.Fatal(err)
	}
	m, err := engine.Open(engine.Options{DataDir: data, ProjectDir: project})
	if err != nil {
		b.Fatal(err)
	}
	p, err := participant.New(m, participant.Options{Scope: engine.Scope{Agents: []string{"larry"}}})
	if err != nil {
		b.Fatal(err)
	}
	if got := len(p.Notes()); got != n {
		b.Fatalf("%d notes in scope, want %d", got, n)
	}
	return p, vocab, files
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkSearch(b *testing.B) {
	p, vocab := searchTree(b, 10_000)
	benchQueries(b, p, vocab)
}

// BenchmarkSearch100k: the same queries at 100,000 notes in scope (issue
// 26: p99 under 100 ms, index warm). Writing the tree takes a while:
//
//	go test -bench Search100k -run NONE -benchtime 20x ./engine/participant
func BenchmarkSearch100k(b *testing.B) {
	p, vocab := searchTree(b, 100_000)
	benchQueries(b, p, vocab)
}

// BenchmarkSearchCold: the index's cold build (a new participant's first
// search, which analyzes every note in scope) beside the floor, reading every
// note's file, at 10,000 notes (issue 26: at most 1.5× the floor). Run both
// in one go and compare their ratio (CPU time is the steadier on a loaded
// machine):
//
//	go test -bench SearchCold -run NONE -benchtime 5x ./engine/participant
//
// "stored-index" is the same first search with the index's stored copy
// (searchcache.go) to read back, what `mf-lsp search` and an MCP server's
// first memory_search do.
//
// What the profile says (-cpuprofile, go tool pprof -top -cum): the build
// from the notes is the tokenizing, most of it (reading the words and finding
// each in the worker's lexicon, lexicon.go: an open-addressing table hashed
// as the word is read, which replaced a string map and a copy of each body),
// then each worker listing its notes in shares of the terms' lists, merged in
// order of ids (this was a fifth of the build on one goroutine), then the
// collector. Against the same tree before that change (both binaries run in
// turn, 3 runs each, -benchmem): 303-337 ms of CPU -> 271-332 ms, the floor
// 98-111 ms: about 3.1x -> 2.9x (medians), still short of 1.5x, so the stored
// copy skips it (laid out as the lists are, it reads back in about 0.9-1.1x
// the floor). Then a lexicon probe that compares hashes and the words' first
// 8 bytes before a word, the keys' words in a lexicon of their own, one slot
// per term of a note, occurrences encoded in place and shares grown at their
// rate (3 runs each in turn, -benchtime 5x -benchmem, load average 0.1-0.9):
// 230-300 ms -> 247-289 ms of CPU, the floor 110-140 ms, medians 2.14x ->
// 2.06x; 56 -> 44 MB allocated. Still short of 1.5x: half of it is reading
// the words and probing the lexicon, a third listing them, then the
// collector. At 100,000 notes a warm query's CPU was scoring the best passage
// of every note holding a common word (bestPassage, half of it) and
// collecting the garbage of a 460 MB heap, not reading the lists: the
// scoring's space is lent from one search to the next now (17 MB -> 32 KB a
// common word's query, its CPU 48-56 -> 27-28 ms, docs/architecture.md).
func BenchmarkSearchCold(b *testing.B) {
	p, vocab, files := searchTreeAt(b, 10_000)
	m := p.Memory()
	b.Run("floor-read-notes", func(b *testing.B) {
		defer reportCPU(b)()
		for i := 0; i < b.N; i++ {
			for _, f := range files {
				if _, err := os.ReadFile(f); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	first := func(b *testing.B, cache string) {
		fresh, err := participant.New(m, participant.Options{Scope: engine.Scope{Agents: []string{"larry"}}, SearchCacheDir: cache})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := fresh.Search(vocab[3], 10); err != nil {
			b.Fatal(err)
		}
	}
	cold := func(cache string) func(b *testing.B) {
		return func(b *testing.B) {
			defer reportCPU(b)()
			for i := 0; i < b.N; i++ {
				first(b, cache)
			}
		}
	}
	b.Run("cold-index", cold(""))
	cache := b.TempDir()
	first(b, cache) // writes the stored copy
	b.Run("stored-index", cold(cache))
}

// reportCPU reports the CPU time per op from now to the call of the func
// it returns: on a loaded machine the wall time measures the neighbours.
func reportCPU(b *testing.B) func() {
	cpu := cpuTime()
	return func() { b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op") }
}

func benchQueries(b *testing.B, p *participant.Participant, vocab []string) {
	// A common word, a common and a rare one, a phrase, and a miss.
	queries := []string{vocab[1], vocab[3] + " " + vocab[150], `"` + vocab[1] + " " + vocab[2] + `"`, vocab[1999] + " nothing-matches-this",
		"what did " + vocab[40] + " say about " + vocab[300] + " and " + vocab[900] + " last week"}
	for _, q := range queries {
		b.Run(strings.ReplaceAll(strings.ReplaceAll(q, " ", "+"), `"`, "'"), func(b *testing.B) {
			if _, err := p.Search(q, 10); err != nil { // the first search lowers every note
				b.Fatal(err)
			}
			b.ResetTimer()
			cpu := cpuTime()
			took := make([]time.Duration, b.N)
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if _, err := p.Search(q, 10); err != nil {
					b.Fatal(err)
				}
				took[i] = time.Since(t0)
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2])/1e6, "p50-ms")
			b.ReportMetric(float64(took[(len(took)*99)/100])/1e6, "p99-ms")
			// CPU time is reported beside the wall time: on a loaded machine
			// the wall time measures the neighbours.
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}
