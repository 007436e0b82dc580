package session

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Navigation at scale, in process (no JSON-RPC): completion, definition and
// references on a tree of MF_BENCH_NOTES notes (default 100,000) of realistic
// sizes (200 B to 8 KB, most of them small: log-uniform) that link to each
// other (wikilinks and Markdown links, a few per note), each request steady,
// as the first after an edit of the open buffer, and as the first after a
// note changed on disk:
//
//	go test ./session -run '^$' -bench Navigation -benchtime 200x -cpuprofile cpu.out
//
// The "-afterEdit" rows change the open buffer (an "Edit N." stamp of fixed
// width, so the positions stay) before each request; the "-afterWrite" rows
// write another note (a user note, with a link to the topic the requests
// name) and refresh the tree before each request, so they pay whatever the
// request rebuilds per tree version.
func BenchmarkNavigation(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("MF_BENCH_NOTES")); err == nil && v > 0 {
		n = v
	}
	s, nav, changing := navBenchSession(b, n)
	// The open buffer: a wikilink to a topic key on line 4, and an open "[[topics/".
	fm := "---\nrevision: 1\nupdated: 2026-10-01T09:00:00.000Z\n---\n"
	if v, err := strconv.Atoi(os.Getenv("MF_BENCH_OPEN_BYTES")); err == nil && v > 0 {
		fm += benchFiller(v)
	}
	textOf := func(edit int) string {
		return fm + fmt.Sprintf("Edit %06d. ", edit) + "See [[topics/hot]] and [[topics/"
	}
	uri := string(PathToURI(nav))
	if _, err := s.Open(uri, "markdown", 1, []byte(textOf(0))); err != nil {
		b.Fatal(err)
	}
	def := len(fm + "Edit 000000. See [[to")
	comp := len(textOf(0))
	snapOf := func(b *testing.B) *Snapshot {
		snap, err := s.Snapshot(nav)
		if err != nil {
			b.Fatal(err)
		}
		return snap
	}
	rev, version := 1, int32(1)
	filler := ""
	if v, err := strconv.Atoi(os.Getenv("MF_BENCH_OPEN_BYTES")); err == nil && v > 0 {
		filler = benchFiller(v)
	}
	write := func(b *testing.B) {
		rev++
		writeNoteB(b, changing, fmt.Sprintf("---\nrevision: %d\nupdated: 2026-10-01T09:00:00.000Z\n---\n%sChanged %d: see [[topics/hot]].\n", rev, filler, rev))
		s.Refresh([]string{changing})
	}
	edit := func(b *testing.B) {
		version++
		if _, err := s.Change(uri, version, []byte(textOf(int(version))), true); err != nil {
			b.Fatal(err)
		}
	}
	run := func(name string, change func(*testing.B), req func(*Snapshot)) {
		b.Run(name, func(b *testing.B) {
			d := make([]time.Duration, 0, b.N)
			for range b.N {
				if change != nil {
					b.StopTimer()
					change(b)
					b.StartTimer()
				}
				t0 := time.Now()
				req(snapOf(b))
				d = append(d, time.Since(t0))
			}
			reportNavPercentiles(b, d)
		})
	}
	for _, mode := range []struct {
		suffix string
		change func(*testing.B)
	}{{"", nil}, {"-afterEdit", edit}, {"-afterWrite", write}} {
		run("definition"+mode.suffix, mode.change, func(snap *Snapshot) {
			if len(Definition(snap, def)) == 0 {
				b.Fatal("no definition")
			}
		})
		run("completion"+mode.suffix, mode.change, func(snap *Snapshot) {
			if len(Complete(snap, comp).Items) == 0 {
				b.Fatal("no completion")
			}
		})
		run("references"+mode.suffix, mode.change, func(snap *Snapshot) {
			if len(References(snap, def, true)) < 2 {
				b.Fatal("no references")
			}
		})
	}
}

// benchFiller is about n bytes of prose in paragraphs, with a link now and then.
func benchFiller(n int) string {
	var s strings.Builder
	for i := 0; s.Len() < n; i++ {
		fmt.Fprintf(&s, "Paragraph %d: the agent prefers small commits and runs the tests before a review; see [[topics/g%02d/topic-%05d]].\n\n", i, i%20, i%50)
	}
	return s.String()
}

func reportNavPercentiles(b *testing.B, d []time.Duration) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	at := func(q float64) float64 {
		return float64(d[min(len(d)-1, int(math.Ceil(q*float64(len(d))))-1)].Microseconds())
	}
	b.ReportMetric(at(0.5), "p50-µs")
	b.ReportMetric(at(0.99), "p99-µs")
	b.ReportMetric(float64(d[len(d)-1].Microseconds()), "max-µs")
}

func writeNoteB(b *testing.B, path, text string) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
}

