//go:build unix

package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The hostile-tree torture test (issue 14): a generator builds memory trees
// that each hold one kind of hostility — frontmatter nested deep and wide,
// FIFOs and sockets named like notes and configuration files, symbolic links
// in and out at every level, notes swapped for links while commands read
// them, huge sparse files, names with newlines and odd Unicode, a hostile lock
// folder — and runs every command and a language-server session over each, as
// separate processes (the real command code: the test binary is mf-lsp). Each
// step has a time limit and a memory limit (peak RSS, from the kernel's
// rusage; a step still running past either is killed); any hang, any step
// over a limit, any crash, and any byte written outside the tree fails it.
// MF_TORTURE_BIN=path runs another mf-lsp build through the same steps.
const (
	tortureStepTime = 20 * time.Second // far above a normal step (~0.1 s) on a loaded 2-core machine
	tortureStepRSS  = 256 << 20        // bytes; a normal step peaks near 30 MB
)

// tortureCase makes one hostile tree in work: data/, project/, and outside/,
// which links point into and which no step may change.
type tortureCase struct {
	name  string
	build func(t *testing.T, work string)
	// swap, when set, runs beside every step until it ends.
	swap func(work string, stop <-chan struct{})
}

func TestTorture(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	if raceEnabled {
		t.Skip("limits mean nothing under the race detector; the plain go test run holds them")
	}
	if _, err := exec.LookPath("mf-lsp"); err != nil {
		t.Skip("mf-lsp is not on PATH (TestMain puts the test binary there)")
	}
	cases := tortureCases()
	var mu sync.Mutex
	var steps, failures int
	var peakRSS int64
	var slowest time.Duration
	start := time.Now()
	t.Run("cases", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel() // processes: the limits are per process either way
				work := t.TempDir()
				baseTree(t, work)
				tc.build(t, work)
				before := snapshot(t, filepath.Join(work, "outside"))
				for _, st := range tortureSteps(work) {
					var stop chan struct{}
					var wg sync.WaitGroup
					if tc.swap != nil {
						stop = make(chan struct{})
						wg.Add(1)
						go func() { defer wg.Done(); tc.swap(work, stop) }()
					}
					res := st.run(t, work)
					if stop != nil {
						close(stop)
						wg.Wait()
					}
					failed := 0
					if res.problem != "" {
						failed++
						t.Errorf("%s: %s (took %v, peak RSS %d MiB)\n%s", st.name, res.problem, res.took.Round(time.Millisecond), res.rss>>20, tail(res.output, 1500))
					}
					if after := snapshot(t, filepath.Join(work, "outside")); after != before {
						failed++
						t.Errorf("%s wrote outside the tree:\nbefore %s\nafter  %s", st.name, before, after)
						before = after
					}
					if res.took > 5*time.Second {
						t.Logf("%s: slow step: %v", st.name, res.took.Round(time.Millisecond))
					}
					mu.Lock()
					steps++
					failures += failed
					peakRSS = max(peakRSS, res.rss)
					slowest = max(slowest, res.took)
					mu.Unlock()
				}
			})
		}
	})
	t.Logf("torture: %d cases, %d steps (%d commands + a language-server session per case), limits %v and %d MiB peak RSS per step; slowest step %v, highest peak RSS %d MiB; %d failures; %v in all",
		len(cases), steps, len(tortureSteps(""))-1, tortureStepTime, tortureStepRSS>>20, slowest.Round(time.Millisecond), peakRSS>>20, failures, time.Since(start).Round(time.Millisecond))
}

