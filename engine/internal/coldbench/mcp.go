package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/magicfrog/mf-lsp/engine/internal/synth"
)

// mcpClient is the smallest MCP client that can time `mf-lsp mcp` from
// another process, as an agent host starts it: newline-delimited JSON-RPC
// over the child's stdio, one request at a time, notifications skipped.
type mcpClient struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	nextID int
}

// startMCP starts `mf-lsp mcp` on tree t and runs the handshake: the
// server answers initialize once its tree is loaded.
func startMCP(bin string, t *synth.Tree, env []string) (*mcpClient, error) {
	cmd := exec.Command(bin, "mcp", "--data-dir", t.DataDir, "--project", t.ProjectDir)
	in, out, err := startPiped(cmd, t.ProjectDir, env)
	if err != nil {
		return nil, err
	}
	c := &mcpClient{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	if _, err := c.call("initialize", map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "coldbench", "version": "1"},
	}); err != nil {
		c.stop()
		return nil, err
	}
	if err := c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}

func (c *mcpClient) send(v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = c.in.Write(append(line, '\n'))
	return err
}

// call sends a request and reads lines until its reply.
func (c *mcpClient) call(method string, params any) (json.RawMessage, error) {
	c.nextID++
	id := c.nextID
	if err := c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("%s: %v", method, err)
		}
		var m message
		if err := json.Unmarshal(line, &m); err != nil {
			return nil, fmt.Errorf("%s: bad line %q: %v", method, line, err)
		}
		if m.Method != "" || string(m.ID) != fmt.Sprint(id) {
			continue // a notification (list changed, …)
		}
		if m.Error != nil {
			return nil, fmt.Errorf("%s: error %d: %s", method, m.Error.Code, m.Error.Message)
		}
		return m.Result, nil
	}
}

// tool calls a tool; a tool error is an error here.
func (c *mcpClient) tool(name string, args map[string]any) (string, error) {
	res, err := c.call("tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return "", err
	}
	var r struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, p := range r.Content {
		b.WriteString(p.Text)
	}
	if r.IsError {
		return "", fmt.Errorf("%s: %s", name, b.String())
	}
	return b.String(), nil
}

// stop closes stdin (the end of the session) and waits for the exit.
func (c *mcpClient) stop() {
	_ = c.in.Close()
	waitExit(c.cmd)
}

// mcpFirst starts `mf-lsp mcp` and times it from start to the answer of
// its first memory_context (initialize waits for the load): what an agent
// host pays before the agent has its block.
func mcpFirst(bin string, t *synth.Tree, env []string) (sample, error) {
	start := time.Now()
	c, err := startMCP(bin, t, env)
	if err != nil {
		return sample{}, err
	}
	block, err := c.tool("memory_context", map[string]any{})
	wall := time.Since(start)
	c.stop()
	if err != nil {
		return sample{}, err
	}
	if !strings.Contains(block, "<memory") {
		return sample{}, fmt.Errorf("memory_context answered no block: %.200q", block)
	}
	s := sample{wall: wall}
	s.usage(c.cmd.ProcessState)
	return s, nil
}

