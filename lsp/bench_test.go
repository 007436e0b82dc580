package lsp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/lsp"
	"github.com/magicfrog/mf-lsp/lsp/lsptest"
	"github.com/magicfrog/mf-lsp/session"
)

// Latency benchmarks: each reports the round trip of one request as p50 and p99 in
// microseconds, both in process over net.Pipe (the server's own cost) and against the
// real binary over stdio (what an editor sees). Feature owners add their request as
// one more benchRequest entry, e.g. codeLens on a journal note:
//
//	go test ./lsp -run '^$' -bench Latency -benchtime 2000x

type benchRequest struct {
	name   string
	method string
	params any
}

const benchURI = "file:///tmp/bench/notes/style.md"

var benchRequests = []benchRequest{
	{"hover", "textDocument/hover", map[string]any{
		"textDocument": map[string]any{"uri": benchURI}, "position": map[string]any{"line": 1, "character": 3}}},
	{"codeLens", "textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": benchURI}}},
	{"documentSymbol", "textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": benchURI}}},
	{"hoverLink", "textDocument/hover", map[string]any{
		"textDocument": map[string]any{"uri": benchURI}, "position": map[string]any{"line": 5, "character": 8}}},
	{"willSaveWaitUntil", "textDocument/willSaveWaitUntil", map[string]any{
		"textDocument": map[string]any{"uri": benchURI}, "reason": 1}},
	{"workspaceSymbol", "workspace/symbol", map[string]any{"query": "style"}},
}

func BenchmarkLatencyInProcess(b *testing.B) {
	srv, cli := net.Pipe()
	go lsp.Serve(context.Background(), srv, lsp.Options{Log: discard{}})
	c := lsptest.New(b, cli)
	defer cli.Close()
	benchSession(b, c)
}

func BenchmarkLatencyBinary(b *testing.B) {
	c := lsptest.StartBinary(b, binary(b))
	benchSession(b, c)
}

func benchSession(b *testing.B, c *lsptest.Client) {
	c.Initialize("file:///tmp/bench", nil)
	if err := c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": benchURI, "languageId": "markdown", "version": 1,
		"text": "---\nrevision: 3\nupdated: 2026-10-20T09:12:00.000Z\n---\nPrefer functional array methods over for loops.\nSee [the tone note](../tone.md).\n",
	}}); err != nil {
		b.Fatal(err)
	}
	for _, r := range benchRequests {
		b.Run(r.name, func(b *testing.B) { benchRoundTrip(b, c, r.method, r.params) })
	}
}