// navBenchSession writes a tree of n notes and loads a session over it,
// answering for agent-000 on task T-0000. nav is agent-000's note the
// requests are made in; changing is a user note the "after a change" rows
// rewrite.
func navBenchSession(b *testing.B, n int) (s *Session, nav, changing string) {
	b.Helper()
	root := b.TempDir()
	data, project := filepath.Join(root, "data"), filepath.Join(root, "project")
	mem := filepath.Join(data, "memory")
	taskRoot := filepath.Join(project, ".magicfrog", "memory")
	var agents, tasks []string
	for i := range 100 {
		agents = append(agents, fmt.Sprintf("agent-%03d", i))
	}
	for i := range 50 {
		tasks = append(tasks, fmt.Sprintf("T-%04d", i))
	}
	roster, _ := json.Marshal(map[string]any{"agents": agents})
	binding, _ := json.Marshal(map[string]any{"task": tasks[0], "tasks": tasks[1:], "agents": agents[:1]})
	nav = filepath.Join(mem, "agent", agents[0], "nav.md")
	changing = filepath.Join(mem, "user", "notes", "changing.md")
	files := map[string]string{
		nav:                                   "---\nrevision: 1\nupdated: 2026-10-01T09:00:00.000Z\n---\nSee [[topics/hot]].\n",
		changing:                              "---\nrevision: 1\nupdated: 2026-10-01T09:00:00.000Z\n---\nChanging.\n",
		filepath.Join(data, "magicfrog.json"): string(roster),
		filepath.Join(data, "machine-id"):     "bench-machine\n",
		filepath.Join(project, ".magicfrog", "config.json"): string(binding),
	}
	words := strings.Fields("the a to of and in is for on with that this use run test build deploy review note memory agent task user " +
		"prefer never always when before after config file path api client server cache index query budget token render")
	rng := rand.New(rand.NewPCG(uint64(n), 25))
	keyOf := func(i int) string {
		if i%3 == 0 {
			return fmt.Sprintf("topics/g%02d/topic-%05d.md", i%20, (i/3)%(n/20+1))
		}
		return fmt.Sprintf("notes/g%02d/n%06d.md", i%20, i)
	}
	body := func() string {
		size := int(200 * math.Pow(40, rng.Float64())) // 200 B to 8 KB, log-uniform
		var s strings.Builder
		s.WriteString("## ")
		s.WriteString(words[rng.IntN(len(words))])
		s.WriteString("\n\n")
		for s.Len() < size {
			switch rng.IntN(40) {
			case 0: // a wikilink by key
				s.WriteString("[[" + strings.TrimSuffix(keyOf(rng.IntN(n)), ".md") + "]] ")
			case 1: // a Markdown link to a note of the same group
				fmt.Fprintf(&s, "[see](n%06d.md) ", rng.IntN(n))
			case 2:
				s.WriteString("\n\n")
			default:
				s.WriteString(words[rng.IntN(len(words))])
				s.WriteByte(' ')
			}
		}
		s.WriteString("\n")
		return s.String()
	}
	for i := range n {
		var dir, extra string
		switch r := rng.IntN(100); {
		case r < 5:
			dir = filepath.Join(mem, "account")
		case r < 15:
			dir = filepath.Join(mem, "user")
		case r < 20:
			dir = filepath.Join(mem, "agent")
		case r < 55:
			dir = filepath.Join(mem, "agent", agents[rng.IntN(len(agents))])
		case r < 90:
			dir = filepath.Join(taskRoot, tasks[rng.IntN(len(tasks))])
		default:
			dir = filepath.Join(mem, "device")
			extra = "machine: bench-machine\n"
			if rng.IntN(2) == 0 {
				extra = fmt.Sprintf("machine: other-%02d\n", rng.IntN(20))
			}
		}
		files[filepath.Join(dir, filepath.FromSlash(keyOf(i)))] = fmt.Sprintf("---\nrevision: %d\nupdated: 2026-10-01T09:00:00.000Z\n%s---\n%s", 1+rng.IntN(9), extra, body())
	}
	for i, dir := range []string{filepath.Join(mem, "account"), filepath.Join(mem, "user"), filepath.Join(mem, "agent"),
		filepath.Join(mem, "agent", agents[0]), filepath.Join(taskRoot, tasks[0])} {
		files[filepath.Join(dir, "topics/hot.md")] = fmt.Sprintf("---\nrevision: %d\n---\n# Hot\n\n%s", i+1, body())
	}
	type kv struct{ p, s string }
	work := make(chan kv, 1024)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range work {
				err := os.MkdirAll(filepath.Dir(f.p), 0o755)
				if err == nil {
					err = os.WriteFile(f.p, []byte(f.s), 0o644)
				}
				if err != nil {
					mu.Lock()
					first = err
					mu.Unlock()
				}
			}
		}()
	}
	for p, text := range files {
		work <- kv{p, text}
	}
	close(work)
	wg.Wait()
	if first != nil {
		b.Fatal(first)
	}
	s = New(Options{Logf: func(string, ...any) {}})
	s.SetSettings(Settings{DataDir: data, ProjectDir: project, Today: "2026-11-30", AutoRevision: true})
	start := time.Now()
	if _, err := s.Load(); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d notes loaded in %v", n, time.Since(start).Round(time.Millisecond))
	b.Cleanup(s.Shutdown)
	return s, nav, changing
}
