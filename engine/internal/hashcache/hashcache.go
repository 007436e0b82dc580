// Package hashcache is a persistent map from a text's content hash to a small
// number (a token count, a scan's verdict), one file per map, shared by every
// process on the machine: what a pure function of a text computed once need
// not be computed again by the next process.
//
// It is never a source of truth. Each record carries a CRC-32 of itself and a
// damaged one is a miss; a file whose header is not the caller's (another
// format, another version of what computed the values), or whose length is
// not whole records, is read as empty and replaced at the next write.
// Deleting the file at any time is safe. The file is bounded (a number of
// records), written whole to a temporary file and renamed over the old one,
// so a reader never sees half a write; two processes writing at once lose at
// worst the other's new entries.
//
// Layout: the header, then records sorted by key, each 24 bytes: the first 16
// bytes of the text's SHA-256, the value (uint32, little-endian) and the
// CRC-32 (IEEE, little-endian) of those 20 bytes. Lookups binary-search the
// file as read; nothing is decoded up front.
package hashcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/magicfrog/mf-lsp/engine/safefs"
)

// RecordSize is the size of one record in the file.
const RecordSize = 24

// maxRead bounds the file read: far above any real cache.
const maxRead = 256 << 20

// Key is the first 16 bytes of a text's SHA-256.
type Key [16]byte

// KeyOf is text's key.
func KeyOf(text []byte) Key {
	sum := sha256.Sum256(text)
	return Key(sum[:16])
}

// KeyOfSum is the key of a text whose SHA-256 is sum.
func KeyOfSum(sum [32]byte) Key { return Key(sum[:16]) }

// File is one cache file, read on first use. Safe for concurrent use.
type File struct {
	path       string
	headerOf   func() []byte // the header, asked for at first use
	maxRecords int

	headerOnce sync.Once
	header     []byte

	load    sync.Once
	records []byte // sorted records of the file as read (nil: none or unusable)

	mu    sync.Mutex
	added map[Key]uint32 // made by this process, not yet written
	used  map[Key]bool   // found in records: kept first when the file is full
}

// Open returns the cache at path, whose file must start with header() (which
// names the format and whatever the values depend on), holding at most
// maxRecords records. Nothing is read or written until it is used, and
// header is not called before: a command that opens the caches and uses
// none reads no build information.
func Open(path string, header func() []byte, maxRecords int) *File {
	return &File{path: path, headerOf: header, maxRecords: maxRecords, added: map[Key]uint32{}, used: map[Key]bool{}}
}

// head is the file's header, asked for once.
func (c *File) head() []byte {
	c.headerOnce.Do(func() { c.header = c.headerOf() })
	return c.header
}

// Records returns the records of the file, or nil when it is missing or not
// a cache with this header.
func (c *File) Records() []byte {
	data, err := safefs.ReadFile(c.path, maxRead) // never a FIFO, never a sparse giant
	if err != nil {
		return nil
	}
	header := c.head()
	if !bytes.HasPrefix(data, header) || (len(data)-len(header))%RecordSize != 0 {
		return nil
	}
	return data[len(header):]
}

// Lookup returns k's value, from this process's additions or the file.
func (c *File) Lookup(k Key) (uint32, bool) {
	c.load.Do(func() { c.records = c.Records() })
	c.mu.Lock()
	defer c.mu.Unlock()
	if n, ok := c.added[k]; ok {
		return n, true
	}
	n, ok := Find(c.records, k)
	if ok {
		c.used[k] = true
	}
	return n, ok
}

// Add remembers k's value; Flush writes it.
func (c *File) Add(k Key, v uint32) {
	c.mu.Lock()
	c.added[k] = v
	c.mu.Unlock()
}

// Find binary-searches sorted records for k. A damaged record is a miss; so
// is anything in a file that is not sorted.
func Find(records []byte, k Key) (uint32, bool) {
	lo, hi := 0, len(records)/RecordSize
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		r := records[mid*RecordSize : (mid+1)*RecordSize]
		switch cmp := bytes.Compare(r[:16], k[:]); {
		case cmp < 0:
			lo = mid + 1
		case cmp > 0:
			hi = mid
		default:
			if !Intact(r) {
				return 0, false
			}
			return binary.LittleEndian.Uint32(r[16:20]), true
		}
	}
	return 0, false
}

// Intact reports whether a record's CRC matches it.
func Intact(r []byte) bool {
	return crc32.ChecksumIEEE(r[:20]) == binary.LittleEndian.Uint32(r[20:24])
}

func appendRecord(b []byte, k Key, n uint32) []byte {
	b = append(b, k[:]...)
	b = binary.LittleEndian.AppendUint32(b, n)
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b[len(b)-20:]))
}

// Flush merges this process's additions into the file as it is now (another
// process may have written since it was read) and replaces it. When the
// result would exceed the bound, the records this process used or made are
// kept and the rest are dropped. Errors are for the curious: a cache that
// cannot be written costs only speed.
func (c *File) Flush() error {
	// Nothing made: nothing to write, and no read of the file (every
	// command flushes both caches at its exit, most having used neither).
	c.mu.Lock()
	nothing := len(c.added) == 0
	c.mu.Unlock()
	if nothing {
		return nil
	}
	c.load.Do(func() { c.records = c.Records() })
	c.mu.Lock()
	if len(c.added) == 0 {
		c.mu.Unlock()
		return nil
	}
	added := c.added
	c.added = map[Key]uint32{}
	used := c.used
	c.used = map[Key]bool{}
	c.mu.Unlock()

	type rec struct {
		k    Key
		n    uint32
		keep bool // used or made by this process
	}
	all := make([]rec, 0, len(added))
	for k, n := range added {
		all = append(all, rec{k, n, true})
	}
	old := c.Records()
	for i := 0; i+RecordSize <= len(old); i += RecordSize {
		r := old[i : i+RecordSize]
		if !Intact(r) {
			continue
		}
		k := Key(r[:16])
		if _, ok := added[k]; ok {
			continue
		}
		all = append(all, rec{k, binary.LittleEndian.Uint32(r[16:20]), used[k]})
	}
	if len(all) > c.maxRecords {
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
		all = all[:c.maxRecords]
	}
	slices.SortFunc(all, func(a, b rec) int { return bytes.Compare(a.k[:], b.k[:]) })
	header := c.head()
	buf := make([]byte, 0, len(header)+len(all)*RecordSize)
	buf = append(buf, header...)
	for _, r := range all {
		buf = appendRecord(buf, r.k, r.n)
	}
	if err := WriteFile(c.path, buf); err != nil {
		return err
	}
	c.mu.Lock()
	c.records = buf[len(header):]
	c.mu.Unlock()
	return nil
}

// WriteFile replaces the cache file at path with data through a rename (a
// temporary file beside it), making its folder if need be: a reader sees
// the old file or the new one, never a part.
func WriteFile(path string, data []byte) error {
	return WriteFileFunc(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFileFunc is WriteFile of what write writes; an error of write leaves
// the file as it was.
func WriteFileFunc(path string, write func(w io.Writer) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	werr := write(f)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// ModuleVersion is the version of the dependency at path in this binary
// ("unknown" in a test binary without build information): what a header
// names when the values depend on that module (a tokenizer, a rule set).
// A cache asks for its header (and so this) at its first use only.
func ModuleVersion(path string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == path {
				if d.Replace != nil {
					return d.Replace.Path + "@" + d.Replace.Version
				}
				return d.Version
			}
		}
	}
	return "unknown"
}