// baseTree is an ordinary tree the hostile parts are added to.
func baseTree(t *testing.T, work string) {
	files := map[string]string{
		"data/magicfrog.json":                                 `{"agents": ["larry", "moe"], "shared": ["notes"]}`,
		"data/machine-id":                                     "0000feedface0000\n",
		"data/memory/layers.json":                             `{"layers": [{"name": "journal", "prefix": "journal/", "kind": "fractal"}]}`,
		"data/memory/user/style.md":                           "---\nrevision: 1\n---\nPrefer small functions.\n",
		"data/memory/agent/larry/notes/a.md":                  "---\nrevision: 2\n---\nlarry's note\n",
		"data/memory/account/tone.md":                         "---\nrevision: 1\n---\nBe brief.\n",
		"data/memory/device/tools.md":                         "---\nrevision: 1\nmachine: 0000feedface0000\n---\nGo 1.26\n",
		"project/.magicfrog/config.json":                      `{"task": "T-1", "agents": ["larry"]}`,
		"project/.magicfrog/memory/T-1/progress.md":           "---\nrevision: 3\n---\nhalfway\n",
		"project/.magicfrog/memory/journal/2026-11-20.md":     "# 2026-11-20\n\n## Decisions Made\n\n- one\n",
		"outside/secret.md":                                   "---\nrevision: 9\n---\nSECRET outside the tree\n",
		"outside/dir/x.md":                                    "---\nrevision: 9\n---\nSECRET folder\n",
		"body.md":                                             "A body.\n",
		"portable/user/imported.md":                           "---\nrevision: 1\n---\nimported\n",
		"portable/magicfrog.json":                             `{"agents": ["curly"]}`,
		"project/.magicfrog/memory/journal/2026-11-21.md":     "# 2026-11-21\n\n## Things Built\n\n- two\n",
		"project/.magicfrog/memory/journal/sticky-notes/x.md": "sticky\n",
	}
	for p, c := range files {
		writeAll(t, filepath.Join(work, p), c)
	}
}

