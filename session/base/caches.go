package base

import (
	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/participant"
	"github.com/magicfrog/mf-lsp/engine/secrets/scancache"
)

// Caches are the caches a process keeps across runs, in the user's cache
// directory: token counts and clean secret scans, both keyed by a text's
// hash, and the folder of search's stored indexes (participant's
// searchcache.go), all derived (removing them costs only speed). A process makes
// them once (OpenCaches), hands them to what it opens (engine.Options,
// Options; the shell's commands through shell.Env) and flushes them before it
// exits; no library holds one of its own.
type Caches struct {
	Tokens *engine.TokenCache
	Scans  *scancache.Cache
	// Search is the folder of search's stored indexes
	// (participant.Options.SearchCacheDir); "" none.
	Search string
}

// OpenCaches opens the caches in the user's cache directory (none when there
// is no such directory).
func OpenCaches() Caches {
	dir := engine.DefaultTokenCacheDir()
	return Caches{Tokens: engine.OpenTokenCache(dir), Scans: scancache.Open(dir), Search: participant.DefaultSearchCacheDir()}
}

// Flush writes what the caches learnt since they were opened.
func (c Caches) Flush() {
	_ = c.Tokens.Flush()
	_ = c.Scans.Flush()
}