// mcpSession drives one `mf-lsp mcp` over stdio on tree t as an agent
// does: the block, then reads (whole notes and line ranges) and searches,
// and prints each request's p50/p99 and the server's peak RSS after each
// stage. The bound on a long-lived server's memory is 100 MB at
// 10,000 notes of 8-64 KB and 250 MB at 100,000.
func mcpSession(c config, t *synth.Tree, cache string) error {
	env := benchEnv(cache)
	// The token-count cache as an agent's boot of an unchanged tree finds
	// it (the timed rounds' warm-up fills it too): an empty one makes the
	// first memory_context count every note in scope, tens of seconds at
	// 100,000 notes of 8-64 KB.
	if _, err := runCLI(c.bin, t.ProjectDir, env, []string{"render", "--budget=" + strconv.Itoa(c.budget), "--data-dir", t.DataDir, "--project", t.ProjectDir}); err != nil {
		return err
	}
	start := time.Now()
	srv, err := startMCP(c.bin, t, env)
	if err != nil {
		return err
	}
	defer srv.stop()
	pid := srv.cmd.Process.Pid
	type stage struct {
		name string
		d    []time.Duration
		rss  float64
	}
	var stages []stage
	timed := func(name string, n int, f func(i int) error) error {
		d := make([]time.Duration, 0, n)
		for i := range n {
			t0 := time.Now()
			if err := f(i); err != nil {
				return fmt.Errorf("%s: %v", name, err)
			}
			d = append(d, time.Since(t0))
		}
		stages = append(stages, stage{name, d, peakRSS(pid, "VmHWM:")})
		return nil
	}
	loaded := time.Since(start)
	loadRSS := peakRSS(pid, "VmHWM:")
	if err := timed("memory_context", max(10, c.requests/10), func(int) error {
		_, err := srv.tool("memory_context", map[string]any{})
		return err
	}); err != nil {
		return err
	}
	// The first view: each winner's hash, which a load that left large
	// notes unhashed takes here (the server's SumsOnDemand).
	var view string
	if err := timed("memory_view (the first hashes the winners)", 1, func(int) error {
		v, err := srv.tool("memory_view", map[string]any{})
		view = v
		return err
	}); err != nil {
		return err
	}
	keys := viewKeys(view)
	if len(keys) == 0 {
		return fmt.Errorf("memory_view lists no keys:\n%.500s", view)
	}
	if err := timed("memory_read, whole note", c.requests, func(i int) error {
		k := keys[i%len(keys)]
		_, err := srv.tool("memory_read", map[string]any{"dimension": k[0], "key": k[1]})
		return err
	}); err != nil {
		return err
	}
	if err := timed("memory_read, lines 1-10", c.requests, func(i int) error {
		k := keys[i%len(keys)]
		_, err := srv.tool("memory_read", map[string]any{"dimension": k[0], "key": k[1], "start_line": 1, "end_line": 10})
		return err
	}); err != nil {
		return err
	}
	queries := []string{"topic", "note about", `"the note"`, "zzyzzyva"}
	if err := timed("memory_search (the first builds the index)", 1, func(int) error {
		_, err := srv.tool("memory_search", map[string]any{"query": queries[0]})
		return err
	}); err != nil {
		return err
	}
	if err := timed("memory_search", max(10, c.requests/5), func(i int) error {
		_, err := srv.tool("memory_search", map[string]any{"query": queries[i%len(queries)]})
		return err
	}); err != nil {
		return err
	}
	target := 100.0
	if t.Notes > 10_000 {
		target = 250
	}
	fmt.Fprintf(c.out, "mf-lsp mcp over stdio, %d notes (initialized after %v, peak RSS then %.0f MB; %d keys in view)\n\n",
		t.Notes, loaded.Round(time.Millisecond), loadRSS, len(keys))
	fmt.Fprintln(c.out, "| request | count | p50 | p99 | max | peak RSS after | target | met |")
	fmt.Fprintln(c.out, "| --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, s := range stages {
		fmt.Fprintf(c.out, "| %s | %d | %s | %s | %s | %.0f MB | < %.0f MB | %s |\n", s.name, len(s.d), ms(percentile(s.d, 0.5)),
			ms(percentile(s.d, 0.99)), ms(slices.Max(s.d)), s.rss, target, yesNo(s.rss < target))
	}
	fmt.Fprintf(c.out, "| peak RSS of mf-lsp mcp | | | | | %.0f MB | < %.0f MB | %s |\n\n", stages[len(stages)-1].rss, target, yesNo(stages[len(stages)-1].rss < target))
	return nil
}

// viewKeys is the (place, key) of each key's winner in memory_view's text
// ("- KEY: PLACE (revision N)…" lines).
func viewKeys(view string) [][2]string {
	var keys [][2]string
	for _, line := range strings.Split(view, "\n") {
		rest, ok := strings.CutPrefix(line, "- ")
		if !ok {
			continue
		}
		key, rest, ok := strings.Cut(rest, ": ")
		if !ok {
			continue
		}
		place, _, ok := strings.Cut(rest, " (revision ")
		if !ok {
			continue
		}
		keys = append(keys, [2]string{place, key})
	}
	return keys
}