func writeAll(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// The memory roots and config files every hostile thing is put in.
var tortureRoots = []string{"data/memory/user", "data/memory/agent/larry", "data/memory/device", "project/.magicfrog/memory", "project/.magicfrog/memory/journal", "portable/user"}

func tortureCases() []tortureCase {
	note := func(yaml string) string { return "---\n" + yaml + "\n---\nbody\n" }
	deepBlock := func(n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(strings.Repeat(" ", i) + "k:\n")
		}
		return b.String()
	}
	inEveryRoot := func(name string, make func(t *testing.T, p string)) func(t *testing.T, work string) {
		return func(t *testing.T, work string) {
			for _, r := range tortureRoots {
				make(t, filepath.Join(work, r, name))
			}
		}
	}
	content := func(c string) func(t *testing.T, p string) {
		return func(t *testing.T, p string) { writeAll(t, p, c) }
	}
	fifo := func(t *testing.T, p string) {
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, syscall.Mkfifo(p, 0o644))
	}
	sparse := func(size int64) func(t *testing.T, p string) {
		return func(t *testing.T, p string) {
			must(t, os.MkdirAll(filepath.Dir(p), 0o755))
			f, err := os.Create(p)
			must(t, err)
			must(t, f.Truncate(size))
			f.Close()
		}
	}
	link := func(target string) func(t *testing.T, p string) {
		return func(t *testing.T, p string) {
			must(t, os.MkdirAll(filepath.Dir(p), 0o755))
			os.Remove(p)
			must(t, os.Symlink(target, p))
		}
	}
	outside := func(work, rel string) string { return filepath.Join(work, "outside", rel) }
	return []tortureCase{
		{name: "yaml-deep-flow", build: inEveryRoot("deep.md", content(note("x: "+strings.Repeat("[", 100000)+strings.Repeat("]", 100000))))},
		{name: "yaml-deep-map", build: inEveryRoot("deep.md", content(note("x: "+strings.Repeat("{a: ", 30000)+"1"+strings.Repeat("}", 30000))))},
		{name: "yaml-deep-block", build: inEveryRoot("deep.md", content(note(deepBlock(400))))},
		{name: "yaml-wide", build: inEveryRoot("wide.md", content(note(strings.Repeat("k: [1, 2, {a: b}]\n", 20000))))},
		{name: "yaml-long-line", build: inEveryRoot("long.md", content(note(" "+strings.Repeat(" ", 30000)+strings.Repeat("\"", 30000))))},
		{name: "yaml-aliases", build: inEveryRoot("bomb.md", content(note("a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: [*f, *f, *f, *f, *f, *f, *f, *f, *f]")))},
		{name: "fifo-notes", build: inEveryRoot("p.md", fifo)},
		{name: "fifo-config", build: func(t *testing.T, work string) {
			for _, p := range []string{"data/magicfrog.json", "data/memory/layers.json", "project/.magicfrog/config.json", "data/machine-id", "portable/magicfrog.json"} {
				os.Remove(filepath.Join(work, p))
				fifo(t, filepath.Join(work, p))
			}
		}},
		{name: "socket-notes", build: func(t *testing.T, work string) {
			for _, r := range tortureRoots[:2] {
				// A short path: socket names are limited to ~100 bytes.
				tmp := filepath.Join(os.TempDir(), fmt.Sprintf("mf-sock-%d", time.Now().UnixNano()))
				l, err := net.Listen("unix", tmp)
				must(t, err)
				l.(*net.UnixListener).SetUnlinkOnClose(false)
				l.Close() // the socket file stays
				must(t, os.Rename(tmp, filepath.Join(work, r, "s.md")))
			}
		}},
		{name: "huge-sparse", build: func(t *testing.T, work string) {
			inEveryRoot("huge.md", sparse(1<<30))(t, work)
			os.Remove(filepath.Join(work, "data/memory/layers.json"))
			sparse(1<<30)(t, filepath.Join(work, "data/memory/layers.json"))
			os.Remove(filepath.Join(work, "data/magicfrog.json"))
			sparse(1<<30)(t, filepath.Join(work, "data/magicfrog.json"))
		}},
		{name: "big-notes", build: inEveryRoot("big.md", content("---\nrevision: 1\n---\n"+strings.Repeat("word ", 900<<10)))},
		{name: "links-out", build: func(t *testing.T, work string) {
			inEveryRoot("out.md", link(outside(work, "secret.md")))(t, work)
			inEveryRoot("outdir", link(outside(work, "dir")))(t, work)
			inEveryRoot("rel-out.md", link("../../../../../outside/secret.md"))(t, work)
		}},
		{name: "links-in-and-loops", build: func(t *testing.T, work string) {
			inEveryRoot("loop-a.md", link("loop-b.md"))(t, work)
			inEveryRoot("loop-b.md", link("loop-a.md"))(t, work)
			inEveryRoot("dangling.md", link("nowhere.md"))(t, work)
			inEveryRoot("self", link("."))(t, work)
			inEveryRoot("up", link(".."))(t, work)
			link("../account/tone.md")(t, filepath.Join(work, "data/memory/user/in.md"))
		}},
		{name: "linked-roots", build: func(t *testing.T, work string) {
			must(t, os.RemoveAll(filepath.Join(work, "project/.magicfrog/memory")))
			link(outside(work, "dir"))(t, filepath.Join(work, "project/.magicfrog/memory"))
			must(t, os.RemoveAll(filepath.Join(work, "data/memory/agent")))
			link(outside(work, "dir"))(t, filepath.Join(work, "data/memory/agent"))
		}},
		{name: "linked-config", build: func(t *testing.T, work string) {
			link(outside(work, "secret.md"))(t, filepath.Join(work, "data/magicfrog.json"))
			link(outside(work, "secret.md"))(t, filepath.Join(work, "data/memory/layers.json"))
		}},
		{name: "hostile-lock", build: func(t *testing.T, work string) {
			link(outside(work, "dir"))(t, filepath.Join(work, "data/memory/.mf-lsp"))
			must(t, os.MkdirAll(filepath.Join(work, "project/.magicfrog/memory/.mf-lsp"), 0o755))
			link(outside(work, "lockfile"))(t, filepath.Join(work, "project/.magicfrog/memory/.mf-lsp/lock"))
		}},
		{name: "odd-names", build: func(t *testing.T, work string) {
			for _, n := range []string{"new\nline.md", "tab\there.md", "cr\rx.md", "rtl\u202eevil.md", "e\u0301-nfd.md", "é-nfc.md", "😀.md", "ls\u2028sep.md", "bad\xff.md", " .md", "-dash.md", "a:b.md", "back\\slash.md"} {
				writeAll(t, filepath.Join(work, "data/memory/user", n), "---\nrevision: 1\n---\nodd\n")
				writeAll(t, filepath.Join(work, "portable/user", n), "---\nrevision: 1\n---\nodd\n")
			}
			writeAll(t, filepath.Join(work, "data/memory/agent/new\nline/x.md"), "x\n")
		}},
		{name: "binary-and-encodings", build: func(t *testing.T, work string) {
			inEveryRoot("bin.md", content("---\nrevision: 1\n---\n\x00\x01\x02"))(t, work)
			inEveryRoot("latin1.md", content("---\nrevision: 1\n---\ncaf\xe9\n"))(t, work)
			inEveryRoot("bom.md", content("\xef\xbb\xbf---\nrevision: 1\n---\nbom\n"))(t, work)
			inEveryRoot("badrev.md", content("---\nrevision: -3\nrevision: x\n---\nb\n"))(t, work)
		}},
		{name: "wide-tree", build: func(t *testing.T, work string) {
			for i := range 300 {
				writeAll(t, filepath.Join(work, "data/memory/user/w", strconv.Itoa(i%30), fmt.Sprintf("n%d.md", i)), "---\nrevision: 1\n---\nn\n")
			}
		}},
		{
			name: "swaps-during-reads",
			build: func(t *testing.T, work string) {
				inEveryRoot("swap.md", content("---\nrevision: 1\n---\nplain\n"))(t, work)
			},
			swap: func(work string, stop <-chan struct{}) {
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					r := tortureRoots[i%len(tortureRoots)]
					p := filepath.Join(work, r, "swap.md")
					tmp := p + fmt.Sprintf(".%d", i)
					switch i / len(tortureRoots) % 3 {
					case 0:
						os.Symlink(filepath.Join(work, "outside", "secret.md"), tmp)
					case 1:
						syscall.Mkfifo(tmp, 0o644)
					default:
						os.WriteFile(tmp, []byte("---\nrevision: 1\n---\nplain\n"), 0o644)
					}
					os.Rename(tmp, p)
					time.Sleep(200 * time.Microsecond)
				}
			},
		},
	}
}

