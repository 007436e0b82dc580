package lsp

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"testing"
	"time"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/lsp/lsptest"
	"github.com/magicfrog/mf-lsp/session"
)

// startSlowDiagnostics serves a one-note tree over the real transport with a
// diagnostics hook: hold receives each (version) about to be computed and the
// run waits until it returns.
func startSlowDiagnostics(t *testing.T, hold func(version int32)) (c *lsptest.Client, uri, text string) {
	t.Helper()
	data, note, text := toneTree(t)
	srv, cli := net.Pipe()
	t.Cleanup(func() { cli.Close() })
	s := NewServer(Options{Log: io.Discard, beforeDiagnostics: func(_ protocol.DocumentUri, v int32) { hold(v) }})
	go s.Serve(context.Background(), srv)
	c = lsptest.New(t, cli)
	c.Initialize(string(session.PathToURI(data)), map[string]any{"dataDir": data, "today": "2026-11-30"})
	return c, string(session.PathToURI(note)), text
}

func published(c *lsptest.Client, uri string) []int32 {
	var vs []int32
	for _, m := range c.Notifications("textDocument/publishDiagnostics") {
		var d lsptest.PublishedDiagnostics
		if json.Unmarshal(m.Params, &d) == nil && d.URI == uri && d.Version != nil {
			vs = append(vs, *d.Version)
		}
	}
	return vs
}

// TestRequestAfterChangeDoesNotWaitForItsDiagnostics: the diagnostics of an
// edit run beside the read loop. While those of version 2 are held, a hover
// sent right after the change is answered from version 2's text; the
// diagnostics of version 2 come once released.
func TestRequestAfterChangeDoesNotWaitForItsDiagnostics(t *testing.T) {
	held := make(chan struct{})
	release := make(chan struct{})
	c, uri, text := startSlowDiagnostics(t, func(v int32) {
		if v == 2 {
			close(held)
			<-release
		}
	})
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	if err := c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "markdown", "version": 1, "text": text}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitDiagnostics(uri, func(d lsptest.PublishedDiagnostics) bool { return d.Version != nil && *d.Version == 1 }); err != nil {
		t.Fatal(err)
	}
	changed := text + "See [[tone]].\n"
	if err := c.Notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 2},
		"contentChanges": []map[string]any{{"text": changed}}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-held:
	case <-time.After(10 * time.Second):
		t.Fatal("the diagnostics of version 2 never started")
	}
	var sym []map[string]any
	if err := c.Call("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &sym); err != nil {
		t.Fatalf("documentSymbol while the change's diagnostics are held: %v", err)
	}
	var hover json.RawMessage
	if err := c.Call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri},
		"position": map[string]any{"line": 5, "character": 7}}, &hover); err != nil {
		t.Fatalf("hover while the change's diagnostics are held: %v", err)
	}
	if string(hover) == "null" || len(hover) == 0 {
		t.Errorf("hover on the link added in version 2 = %s; want it answered from version 2's text", hover)
	}
	if vs := published(c, uri); len(vs) != 1 {
		t.Fatalf("published versions before release = %v; want only [1]", vs)
	}
	close(release)
	if _, err := c.WaitDiagnostics(uri, func(d lsptest.PublishedDiagnostics) bool { return d.Version != nil && *d.Version == 2 }); err != nil {
		t.Fatal(err)
	}
}

// TestDiagnosticsNeverGoBackInVersion: a burst of edits over slow diagnostics
// publishes the last version, skips versions superseded before their run, and
// never publishes an older version after a newer one.
func TestDiagnosticsNeverGoBackInVersion(t *testing.T) {
	c, uri, text := startSlowDiagnostics(t, func(int32) { time.Sleep(20 * time.Millisecond) })
	if err := c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "markdown", "version": 1, "text": text}}); err != nil {
		t.Fatal(err)
	}
	const last = 30
	for v := 2; v <= last; v++ {
		text += "x"
		if err := c.Notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": v},
			"contentChanges": []map[string]any{{"text": text}}}); err != nil {
			t.Fatal(err)
		}
		if v%10 == 0 {
			time.Sleep(30 * time.Millisecond)
		}
	}
	if _, err := c.WaitDiagnostics(uri, func(d lsptest.PublishedDiagnostics) bool { return d.Version != nil && *d.Version == last }); err != nil {
		t.Fatal(err)
	}
	vs := published(c, uri)
	for i := 1; i < len(vs); i++ {
		if vs[i] < vs[i-1] {
			t.Fatalf("published versions %v go backwards", vs)
		}
	}
	if len(vs) >= last {
		t.Errorf("published versions %v: want superseded versions skipped", vs)
	}
}
