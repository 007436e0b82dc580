package embedenv_test

import (
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/engine/embed"
	"github.com/magicfrog/mf-lsp/engine/participant"
	"github.com/magicfrog/mf-lsp/engine/participant/embedenv"
)

// set is the options embedenv.Set makes from env.
func set(env map[string]string) participant.Options {
	var o participant.Options
	embedenv.Set(&o, func(k string) string { return env[k] })
	return o
}

// TestSet: what embedenv adds to embed.FromEnv (whose parsing embed's
// TestFromEnv covers): no provider is a nil interface, not a nil
// *embed.Provider in one; a provider is the environment's; a bad
// configuration is a warning, not a provider; a provider given is kept.
func TestSet(t *testing.T) {
	if o := set(nil); o.Embeddings != nil || o.EmbeddingsErr != nil {
		t.Errorf("unset: %#v, %v; want no provider", o.Embeddings, o.EmbeddingsErr)
	}
	o := set(map[string]string{embed.EnvURL: "https://h/api/embeddings", embed.EnvModel: "m", embed.EnvKey: "k"})
	if p, ok := o.Embeddings.(*embed.Provider); !ok || o.EmbeddingsErr != nil || p.Kind != embed.Ollama || p.Model != "m" || p.Key != "k" {
		t.Errorf("set: %#v, %v; want an Ollama provider", o.Embeddings, o.EmbeddingsErr)
	}
	o = set(map[string]string{embed.EnvURL: "ftp://nowhere", embed.EnvModel: "m"})
	if o.Embeddings != nil || o.EmbeddingsErr == nil || !strings.Contains(o.EmbeddingsErr.Error(), embed.EnvURL) {
		t.Errorf("a bad URL: %#v, %v; want a warning naming %s", o.Embeddings, o.EmbeddingsErr, embed.EnvURL)
	}
	given := &embed.Provider{URL: "http://given"}
	o = participant.Options{Embeddings: given}
	embedenv.Set(&o, func(k string) string { return map[string]string{embed.EnvURL: "ftp://x"}[k] })
	if o.Embeddings != given || o.EmbeddingsErr != nil {
		t.Errorf("a given provider: %#v, %v", o.Embeddings, o.EmbeddingsErr)
	}
}