type tortureStep struct {
	name string
	run  func(t *testing.T, work string) stepResult
}

type stepResult struct {
	problem string // "" when the step kept to its limits
	took    time.Duration
	rss     int64
	output  string
}

// tortureSteps is every command, then a language-server session.
func tortureSteps(work string) []tortureStep {
	data := filepath.Join(work, "data")
	cmd := func(name string, stdin string, args ...string) tortureStep {
		return tortureStep{name: name, run: func(t *testing.T, work string) stepResult {
			args := append(args, "--data-dir", data)
			return runLimited(filepath.Join(work, "project"), stdin, nil, args...)
		}}
	}
	steps := []tortureStep{
		cmd("tree", "", "tree"),
		cmd("render", "", "render", "--today", "2026-11-30"),
		cmd("render-larry", "", "render", "--agent", "larry", "--task", "T-1", "--today", "2026-11-30"),
		cmd("check", "", "check", "--today", "2026-11-30"),
		cmd("export", "", "export", filepath.Join(work, "exports", "all"), "--all-machines"),
		cmd("import", "", "import", filepath.Join(work, "portable")),
		cmd("write", "A body.\n", "write", "--dimension", "user", "--key", "torture.md", "--expect-revision", "0"),
		cmd("write-task", "A body.\n", "write", "--dimension", "task", "--key", "torture.md", "--expect-revision", "0"),
		cmd("today", "", "today", "--today", "2026-11-30"),
		cmd("rollup", "", "rollup", "due", "--today", "2026-11-30"),
		cmd("promote", "", "promote", "--from", "user", "--key", "style.md", "--to", "account", "--copy"),
		cmd("append", "A line for today.\n", "append", "--today", "2026-11-30"),
	}
	steps = append(steps, tortureStep{name: "language-server", run: lspSession})
	return steps
}

