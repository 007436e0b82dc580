package engine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/magicfrog/mf-lsp/engine/internal/hashcache"
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
// 170,000 notes (element, omitted line, body). A variable for tests.
var tokenCacheMaxRecords = 1 << 19

// tokenCacheHeader names the format and what the counts depend on: the
// encoding and the tokenizer module's version (a new version may split text
// differently, so its counts are not ours).
var tokenCacheHeader = sync.OnceValue(func() []byte {
	return []byte("mf-lsp token counts 1 o200k_base tiktoken-go/tokenizer@" + hashcache.ModuleVersion("github.com/tiktoken-go/tokenizer") + "\n")
})

var (
	tokenCacheMu sync.Mutex
	persistent   *hashcache.File // nil: counts live only as long as their notes
)

// UseTokenCache keeps token counts in dir across processes ("" turns it off).
// The binary passes <user cache dir>/mf-lsp; the library default is off, so
// that tests and embedders write nothing they did not ask for. Counts added
// since the last write are written by FlushTokenCache.
func UseTokenCache(dir string) {
	tokenCacheMu.Lock()
	defer tokenCacheMu.Unlock()
	if dir == "" {
		persistent = nil
		return
	}
	persistent = hashcache.Open(filepath.Join(dir, TokenCacheFile), tokenCacheHeader(), tokenCacheMaxRecords)
}

func currentTokenCache() *hashcache.File {
	tokenCacheMu.Lock()
	defer tokenCacheMu.Unlock()
	return persistent
}

// FlushTokenCache writes the counts made since the last write, if any. Errors
// are returned for the curious; a cache that cannot be written costs only
// speed.
func FlushTokenCache() error {
	if c := currentTokenCache(); c != nil {
		return c.Flush()
	}
	return nil
}

// countTokens counts text, through the persistent cache when there is one.
func countTokens(text string) int {
	c := currentTokenCache()
	if c == nil {
		return Tokens(text)
	}
	k := hashcache.KeyOf([]byte(text))
	if n, ok := c.Lookup(k); ok {
		return int(n)
	}
	n := Tokens(text)
	c.Add(k, uint32(n))
	return n
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
