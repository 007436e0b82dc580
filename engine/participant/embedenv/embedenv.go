// Package embedenv gives a participant the embedding provider the
// environment configures (MAGICFROG_EMBEDDINGS_URL, _MODEL, _KEY; package
// embed). Only the front ends that search import it: the language server's
// session, mf-lsp's search and mcp commands. The participant itself reads no
// environment for embeddings, so a binary that only appends or renders
// (cmd/mf-hook) links no HTTP client, no net and no cgo.
package embedenv

import (
	"github.com/magicfrog/mf-lsp/engine/embed"
	"github.com/magicfrog/mf-lsp/engine/participant"
)

// Set puts into o the provider getenv (os.Getenv outside tests) configures:
// none when MAGICFROG_EMBEDDINGS_URL is unset or blank; a bad configuration
// is o.EmbeddingsErr, a warning, and search ranks by keywords. A provider o
// already names is kept.
func Set(o *participant.Options, getenv func(string) string) {
	if o.Embeddings != nil {
		return
	}
	p, err := embed.FromEnv(getenv)
	if p != nil {
		o.Embeddings = p // never a nil *Provider in the interface
	}
	o.EmbeddingsErr = err
}
