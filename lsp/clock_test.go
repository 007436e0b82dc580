package lsp_test

import (
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/lsp"
	"github.com/magicfrog/mf-lsp/lsp/lsptest"
	"github.com/magicfrog/mf-lsp/session"
)

// serveInProcess serves a new lsp.Server over net.Pipe and returns a client that
// has not yet sent initialize. The server's own log is dropped unless opts.Log
// says where it goes: what a test checks reaches the client as messages.
func serveInProcess(t *testing.T, opts lsp.Options) *lsptest.Client {
	t.Helper()
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	srv, cli := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- lsp.Serve(context.Background(), srv, opts) }()
	c := lsptest.New(t, cli)
	t.Cleanup(func() {
		cli.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("server did not stop after the connection closed")
		}
	})
	return c
}

// steppingClock starts at start and moves on by step at every reading: each
// `updated` the server writes is later than the one before, with no sleep.
func steppingClock(start time.Time, step time.Duration) func() time.Time {
	var mu sync.Mutex
	next := start
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t := next
		next = next.Add(step)
		return t
	}
}

// startDemoAt starts an in-process server on a copy of the demo with its clock
// pinned by now (the journal's today comes from it: no today setting).
func startDemoAt(t *testing.T, now func() time.Time) (c *lsptest.Client, data, project string) {
	t.Helper()
	data, project = demo(t)
	c = serveInProcess(t, lsp.Options{Now: now})
	c.Initialize(string(session.PathToURI(project)), map[string]any{"dataDir": data})
	return c, data, project
}

// The journal's boot set in a block the server renders follows the server's
// clock when no today setting names the day: on 2026-11-30 it holds yesterday's
// daily 2026-11-29; a week earlier, 2026-11-23's daily as yesterday's.
func TestRenderFollowsTheClock(t *testing.T) {
	for _, tc := range []struct {
		now           time.Time
		want, wantNot string
	}{
		{time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), "journal/2026-11-29.md", "journal/2026-11-23.md"},
		{time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC), "journal/2026-11-23.md", "journal/2026-11-29.md"},
	} {
		c, _, _ := startDemoAt(t, func() time.Time { return tc.now })
		var block string
		mustExec(t, c, "magicfrog.render", nil, &block)
		if !strings.Contains(block, tc.want) || strings.Contains(block, tc.wantNot) {
			t.Errorf("block rendered at %s: want %s in it and not %s:\n%s", tc.now.Format(time.DateOnly), tc.want, tc.wantNot, block)
		}
	}
}
