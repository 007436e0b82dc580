package lsp

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/lsp/internal/jsonrpc"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/lsp/lsptest"
	"github.com/magicfrog/mf-lsp/session"
)

// answerBound is how long a request may take while memory loads: it is
// answered after loadGrace at most, not when the load is over.
const answerBound = 2 * time.Second

// toneTree writes a data folder holding one user note, memory/user/tone.md.
func toneTree(t *testing.T) (data, note, text string) {
	t.Helper()
	data = t.TempDir()
	note = filepath.Join(data, "memory", "user", "tone.md")
	if err := os.MkdirAll(filepath.Dir(note), 0o755); err != nil {
		t.Fatal(err)
	}
	text = "---\nrevision: 1\nupdated: 2026-11-01T00:00:00Z\n---\nBe brief.\n"
	if err := os.WriteFile(note, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return data, note, text
}

// startHeldLoad starts a server on a one-note tree whose load is held until
// a value is sent on (or close of) release; it returns once the load began.
func startHeldLoad(t *testing.T) (c *lsptest.Client, uri, text string, release chan struct{}) {
	t.Helper()
	data, note, text := toneTree(t)
	release = make(chan struct{})
	loading := make(chan struct{}, 1)
	srv, cli := net.Pipe()
	t.Cleanup(func() { cli.Close() })
	s := NewServer(Options{Log: io.Discard, beforeLoad: func(engine.Options) {
		loading <- struct{}{}
		<-release
	}})
	go s.Serve(context.Background(), srv)
	c = lsptest.New(t, cli)
	c.Initialize(string(session.PathToURI(data)), map[string]any{"dataDir": data, "today": "2026-11-30"})
	select {
	case <-loading:
	case <-time.After(10 * time.Second):
		t.Fatal("the load never started")
	}
	return c, string(session.PathToURI(note)), text, release
}

// TestRequestsWhileLoadingAreAnsweredAtOnce: the read loop never waits for
// memory. A tree whose load is held (Options.beforeLoad) still gets hover,
// code lens, workspace symbols and didOpen answered within answerBound (after
// loadGrace): no
// lens, no symbols, ContentModified for hover; the opened document's
// diagnostics come when the load finishes.
func TestRequestsWhileLoadingAreAnsweredAtOnce(t *testing.T) {
	c, uri, text, release := startHeldLoad(t)
	defer close(release)

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
		if e, ok := err.(*jsonrpc.Error); ok && e.Code == CodeContentModified {
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

// TestSaveWhileLoadingWaitsForItsBump: a save is the one request that waits
// for a loading tree (beside the loop: other requests are answered meanwhile),
// because answered without it the note would be written without its revision
// bump.
func TestSaveWhileLoadingWaitsForItsBump(t *testing.T) {
	c, uri, text, release := startHeldLoad(t)
	if err := c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "markdown", "version": 1, "text": text}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": strings.Replace(text, "brief", "terse", 1)}}}); err != nil {
		t.Fatal(err)
	}

	type answer struct {
		edits []map[string]any
		err   error
	}
	saved := make(chan answer, 1)
	go func() {
		var edits []map[string]any
		err := c.Call("textDocument/willSaveWaitUntil", map[string]any{"textDocument": map[string]any{"uri": uri}, "reason": 1}, &edits)
		saved <- answer{edits, err}
	}()
	// The loop is not blocked by the waiting save.
	var syms []any
	if err := c.Call("workspace/symbol", map[string]any{"query": ""}, &syms); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-saved:
		t.Fatalf("the save was answered before its tree loaded: %+v", a)
	default:
	}
	release <- struct{}{}
	var a answer
	select {
	case a = <-saved:
	case <-time.After(20 * time.Second):
		t.Fatal("the save was never answered after the load")
	}
	if a.err != nil {
		t.Fatal(a.err)
	}
	if len(a.edits) == 0 || a.edits[0]["newText"] != "2" {
		t.Errorf("save edits %v; want the revision bumped to 2", a.edits)
	}
}
