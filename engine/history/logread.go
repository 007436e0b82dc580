package history

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/magicfrog/mf-lsp/engine/safefs"
)

// A note's log is read every time the note changes on disk (Seen) or is
// written (Wrote, Replaced), and a log only grows between its rewrites by a
// prune: a whole parse each time made a note written often (an agent's
// daily note, a note another program rewrites) cost a parse of every entry
// it ever had, per change, and that garbage set off the collector while
// requests waited. So a read parses what was appended since the last read
// of the same file, and keeps the entries of the complete lines. The file's
// identity (os.SameFile), its size and a checksum of the part already
// parsed say whether it is still the same file grown: one replaced (a
// prune's rename), shrunk, or rewritten in place under the part read is
// parsed whole again. A torn last line (a crash, or an append still being
// written by another process) is read each time, never kept, so it counts
// once completed.

// maxCachedEntries bounds the entries kept parsed over all of a store's
// logs (about 130 bytes each): beyond it, logs other than the one just read
// are let go, to be parsed whole on their next read.
const maxCachedEntries = 1 << 16

// logCache is a store's logs as last read, by note path.
type logCache struct {
	mu      sync.Mutex
	m       map[string]*parsedLog
	entries int          // the entries kept, over every log
	buf     []byte       // the checksum's read buffer, made once
	parsed  atomic.Int64 // bytes handed to the parser, ever (for tests)
}

// parsedLog is what a read of one log kept.
type parsedLog struct {
	file    fs.FileInfo
	off     int64   // the complete lines' bytes, parsed
	sum     uint32  // crc32 (IEEE) of those bytes
	entries []Entry // theirs
	ended   bool    // a line over maxLogLine was among them
}

// The checksum is IEEE's CRC-32, whose tables crc32 builds at the first
// sum (about 40 K instructions). Castagnoli's, built by a package-level
// MakeTable, cost 1.2 M instructions at every start of every binary linking
// the history, 40% of a hook call's; the sum never leaves the process, so
// any polynomial does.

// Log is the note's log, oldest first; none when the history never saw it.
// The slice is shared with later reads: callers append to it (it has no
// room to spare) but never change its entries.
func (s *Store) Log(rel string) ([]Entry, error) {
	f, err := s.openLog(rel)
	if errors.Is(err, fs.ErrNotExist) {
		s.logs.forget(rel)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("history: %s is not a file", logName(rel))
	}
	return s.logs.read(rel, f, fi)
}

// openLog opens the note's log (through the history's folder: openRoot).
func (s *Store) openLog(rel string) (*os.File, error) {
	r, done, err := s.openRoot()
	if err != nil {
		return nil, err
	}
	defer done()
	return safefs.OpenIn(r, logName(rel), os.O_RDONLY, 0)
}

func (c *logCache) forget(rel string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.m[rel]; p != nil {
		c.entries -= len(p.entries)
		delete(c.m, rel)
	}
}

// read is the log in f (fi its Stat), parsing what follows the part the
// last read of rel kept when f is that file grown, else all of it.
func (c *logCache) read(rel string, f *os.File, fi fs.FileInfo) ([]Entry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.m[rel]
	if p != nil && !(os.SameFile(p.file, fi) && fi.Size() >= p.off && c.sameSum(f, p.off, p.sum)) {
		c.entries -= len(p.entries)
		p = nil
	}
	if p == nil {
		p = &parsedLog{}
	}
	p.file = fi
	rest := make([]byte, fi.Size()-p.off)
	n, err := f.ReadAt(rest, p.off)
	if err != nil && err != io.EOF {
		delete(c.m, rel)
		return nil, err
	}
	rest = rest[:n] // shorter when it shrank since the Stat: the next read parses it whole
	complete := rest[:bytes.LastIndexByte(rest, '\n')+1]
	torn := rest[len(complete):]
	c.parsed.Add(int64(len(rest)))
	before := len(p.entries)
	if !p.ended {
		p.entries, p.ended = parseLines(p.entries, complete)
	}
	p.off += int64(len(complete))
	p.sum = crc32.Update(p.sum, crc32.IEEETable, complete)
	c.entries += len(p.entries) - before
	if c.m == nil {
		c.m = map[string]*parsedLog{}
	}
	c.m[rel] = p
	for other, q := range c.m {
		if c.entries <= maxCachedEntries {
			break
		}
		if other != rel {
			c.entries -= len(q.entries)
			delete(c.m, other)
		}
	}
	out := slices.Clip(p.entries)
	if len(torn) > 0 && !p.ended {
		out, _ = parseLines(out, torn) // appending to a clipped slice copies it
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// sameSum reports whether f's first n bytes read and have the checksum sum.
func (c *logCache) sameSum(f *os.File, n int64, sum uint32) bool {
	if c.buf == nil {
		c.buf = make([]byte, 32<<10)
	}
	var got uint32
	for off := int64(0); off < n; {
		b := c.buf[:min(int64(len(c.buf)), n-off)]
		m, err := f.ReadAt(b, off)
		got = crc32.Update(got, crc32.IEEETable, b[:m])
		off += int64(m)
		if err != nil && off < n {
			return false
		}
	}
	return got == sum
}
