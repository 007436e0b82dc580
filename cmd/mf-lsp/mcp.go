package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/magicfrog/mf-lsp/cmd/internal/shell"
	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/participant"
	"github.com/magicfrog/mf-lsp/lsp"
	"github.com/magicfrog/mf-lsp/mcpserver"
	"github.com/magicfrog/mf-lsp/session"
)

func runMCP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCLI("mcp", "mf-lsp mcp [--agent ID] [--task ID] [--machine ID] [--http 127.0.0.1:PORT [--allow-remote]]", `
Serve memory to an agent over the Model Context Protocol: on stdio (the
default: the agent host starts the command), or with --http as the streamable
HTTP transport at http://ADDR/mcp. One server process is one participant: its
scope (data directory, project, task, one agent, machine) is fixed at start from
the flags, $`+participant.AgentEnv+` and the project binding, and no tool reads
or writes outside it. Like render, it reads and watches only what that scope
can show: another registered agent's or task's folder is not read.

Tools: memory_context, memory_read, memory_write (revision-checked),
memory_append (today's daily note), memory_search, memory_view. Resources: every
note in scope as memory://DIMENSION[/ID]/KEY and the <memory> block as
memory://context, with resources/subscribe. Each tool's text is what the
model reads (memory_context's: the <memory> block, with 8000 tokens when no
budget is given); its JSON is the structured content. See docs/cli.md#mcp.`, stdout, stderr)
	var pf shell.ParticipantFlags
	pf.Register(c)
	addr := c.FS.String("http", "", "serve the streamable HTTP transport on `ADDR` (127.0.0.1:PORT; port 0 picks one) instead of stdio")
	allowRemote := c.FS.Bool("allow-remote", false, "with --http, allow a non-loopback address and Host header (anyone who can reach it reads and writes your memory)")
	if _, code, done := c.Parse(args, 0, 0); done {
		return code
	}
	if *allowRemote && *addr == "" {
		return c.UsageError("--allow-remote needs --http")
	}
	if *addr != "" && !*allowRemote {
		if err := checkLoopback(*addr); err != nil {
			return c.UsageError("--http %s: %v", *addr, err)
		}
	}
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "mf-lsp mcp: "+format+"\n", a...) }
	// One participant's server reads, and watches, only what its scope can
	// show, as render does (engine.Options.ScopeOnly): another registered
	// agent's or task's folder is neither walked nor watched. The load and
	// the watch are one walk (watch.Open). Its writes land only inside the
	// folders it read, the participant's own. Like render it hashes a large
	// note only when asked (engine.Options.SumsOnDemand): its scope records
	// nothing it sees in the history (ScopeOnly), so the load's hashes would
	// serve only to check texts read again, which a trusted stamp does, and
	// were 42% of its start at 100,000 notes of 8-64 KB. A search hashes
	// what it analyzes in the same read, and its stored copy knows a note
	// by its stamp; a tool answering a note's hash reads it then.
	c.ScopeOnly, c.Within, c.SumsOnDemand = true, pf.Within(os.Getenv), true
	var (
		served  atomic.Pointer[mcpserver.Server]
		watcher *session.Watched
	)
	c.Load = func(o engine.Options) (*engine.Memory, error) {
		m, w, err := session.OpenWatched(o, func(paths []string, changed bool) {
			if s := served.Load(); s != nil {
				s.Changed(paths, changed)
			}
		}, logf)
		watcher = w
		return m, err
	}
	p, err := pf.Participant(c, "", withEmbeddings)
	if err != nil {
		watcher.Close()
		return shell.RefusedScope(c, err, "")
	}
	v, _ := shell.BuildVersion()
	srv := mcpserver.New(p, mcpserver.Options{Version: v, Logf: logf})
	served.Store(srv)
	if !watcher.Watching() {
		logf("warning: not watching the disk: changes by other writers are seen only on the next read of a note")
	}
	defer watcher.Close()
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	logf("serving %s", describeParticipant(p))
	for _, w := range p.Warnings() {
		logf("warning: %s", w)
	}

	if *addr == "" {
		// An agent host's pipes, like an editor's, are read through the
		// runtime's poller, so that a read waiting on the host holds no P
		// (lsp.Pollable).
		in, out := stdin, stdout
		if f, ok := stdin.(*os.File); ok {
			in = lsp.Pollable(f)
		}
		if f, ok := stdout.(*os.File); ok {
			out = lsp.Pollable(f)
		}
		if err := srv.Run(ctx, mcpserver.Stdio(in, out)); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
			return c.Fail("%v", err)
		}
		return exitOK
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return c.Fail("%v", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.HTTPHandler(*allowRemote))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	// The address line is the contract a script waits for (port 0 picks one).
	fmt.Fprintf(stdout, "http://%s/mcp\n", ln.Addr())
	go func() {
		<-ctx.Done()
		sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer scancel()
		_ = hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return c.Fail("%v", err)
	}
	return exitOK
}

// checkLoopback refuses an address that is not on the loopback interface.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(strings.Trim(host, "[]")); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("not a loopback address (127.0.0.1, ::1, localhost): anyone who can reach it could read and write your memory; pass --allow-remote to mean it")
}

func describeParticipant(p *participant.Participant) string {
	s := p.Scope()
	m := p.Memory()
	parts := []string{}
	if a := p.Agent(); a != "" {
		parts = append(parts, "agent "+a)
	} else {
		parts = append(parts, "no agent")
	}
	if s.Task != "" {
		parts = append(parts, "task "+s.Task)
	}
	if s.Machine != "" {
		parts = append(parts, "machine "+s.Machine)
	}
	parts = append(parts, "data "+m.Paths.DataDir)
	if m.Paths.ProjectDir != "" {
		parts = append(parts, "project "+m.Paths.ProjectDir)
	}
	return strings.Join(parts, ", ") + fmt.Sprintf(" (%d notes in scope)", len(p.Notes()))
}
