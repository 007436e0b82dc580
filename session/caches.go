package session

import (
	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/participant"
	"github.com/magicfrog/mf-lsp/engine/secrets"
)

// Caches are the caches a process keeps across runs, in the user's cache
// directory: token counts and clean secret scans, both keyed by a text's
// hash, and the folder of search's stored indexes (participant's
// searchcache.go), all derived (removing them costs only speed). A process makes
// them once (OpenCaches), hands them to what it opens (engine.Options,
// Options) and flushes them before it exits; no package holds one of its own.
type Caches struct {
	Tokens *engine.TokenCache
	Scans  *secrets.Cache
	// Search is the folder of search's stored indexes
	// (participant.Options.SearchCacheDir); "" none.
	Search string
}

// OpenCaches opens the caches in the user's cache directory (none when there
// is no such directory).
func OpenCaches() Caches {
	dir := engine.DefaultTokenCacheDir()
	return Caches{Tokens: engine.OpenTokenCache(dir), Scans: secrets.OpenCache(dir), Search: participant.DefaultSearchCacheDir()}
}

// Flush writes what the caches learnt since they were opened.
func (c Caches) Flush() {
	_ = c.Tokens.Flush()
	_ = c.Scans.Flush()
}
