package lsp_test

import (
	"context"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/lsp"
	"github.com/magicfrog/mf-lsp/lsp/lsptest"
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
		"text": "---\nrevision: 3\nupdated: 2026-10-20T09:12:00.000Z\n---\nPrefer functional array methods over for loops.\n",
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
	slices.Sort(durations)
	pct := func(p float64) float64 {
		return float64(durations[int(p*float64(len(durations)-1))]) / float64(time.Microsecond)
	}
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
