package lsp

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/lsp/lsptest"
	"github.com/magicfrog/mf-lsp/session"
)

// answerBound is how long a request may take while memory loads: it must be
// answered at once, not when the load is over.
const answerBound = 2 * time.Second

// TestRequestsWhileLoadingAreAnsweredAtOnce: the read loop never waits for
// memory. A tree whose load is held (Options.beforeLoad) still gets hover,
// code lens, workspace symbols and didOpen answered within answerBound: no
// lens, no symbols, ContentModified for hover; the opened document's
// diagnostics come when the load finishes.
func TestRequestsWhileLoadingAreAnsweredAtOnce(t *testing.T) {
	data := t.TempDir()
	note := filepath.Join(data, "memory", "user", "tone.md")
	if err := os.MkdirAll(filepath.Dir(note), 0o755); err != nil {
		t.Fatal(err)
	}
	text := "---\nrevision: 1\nupdated: 2026-11-01T00:00:00Z\n---\nBe brief.\n"
	if err := os.WriteFile(note, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}

	release := make(chan struct{})
	loading := make(chan struct{}, 1)
	srv, cli := net.Pipe()
	t.Cleanup(func() { cli.Close() })
	s := NewServer(Options{Log: io.Discard, beforeLoad: func(engine.Options) {
		loading <- struct{}{}
		<-release
	}})
	go s.Serve(context.Background(), srv)
	c := lsptest.New(t, cli)
	c.Initialize(string(session.PathToURI(data)), map[string]any{"dataDir": data, "today": "2026-11-30"})
	select {
	case <-loading:
	case <-time.After(10 * time.Second):
		t.Fatal("the load never started")
	}
	defer close(release)

	uri := string(session.PathToURI(note))
	timed := func(what string, call func() error) {
		t.Helper()
		start := time.Now()
		err := call()
		if took := time.Since(start); took > answerBound {
			t.Errorf("%s took %s while memory loads; want under %s", what, took, answerBound)
		}
		if err != nil {
			t.Errorf("%s: %v", what, err)
		}
	}
	timed("didOpen", func() error {
		if err := c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": uri, "languageId": "markdown", "version": 1, "text": text}}); err != nil {
			return err
		}
		// A request after it is answered only once didOpen was handled.
		var syms []any
		return c.Call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &syms)
	})
	timed("hover", func() error {
		err := c.Call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri},
			"position": map[string]any{"line": 4, "character": 1}}, nil)
		if e, ok := err.(*jsonrpc2.Error); ok && e.Code == CodeContentModified {
			return nil
		}
		return err
	})
	timed("codeLens", func() error {
		var lens []any
		if err := c.Call("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": uri}}, &lens); err != nil {
			return err
		}
		if len(lens) != 0 {
			t.Errorf("lens before the load: %v; want none", lens)
		}
		return nil
	})
	timed("workspace/symbol", func() error {
		var syms []any
		if err := c.Call("workspace/symbol", map[string]any{"query": ""}, &syms); err != nil {
			return err
		}
		if len(syms) != 0 {
			t.Errorf("symbols before the load: %v; want none", syms)
		}
		return nil
	})
	if got := c.Notifications("textDocument/publishDiagnostics"); len(got) != 0 {
		t.Errorf("diagnostics published before the load: %v", got)
	}

	// The load finishes: the document opened meanwhile gets its diagnostics.
	release <- struct{}{}
	if _, err := c.WaitDiagnostics(uri, nil); err != nil {
		t.Fatal(err)
	}
	var lens []any
	if err := c.Call("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": uri}}, &lens); err != nil || len(lens) != 1 {
		t.Errorf("lens after the load: %v, %v; want one", lens, err)
	}
}