// benchRoundTrip times b.N sequential calls and reports their p50 and p99.
func benchRoundTrip(b *testing.B, c *lsptest.Client, method string, params any) {
	durations := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if err := c.Call(method, params, nil); err != nil {
			b.Fatalf("%s: %v", method, err)
		}
		durations = append(durations, time.Since(start))
	}
	b.StopTimer()
	reportPercentiles(b, durations)
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// The memory-scale benchmarks run an in-process server (net.Pipe) on a synthetic
// tree of 100,000 notes and report p50/p99 in microseconds:
//
//	go test ./lsp -run '^$' -bench Memory100k -benchtime 2000x
//
// hover and codeLens on a shadowed note with a five-version chain (targets: p99 <
// 2 ms); workspace/symbol over every note; didChange→publishDiagnostics on an open note (p99 < 20 ms); an external
// write (os.WriteFile of a more specific version, then its removal) → the changed
// diagnostics of an open note (p99 < 100 ms; the watcher's debounce is 15 ms).
func BenchmarkMemory100k(b *testing.B) {
	const notes = 100_000
	tree := benchTree(b, notes)
	srv, cli := net.Pipe()
	go lsp.Serve(context.Background(), srv, lsp.Options{Log: discard{}})
	c := lsptest.New(b, cli)
	c.Timeout = 5 * time.Minute
	defer cli.Close()
	start := time.Now()
	c.Initialize(string(session.PathToURI(tree.project)), map[string]any{"dataDir": tree.data})

	shadowed := benchOpen(b, c, filepath.Join(tree.data, "memory/account/topics/hot.md"))
	// Hover answers ContentModified while the tree loads (after its grace):
	// ask until it answers.
	for {
		err := c.Call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": shadowed}, "position": map[string]any{"line": 4, "character": 2}}, nil)
		if err == nil {
			break
		}
		if !strings.Contains(err.Error(), "-32801") || time.Since(start) > 10*time.Minute {
			b.Fatal(err)
		}
	}
	b.Logf("%d notes generated and indexed; first answer after %v", notes, time.Since(start).Round(time.Millisecond))

	b.Run("hover", func(b *testing.B) {
		benchRoundTrip(b, c, "textDocument/hover", map[string]any{
			"textDocument": map[string]any{"uri": shadowed}, "position": map[string]any{"line": 4, "character": 2}})
	})
	b.Run("codeLens", func(b *testing.B) {
		benchRoundTrip(b, c, "textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": shadowed}})
	})
	b.Run("workspaceSymbol", func(b *testing.B) {
		benchRoundTrip(b, c, "workspace/symbol", map[string]any{"query": "hot"})
	})
	// Navigation from agent-000's note: "See [[topics/hot]] and [[topics/".
	nav := map[string]any{"uri": benchOpen(b, c, tree.nav)}
	b.Run("definition", func(b *testing.B) {
		benchRoundTrip(b, c, "textDocument/definition", map[string]any{"textDocument": nav, "position": map[string]any{"line": 4, "character": 7}})
	})
	b.Run("completion", func(b *testing.B) {
		benchRoundTrip(b, c, "textDocument/completion", map[string]any{"textDocument": nav, "position": map[string]any{"line": 4, "character": 32}})
	})
	b.Run("references", func(b *testing.B) {
		benchRoundTrip(b, c, "textDocument/references", map[string]any{"textDocument": nav, "position": map[string]any{"line": 4, "character": 7},
			"context": map[string]any{"includeDeclaration": true}})
	})
	b.Run("didChange-diagnostics", func(b *testing.B) {
		path := filepath.Join(tree.project, ".magicfrog/memory/T-0000/topics/hot.md")
		uri := benchOpen(b, c, path)
		text, _ := os.ReadFile(path)
		version := 1
		durations := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for i := range b.N {
			version++
			body := string(text) + "edit " + strconv.Itoa(i) + "\n"
			from := len(c.Notifications(""))
			t0 := time.Now()
			if err := c.Notify("textDocument/didChange", map[string]any{
				"textDocument":   map[string]any{"uri": uri, "version": version},
				"contentChanges": []any{map[string]any{"text": body}}}); err != nil {
				b.Fatal(err)
			}
			benchWaitDiagnostics(b, c, from, uri, func(p benchDiags) bool { return p.Version != nil && *p.Version == version })
			durations = append(durations, time.Since(t0))
		}
		b.StopTimer()
		reportPercentiles(b, durations)
	})
	b.Run("externalWrite-diagnostics", func(b *testing.B) {
		// The user note is effective until an agent writes the same key one
		// dimension up (agent, shared): then it is shadowed; removing that file
		// makes it effective again. Each iteration is one such change.
		uri := benchOpen(b, c, filepath.Join(tree.data, "memory/user/topics/ext.md"))
		agentNote := filepath.Join(tree.data, "memory/agent/topics/ext.md")
		_ = os.MkdirAll(filepath.Dir(agentNote), 0o755)
		durations := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for i := range b.N {
			from := len(c.Notifications(""))
			shadow := i%2 == 0
			t0 := time.Now()
			var err error
			if shadow {
				err = os.WriteFile(agentNote, []byte("---\nrevision: 1\nupdated: 2026-11-30T08:00:00.000Z\n---\nAgent version "+strconv.Itoa(i)+".\n"), 0o644)
			} else {
				err = os.Remove(agentNote)
			}
			if err != nil {
				b.Fatal(err)
			}
			benchWaitDiagnostics(b, c, from, uri, func(p benchDiags) bool { return strings.Contains(string(p.Diagnostics), `"shadowed"`) == shadow })
			durations = append(durations, time.Since(t0))
		}
		b.StopTimer()
		_ = os.Remove(agentNote)
		reportPercentiles(b, durations)
	})
	// Stop the watchers before the tree is removed.
	if err := c.Shutdown(); err != nil {
		b.Log(err)
	}
}

func benchOpen(b *testing.B, c *lsptest.Client, path string) string {
	b.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	uri := string(session.PathToURI(path))
	if err := c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "markdown", "version": 1, "text": string(text)}}); err != nil {
		b.Fatal(err)
	}
	return uri
}

type benchDiags struct {
	URI         string          `json:"uri"`
	Version     *int            `json:"version"`
	Diagnostics json.RawMessage `json:"diagnostics"`
}

// benchWaitDiagnostics waits for diagnostics of uri matching ok among the
// notifications after the first from (so each wait reads only what is new).
func benchWaitDiagnostics(b *testing.B, c *lsptest.Client, from int, uri string, ok func(benchDiags) bool) {
	b.Helper()
	err := c.WaitFor("diagnostics", func(r lsptest.Recorded) bool {
		for _, m := range r.Notifications[from:] {
			if m.Method != "textDocument/publishDiagnostics" {
				continue
			}
			var p benchDiags
			if json.Unmarshal(m.Params, &p) == nil && p.URI == uri && ok(p) {
				return true
			}
		}
		return false
	})
	if err != nil {
		b.Fatal(err)
	}
}

