package engine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/magicfrog/mf-lsp/engine/internal/hashcache"
	"github.com/magicfrog/mf-lsp/engine/internal/o200k"
)

// The token-count cache remembers, across processes, how many o200k tokens a
// text takes, keyed by the SHA-256 of the text: an agent boots with a budget
// at every session start, and the second boot of an unchanged tree should not
// run the tokenizer at all. A count is a pure function of the text and the
// tokenizer, so an entry can only be right or damaged; engine/internal/hashcache
// says how a damaged one, a file of another version, a full file and two
// writers at once are handled.

// TokenCacheFile is the cache's file name inside its folder.
const TokenCacheFile = "token-counts"

// tokenCacheMaxRecords bounds the file at 12 MiB: three counts for each of
// 170,000 notes (element, omitted line, body).
const tokenCacheMaxRecords = 1 << 19

// tokenCacheHeader names the format and what the counts depend on: the
// encoding and the counter's version (a counter that splits text otherwise
// would make counts that are not ours).
var tokenCacheHeader = sync.OnceValue(func() []byte {
	return []byte("mf-lsp token counts 1 o200k_base mf-lsp/o200k@" + o200k.Version + "\n")
})

// TokenCache keeps token counts across processes. It is a value the caller
// makes and hands to the memory it opens (Options.TokenCache): the binary
// makes one in <user cache dir>/mf-lsp; the nil *TokenCache is no cache (the
// library's default, so that tests and embedders write nothing they did not
// ask for), and every method works on it. Safe for concurrent use.
type TokenCache struct{ f *hashcache.File }

// OpenTokenCache keeps token counts in dir; dir "" is no cache (nil).
// Nothing is written until Flush.
func OpenTokenCache(dir string) *TokenCache {
	if dir == "" {
		return nil
	}
	return &TokenCache{f: hashcache.Open(filepath.Join(dir, TokenCacheFile), tokenCacheHeader, tokenCacheMaxRecords)}
}

// Flush writes the counts made since the last write, if any. Errors are
// returned for the curious; a cache that cannot be written costs only speed.
func (c *TokenCache) Flush() error {
	if c == nil {
		return nil
	}
	return c.f.Flush()
}

// count counts text, through the cache when there is one.
func (c *TokenCache) count(text string) int {
	if c == nil {
		return Tokens(text)
	}
	k := hashcache.KeyOf([]byte(text))
	if n, ok := c.f.Lookup(k); ok {
		return int(n)
	}
	n := Tokens(text)
	c.f.Add(k, uint32(n))
	return n
}

// lookup is text's count when the cache holds it.
func (c *TokenCache) lookup(text []byte) (int, bool) {
	if c == nil {
		return 0, false
	}
	n, ok := c.f.Lookup(hashcache.KeyOf(text))
	return int(n), ok
}

// DefaultTokenCacheDir is where the binary keeps token counts:
// <user cache dir>/mf-lsp (~/.cache/mf-lsp on Linux), or "" when the system
// has no cache directory.
func DefaultTokenCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	if _, err := os.Stat(filepath.Dir(dir)); errors.Is(err, fs.ErrNotExist) {
		// No home for a cache folder (HOME=/nonexistent in a sandbox or a
		// service account): make nothing there.
		return ""
	}
	return filepath.Join(dir, "mf-lsp")
}