// runLimited runs mf-lsp with args in dir under the step's limits.
// Exit codes are not judged (a hostile tree may well fail a command); a
// crash (a signal, a Go panic) is.
func runLimited(dir, stdin string, session func(in io.Writer, out *bufio.Reader) error, args ...string) stepResult {
	bin := "mf-lsp"
	if b := os.Getenv("MF_TORTURE_BIN"); b != "" {
		bin = b // another build, to measure it (e.g. main before issue 14)
	}
	c := exec.Command(bin, args...)
	c.Dir = dir
	c.Env = append(os.Environ(), "MAGICFROG_HOME=", "XDG_DATA_HOME=", "GOTRACEBACK=all")
	var out bytes.Buffer
	c.Stderr = &out
	var stdinW io.WriteCloser
	var stdoutR *bufio.Reader
	if session != nil {
		w, err := c.StdinPipe()
		if err != nil {
			return stepResult{problem: err.Error()}
		}
		r, err := c.StdoutPipe()
		if err != nil {
			return stepResult{problem: err.Error()}
		}
		stdinW, stdoutR = w, bufio.NewReader(r)
	} else {
		c.Stdin = strings.NewReader(stdin)
		c.Stdout = &out
	}
	start := time.Now()
	if err := c.Start(); err != nil {
		return stepResult{problem: err.Error()}
	}
	var sessionErr error
	sessionDone := make(chan struct{})
	if session != nil {
		go func() {
			defer close(sessionDone)
			sessionErr = session(stdinW, stdoutR)
			stdinW.Close()
			io.Copy(io.Discard, stdoutR)
		}()
	} else {
		close(sessionDone)
	}
	waited := make(chan error, 1)
	go func() { <-sessionDone; waited <- c.Wait() }()
	var problem string
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var polled int64
	var werr error
wait:
	for {
		select {
		case werr = <-waited:
			break wait
		case <-tick.C:
			if rss := currentRSS(c.Process.Pid); rss > polled {
				polled = rss
			}
			switch {
			case time.Since(start) > tortureStepTime:
				problem = fmt.Sprintf("hung: still running after %v; killed", tortureStepTime)
			case polled > tortureStepRSS:
				problem = fmt.Sprintf("over the memory limit: %d MiB resident; killed", polled>>20)
			default:
				continue
			}
			c.Process.Kill()
			werr = <-waited
			break wait
		}
	}
	res := stepResult{took: time.Since(start), output: out.String()}
	if c.ProcessState != nil {
		if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
			res.rss = ru.Maxrss << 10 // KiB on Linux
		}
	}
	res.rss = max(res.rss, polled)
	switch {
	case problem != "":
		res.problem = problem
	case res.rss > tortureStepRSS:
		res.problem = fmt.Sprintf("over the memory limit: peak RSS %d MiB", res.rss>>20)
	case strings.Contains(res.output, "panic:") || strings.Contains(res.output, "goroutine "):
		res.problem = "crashed"
	case sessionErr != nil:
		res.problem = "language server: " + sessionErr.Error()
	}
	if ee, ok := werr.(*exec.ExitError); ok && res.problem == "" {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.problem = "killed by " + ws.Signal().String()
		}
	}
	return res
}