func reportPercentiles(b *testing.B, durations []time.Duration) {
	slices.Sort(durations)
	pct := func(p float64) float64 {
		return float64(durations[int(p*float64(len(durations)-1))]) / float64(time.Microsecond)
	}
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
}

type benchTreeDirs struct{ data, project, nav string }

// benchTree writes a synthetic memory of n notes (deterministic): a roster of 100
// agents, a project bound to task T-0000 and agent agent-000, 50 task IDs, notes
// spread over account, user, agent (shared and per agent), task (per task ID) and
// device (this machine and others), a third of them on shared topic keys so that
// keys have chains. Two keys the benchmarks use are added by name:
// topics/hot.md in account, user, agent, agent/agent-000 and task/T-0000, and
// topics/ext.md in user only; and agent-000's nav.md, a wikilink to
// topics/hot and an open "[[topics/" on its line 4 (tree.nav).
func benchTree(b *testing.B, n int) benchTreeDirs {
	b.Helper()
	root := b.TempDir()
	t := benchTreeDirs{data: filepath.Join(root, "data"), project: filepath.Join(root, "project")}
	mem := filepath.Join(t.data, "memory")
	taskRoot := filepath.Join(t.project, ".magicfrog", "memory")
	var agents, tasks []string
	for i := range 100 {
		agents = append(agents, fmt.Sprintf("agent-%03d", i))
	}
	for i := range 50 {
		tasks = append(tasks, fmt.Sprintf("T-%04d", i))
	}
	roster, _ := json.Marshal(map[string]any{"agents": agents})
	binding, _ := json.Marshal(map[string]any{"task": tasks[0], "tasks": tasks[1:], "agents": agents[:1]})
	t.nav = filepath.Join(mem, "agent", agents[0], "nav.md")
	files := map[string]string{
		t.nav:                                   "---\nrevision: 1\nupdated: 2026-10-01T09:00:00.000Z\n---\nSee [[topics/hot]] and [[topics/\n",
		filepath.Join(t.data, "magicfrog.json"): string(roster),
		filepath.Join(t.data, "machine-id"):     "bench-machine\n",
		filepath.Join(t.project, ".magicfrog", "config.json"): string(binding),
	}
	note := func(rev int, extra, body string) string {
		return fmt.Sprintf("---\nrevision: %d\nupdated: 2026-10-%02dT09:00:00.000Z\n%s---\n%s", rev, 1+rev%28, extra, body)
	}
	words := strings.Fields("the a to of and in is for on with that this use run test build deploy review note memory agent task user " +
		"prefer never always when before after config file path api client server cache index query budget token render")
	rng := rand.New(rand.NewPCG(uint64(n), 11))
	para := func() string {
		var s strings.Builder
		s.WriteString("## ")
		s.WriteString(words[rng.IntN(len(words))])
		s.WriteString("\n\n")
		for s.Len() < 200+rng.IntN(300) {
			s.WriteString(words[rng.IntN(len(words))])
			s.WriteByte(' ')
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
		key := fmt.Sprintf("notes/g%02d/n%06d.md", i%20, i)
		if extra == "" && rng.IntN(3) == 0 {
			key = fmt.Sprintf("topics/g%02d/topic-%05d.md", i%20, rng.IntN(n/20))
		}
		files[filepath.Join(dir, filepath.FromSlash(key))] = note(1+rng.IntN(9), extra, para())
	}
	for i, dir := range []string{filepath.Join(mem, "account"), filepath.Join(mem, "user"), filepath.Join(mem, "agent"),
		filepath.Join(mem, "agent", agents[0]), filepath.Join(taskRoot, tasks[0])} {
		files[filepath.Join(dir, "topics/hot.md")] = note(i+1, "", "# Hot topic\n\nSee [the extra note](ext.md) and [a group](g00/topic-00001.md).\n\n"+para())
	}
	files[filepath.Join(mem, "user/topics/ext.md")] = note(1, "", "# Extra\n\n"+para())

	dirs := map[string]bool{}
	for p := range files {
		dirs[filepath.Dir(p)] = true
	}
	for d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	type kv struct{ p, s string }
	work := make(chan kv, 1024)
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range work {
				if err := os.WriteFile(f.p, []byte(f.s), 0o644); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		}()
	}
	for p, s := range files {
		work <- kv{p, s}
	}
	close(work)
	wg.Wait()
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
	return t
}
