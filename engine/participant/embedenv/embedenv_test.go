package embedenv_test

import (
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/engine/embed"
	"github.com/magicfrog/mf-lsp/engine/participant"
	"github.com/magicfrog/mf-lsp/engine/participant/embedenv"
)

// TestSet: the environment's provider, or none (a nil interface, not a nil
// *embed.Provider in one), or a warning for a bad configuration; a provider
// already given is kept.
func TestSet(t *testing.T) {
	for _, tc := range []struct {
		env      map[string]string
		kind     string // "": no provider
		errWords string // "": no error
	}{
		{env: nil},
		{env: map[string]string{embed.EnvURL: "  ", embed.EnvModel: "m"}},
		{env: map[string]string{embed.EnvURL: "http://127.0.0.1:9/v1/embeddings", embed.EnvModel: "m"}, kind: embed.OpenAI},
		{env: map[string]string{embed.EnvURL: "https://h/api/embeddings/", embed.EnvModel: "m", embed.EnvKey: "k"}, kind: embed.Ollama},
		{env: map[string]string{embed.EnvURL: "ftp://nowhere", embed.EnvModel: "m"}, errWords: "http:// or https://"},
		{env: map[string]string{embed.EnvURL: "http://h/v1/embeddings"}, errWords: embed.EnvModel},
	} {
		var o participant.Options
		embedenv.Set(&o, func(k string) string { return tc.env[k] })
		switch {
		case tc.errWords != "":
			if o.EmbeddingsErr == nil || !strings.Contains(o.EmbeddingsErr.Error(), tc.errWords) || o.Embeddings != nil {
				t.Errorf("%v: embeddings %v, error %v; want an error naming %q", tc.env, o.Embeddings, o.EmbeddingsErr, tc.errWords)
			}
		case tc.kind == "":
			if o.Embeddings != nil || o.EmbeddingsErr != nil {
				t.Errorf("%v: embeddings %#v, error %v; want none", tc.env, o.Embeddings, o.EmbeddingsErr)
			}
		default:
			p, ok := o.Embeddings.(*embed.Provider)
			if !ok || o.EmbeddingsErr != nil || p.Kind != tc.kind || p.Model != "m" || p.Key != tc.env[embed.EnvKey] {
				t.Errorf("%v: embeddings %#v, error %v; want a %s provider", tc.env, o.Embeddings, o.EmbeddingsErr, tc.kind)
			}
		}
	}
	given := &embed.Provider{URL: "http://given"}
	o := participant.Options{Embeddings: given}
	embedenv.Set(&o, func(k string) string { return map[string]string{embed.EnvURL: "ftp://x"}[k] })
	if o.Embeddings != given || o.EmbeddingsErr != nil {
		t.Errorf("a given provider: %#v, %v", o.Embeddings, o.EmbeddingsErr)
	}
}
