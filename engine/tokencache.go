package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/magicfrog/mf-lsp/engine/safefs"
)

// The token-count cache remembers, across processes, how many o200k tokens a
// text takes, keyed by the SHA-256 of the text: an agent boots with a budget
// at every session start, and the second boot of an unchanged tree should not
// run the tokenizer at all.
//
// It is never a source of truth. A count is a pure function of the text and
// the tokenizer, so an entry can only be right or damaged: each record carries
// a CRC-32 of itself and a damaged one is a miss; a file whose header names
// another format or tokenizer version, or whose length is not whole records,
// is read as empty and replaced at the next write. Deleting the folder at any
// time is safe. The file is bounded (tokenCacheMaxRecords), written whole to a
// temporary file and renamed over the old one, so a reader never sees half a
// write; two processes writing at once lose at worst the other's new entries.
//
// Layout: the header line, then records sorted by key, each 24 bytes: the
// first 16 bytes of the text's SHA-256, the count (uint32, little-endian) and
// the CRC-32 (IEEE, little-endian) of those 20 bytes. Lookups binary-search
// the file as read; nothing is decoded up front.

// TokenCacheFile is the cache's file name inside its folder.
const TokenCacheFile = "token-counts"

const tokenRecordSize = 24

// tokenCacheMaxRecords bounds the file at 12 MiB: three counts for each of
// 170,000 notes (element, omitted line, body). A variable for tests.
var tokenCacheMaxRecords = 1 << 19

// tokenCacheHeader names the format and what the counts depend on: the
// encoding and the tokenizer module's version (a new version may split text
// differently, so its counts are not ours).
var tokenCacheHeader = sync.OnceValue(func() []byte {
	version := "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/tiktoken-go/tokenizer" {
				version = d.Version
				if d.Replace != nil {
					version = d.Replace.Path + "@" + d.Replace.Version
				}
			}
		}
	}
	return []byte("mf-lsp token counts 1 o200k_base tiktoken-go/tokenizer@" + version + "\n")
})

type tokenKey [16]byte

// tokenCache is the persistent cache of one folder.
type tokenCache struct {
	dir string

	load    sync.Once
	records []byte // sorted records of the file as read (nil: none or unusable)

	mu    sync.Mutex
	added map[tokenKey]uint32 // counted by this process, not yet written
	used  map[tokenKey]bool   // found in records: kept first when the file is full
}

var (
	tokenCacheMu sync.Mutex
	persistent   *tokenCache // nil: counts live only as long as their notes
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
	persistent = &tokenCache{dir: dir, added: map[tokenKey]uint32{}, used: map[tokenKey]bool{}}
}

func currentTokenCache() *tokenCache {
	tokenCacheMu.Lock()
	defer tokenCacheMu.Unlock()
	return persistent
}

// FlushTokenCache writes the counts made since the last write, if any. Errors
// are returned for the curious; a cache that cannot be written costs only
// speed.
func FlushTokenCache() error {
	if c := currentTokenCache(); c != nil {
		return c.flush()
	}
	return nil
}

// countTokens counts text, through the persistent cache when there is one.
func countTokens(text string) int {
	c := currentTokenCache()
	if c == nil {
		return Tokens(text)
	}
	sum := sha256.Sum256([]byte(text))
	k := tokenKey(sum[:16])
	if n, ok := c.lookup(k); ok {
		return n
	}
	n := Tokens(text)
	c.mu.Lock()
	c.added[k] = uint32(n)
	c.mu.Unlock()
	return n
}

// maxTokenCacheRead bounds the cache file read: far above any real cache.
const maxTokenCacheRead = 256 << 20

func (c *tokenCache) path() string { return filepath.Join(c.dir, TokenCacheFile) }

// read returns the records of the file, or nil when it is missing or not a
// cache of this format and tokenizer.
func (c *tokenCache) read() []byte {
	data, err := safefs.ReadFile(c.path(), maxTokenCacheRead) // never a FIFO, never a sparse giant
	if err != nil {
		return nil
	}
	h := tokenCacheHeader()
	if !bytes.HasPrefix(data, h) || (len(data)-len(h))%tokenRecordSize != 0 {
		return nil
	}
	return data[len(h):]
}

func (c *tokenCache) lookup(k tokenKey) (int, bool) {
	c.load.Do(func() { c.records = c.read() })
	c.mu.Lock()
	defer c.mu.Unlock()
	if n, ok := c.added[k]; ok {
		return int(n), true
	}
	n, ok := findRecord(c.records, k)
	if ok {
		c.used[k] = true
	}
	return n, ok
}

// findRecord binary-searches sorted records for k. A damaged record is a
// miss; so is anything in a file that is not sorted.
func findRecord(records []byte, k tokenKey) (int, bool) {
	lo, hi := 0, len(records)/tokenRecordSize
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		r := records[mid*tokenRecordSize : (mid+1)*tokenRecordSize]
		switch cmp := bytes.Compare(r[:16], k[:]); {
		case cmp < 0:
			lo = mid + 1
		case cmp > 0:
			hi = mid
		default:
			if !recordIntact(r) {
				return 0, false
			}
			return int(binary.LittleEndian.Uint32(r[16:20])), true
		}
	}
	return 0, false
}

func recordIntact(r []byte) bool {
	return crc32.ChecksumIEEE(r[:20]) == binary.LittleEndian.Uint32(r[20:24])
}

func appendRecord(b []byte, k tokenKey, n uint32) []byte {
	b = append(b, k[:]...)
	b = binary.LittleEndian.AppendUint32(b, n)
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b[len(b)-20:]))
}

// flush merges this process's new counts into the file as it is now (another
// process may have written since it was read) and replaces it. When the
// result would exceed the bound, the counts this process used or made are
// kept and the rest are dropped.
func (c *tokenCache) flush() error {
	c.load.Do(func() { c.records = c.read() })
	c.mu.Lock()
	if len(c.added) == 0 {
		c.mu.Unlock()
		return nil
	}
	added := c.added
	c.added = map[tokenKey]uint32{}
	used := c.used
	c.used = map[tokenKey]bool{}
	c.mu.Unlock()

	type rec struct {
		k    tokenKey
		n    uint32
		keep bool // used or made by this process
	}
	all := make([]rec, 0, len(added))
	for k, n := range added {
		all = append(all, rec{k, n, true})
	}
	old := c.read()
	for i := 0; i+tokenRecordSize <= len(old); i += tokenRecordSize {
		r := old[i : i+tokenRecordSize]
		if !recordIntact(r) {
			continue
		}
		k := tokenKey(r[:16])
		if _, ok := added[k]; ok {
			continue
		}
		all = append(all, rec{k, binary.LittleEndian.Uint32(r[16:20]), used[k]})
	}
	if len(all) > tokenCacheMaxRecords {
		// Keep what this process needed; of the rest, whatever fits.
		slices.SortStableFunc(all, func(a, b rec) int {
			switch {
			case a.keep == b.keep:
				return 0
			case a.keep:
				return -1
			}
			return 1
		})
		all = all[:tokenCacheMaxRecords]
	}
	slices.SortFunc(all, func(a, b rec) int { return bytes.Compare(a.k[:], b.k[:]) })
	h := tokenCacheHeader()
	buf := make([]byte, 0, len(h)+len(all)*tokenRecordSize)
	buf = append(buf, h...)
	for _, r := range all {
		buf = appendRecord(buf, r.k, r.n)
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(c.dir, ".token-counts-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(buf)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), c.path()); err != nil {
		os.Remove(f.Name())
		return err
	}
	c.mu.Lock()
	c.records = buf[len(h):]
	c.mu.Unlock()
	return nil
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
