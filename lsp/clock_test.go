package lsp_test

import (
	"context"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/lsp"
	"github.com/magicfrog/mf-lsp/lsp/lsptest"
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
	c.Initialize(string(lsp.PathToURI(project)), map[string]any{"dataDir": data})
	return c, data, project
}