// currentRSS reads a process's resident set from /proc (0 when unknown).
func currentRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// lspSession opens the hostile notes in a language server, asks for what an
// editor asks for, and shuts it down: every request must be answered.
func lspSession(t *testing.T, work string) stepResult {
	project := filepath.Join(work, "project")
	var docs []string
	for _, r := range tortureRoots[:4] {
		entries, _ := os.ReadDir(filepath.Join(work, r))
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".md") && len(docs) < 12 {
				docs = append(docs, filepath.Join(work, r, e.Name()))
			}
		}
	}
	return runLimited(project, "", func(in io.Writer, out *bufio.Reader) error {
		id := 0
		send := func(method string, params any, isRequest bool) (int, error) {
			msg := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
			if isRequest {
				id++
				msg["id"] = id
			}
			b, _ := json.Marshal(msg)
			_, err := fmt.Fprintf(in, "Content-Length: %d\r\n\r\n%s", len(b), b)
			return id, err
		}
		// Replies come in any order, between notifications: wait for ids.
		pending := map[int]bool{}
		request := func(method string, params any) error {
			n, err := send(method, params, true)
			pending[n] = true
			return err
		}
		rootURI := "file://" + project
		if err := request("initialize", map[string]any{"processId": nil, "rootUri": rootURI, "capabilities": map[string]any{},
			"initializationOptions": map[string]any{"dataDir": filepath.Join(work, "data"), "today": "2026-11-30"}}); err != nil {
			return err
		}
		send("initialized", map[string]any{}, false)
		// An absurd frame first: it must not swallow what follows.
		fmt.Fprintf(in, "Content-Length: 9223372036854775807\r\n\r\n{\"jsonrpc\":\"2.0\"")
		for _, d := range docs {
			b, err := readSmall(d)
			if err != nil {
				continue // a FIFO, a huge file, a link: the editor would not open it either
			}
			uri := "file://" + d
			send("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "markdown", "version": 1, "text": b}}, false)
			request("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": 1, "character": 2}})
			request("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}})
		}
		request("workspace/executeCommand", map[string]any{"command": "magicfrog.render"})
		request("workspace/symbol", map[string]any{"query": ""})
		request("shutdown", nil)
		for len(pending) > 0 {
			msg, err := readFrame(out)
			if err != nil {
				return fmt.Errorf("%d requests unanswered: %v", len(pending), err)
			}
			var reply struct {
				ID     *int   `json:"id"`
				Method string `json:"method"`
			}
			json.Unmarshal(msg, &reply)
			if reply.ID != nil && reply.Method == "" {
				delete(pending, *reply.ID)
			} else if reply.ID != nil {
				// A request from the server (configuration, progress): answer it.
				b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": *reply.ID, "result": nil})
				fmt.Fprintf(in, "Content-Length: %d\r\n\r\n%s", len(b), b)
			}
		}
		send("exit", nil, false)
		return nil
	})
}

// readSmall reads a regular file of at most 1 MiB without blocking on a FIFO.
func readSmall(p string) (string, error) {
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 1<<20 {
		return "", fmt.Errorf("skip")
	}
	b, err := os.ReadFile(p)
	return string(b), err
}

func readFrame(r *bufio.Reader) ([]byte, error) {
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	if n < 0 {
		return nil, fmt.Errorf("no Content-Length")
	}
	b := make([]byte, n)
	_, err := io.ReadFull(r, b)
	return b, err
}

// snapshot is a digest of every name, kind, size and content below dir.
func snapshot(t *testing.T, dir string) string {
	h := sha256.New()
	n := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			fmt.Fprintf(h, "%s err\n", p)
			return nil
		}
		n++
		info, _ := d.Info()
		fmt.Fprintf(h, "%s %v", p, d.Type())
		if info != nil {
			fmt.Fprintf(h, " %d", info.Size())
		}
		if d.Type().IsRegular() {
			if b, err := os.ReadFile(p); err == nil {
				h.Write(b)
			}
		}
		h.Write([]byte{'\n'})
		return nil
	})
	return fmt.Sprintf("%d entries %s", n, hex.EncodeToString(h.Sum(nil))[:16])
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
