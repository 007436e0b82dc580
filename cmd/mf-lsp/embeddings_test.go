package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/embed"
	"github.com/magicfrog/mf-lsp/session"
)

// TestSearchingFrontEndsAskTheEndpoint: engine/participant reads no
// environment for embeddings (so mf-hook links no HTTP client); every front
// end that searches sets the provider MAGICFROG_EMBEDDINGS_URL names: the
// search command, the MCP server's memory_search, and the session's search
// (the language server's magicfrog.search). Each asks the endpoint (a
// query of its own: vectors are cached on disk).
func TestSearchingFrontEndsAskTheEndpoint(t *testing.T) {
	var asked atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		var req struct {
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		type datum struct {
			Embedding []float32 `json:"embedding"`
			Index     int       `json:"index"`
		}
		out := struct {
			Data []datum `json:"data"`
		}{}
		for i := range req.Input {
			out.Data = append(out.Data, datum{Embedding: []float32{1, float32(i % 3)}, Index: i})
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the vectors' cache
	t.Setenv(embed.EnvURL, srv.URL+"/v1/embeddings")
	t.Setenv(embed.EnvModel, "stand-in")
	dir := demoCopy(t)
	data, proj := filepath.Join(dir, "data"), filepath.Join(dir, "project")

	ask := func(name string, search func()) {
		t.Helper()
		before := asked.Load()
		search()
		if asked.Load() == before {
			t.Errorf("%s did not ask the embeddings endpoint", name)
		}
	}
	ask("mf-lsp search", func() {
		var out, errb bytes.Buffer
		if code := run([]string{"search", "--data-dir", data, "--project", proj, "export the notes"}, nil, &out, &errb); code != 0 {
			t.Fatalf("search: exit %d: %s", code, errb.String())
		}
	})
	ask("mf-lsp mcp's memory_search", func() {
		s := startMCP(t, dir)
		if r := s.call(t, "memory_search", map[string]any{"query": "export a journal"}); r.IsError {
			t.Fatalf("memory_search: %s", textOf(r))
		}
		s.end(t)
	})
	ask("the session's search", func() {
		m, err := engine.Open(engine.Options{DataDir: data, ProjectDir: proj})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := session.Search(&session.Snapshot{Memory: m, Participant: m.DefaultScope()}, session.SearchArgs{Query: "export"}); err != nil {
			t.Fatal(err)
		}
	})
}
