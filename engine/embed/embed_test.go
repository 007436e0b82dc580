package embed

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestFromEnv(t *testing.T) {
	for _, tc := range []struct {
		env       map[string]string
		kind, err string
	}{
		{env: map[string]string{}},
		{env: map[string]string{EnvURL: "  "}},
		{env: map[string]string{EnvURL: "http://localhost:11434/api/embeddings", EnvModel: "nomic-embed-text"}, kind: Ollama},
		{env: map[string]string{EnvURL: "https://api.example.com/v1/embeddings", EnvModel: "m", EnvKey: "k"}, kind: OpenAI},
		{env: map[string]string{EnvURL: "localhost:11434", EnvModel: "m"}, err: "http:// or https://"},
		{env: map[string]string{EnvURL: "http://localhost/v1/embeddings"}, err: EnvModel},
	} {
		p, err := FromEnv(func(k string) string { return tc.env[k] })
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: error %v, want one naming %q", tc.env, err, tc.err)
			}
		case err != nil:
			t.Errorf("%v: %v", tc.env, err)
		case tc.kind == "" && p != nil:
			t.Errorf("%v: a provider %+v, want none", tc.env, p)
		case tc.kind != "" && (p == nil || p.Kind != tc.kind):
			t.Errorf("%v: provider %+v, want kind %s", tc.env, p, tc.kind)
		}
	}
}

// TestBadAnswers: an endpoint's nonsense is an error, never a panic or a
// vector in the wrong place.
func TestBadAnswers(t *testing.T) {
	for _, answer := range []string{
		`not json`,
		`{"data": []}`,
		`{"data": [{"embedding": [1], "index": 5}]}`,
		`{"data": [{"embedding": [], "index": 0}]}`,
		`{"data": [{"embedding": [1], "index": 0}, {"embedding": [1], "index": 0}]}`,
	} {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(answer)) }))
		p := &Provider{URL: s.URL, Model: "m", Kind: OpenAI}
		n := 1
		if strings.Count(answer, "index") == 2 {
			n = 2
		}
		if v, err := p.Embed(context.Background(), make([]string, n)); err == nil {
			t.Errorf("%s: %v, want an error", answer, v)
		}
		s.Close()
	}
}
