package participant

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/internal/hashcache"
	"github.com/magicfrog/mf-lsp/engine/safefs"
)

// The stored index is a copy of the search index in the user's cache
// directory, so that a process's first search (a shell's `mf-lsp search`, an
// MCP server's first memory_search) reads it back instead of tokenizing every
// note again. It is laid out as the index is in memory: each note's entry
// (its lines, headings and stop words), then each term's list (the notes
// holding it and its positions in them), so that reading it back fills the
// lists in a row; a note is then in no list but the terms' (its analysis
// keeps no vocab), and the notes that changed since are removed and added as
// after any change. It is derived, never a source of truth: one file per
// memory tree and scope
// (<cache dir>/mf-lsp/search/<hash of the data directory, project and scope>.idx),
// each note's entry keyed by its path, key, size and the SHA-256 of the text
// analyzed (so a note changed behind the cache's back, even to the same size
// and modification time, disagrees), with the file's stamp when its load
// trusted it: a note a load did not hash (engine.Options.SumsOnDemand, an
// agent's server) agrees when its file has that stamp still (any write since
// moves the change time) and is analyzed again otherwise, never read only
// to be hashed. The whole is under a header naming the format and the
// stemmer's version and a checksum. An entry that disagrees with its note is analyzed again; a file
// that is damaged, of another format or version, or that fails a check of its
// values (positions within their note's lines and terms, every position of
// a note in some list, ids in order) is ignored whole. Whenever the first build read anything but exactly
// the notes in scope from it, the file is written again whole, through a
// rename. Nothing is ever written inside the memory tree, and no error of the
// cache reaches the user: it costs only speed.

// storedIndexFile is the stored index's name inside dir for a tree and scope.
func storedIndexFile(dir string, m *engine.Memory, s engine.Scope) string {
	h := sha256.Sum256(fmt.Appendf(nil, "%q %q %q %q %q", m.Paths.DataDir, m.Paths.ProjectDir, s.Task, s.Agents, s.Machine))
	return filepath.Join(dir, hex.EncodeToString(h[:12])+".idx")
}

// Bounds of the stored indexes: a file larger than maxStoredBytes is not
// written (nor read), and the folder keeps the maxStoredFiles most recently
// written (one per tree and scope searched).
const (
	maxStoredBytes = 1 << 30
	maxStoredFiles = 16
)

// DefaultSearchCacheDir is where the binary keeps stored indexes:
// <user cache dir>/mf-lsp/search (~/.cache/mf-lsp/search on Linux,
// $XDG_CACHE_HOME/mf-lsp/search when set), or "" when the system has no
// cache directory.
func DefaultSearchCacheDir() string {
	dir := engine.DefaultTokenCacheDir()
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "search")
}

// storedHeader names the format and what the analyses depend on: the
// stemmer's version.
func storedHeader() []byte {
	return []byte("mf-lsp search index 4 kljensen/snowball@" + hashcache.ModuleVersion("github.com/kljensen/snowball") + "\n")
}

// castagnoli is the stored copy's checksum table, built at the first read or
// write of the copy: MakeTable(Castagnoli) costs 1.2 M instructions (its
// SSE4.2 tables), 40% of a hook call that never searches.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// loadStored fills the empty index with the notes of scope the stored index
// holds as they are now, and says whether the file must be written again (it
// is absent or bad, or held other notes or other versions of them).
func (p *Participant) loadStored(scope []scopedNote) (stale bool) {
	ix := &p.index
	data := readStored(storedIndexFile(p.cacheDir, p.m, p.scope))
	if data == nil {
		return true
	}
	ok, stored := ix.decode(data, scope)
	if !ok {
		// A file that fails a check is not trusted in any part.
		ix.docs, ix.days, ix.lines, ix.length, ix.fromStore = nil, nil, 0, 0, 0
		clear(ix.ids)
		clear(ix.terms)
		clear(ix.minor)
		return true
	}
	return ix.fromStore != len(scope) || stored != ix.fromStore
}

// decode reads a stored index's notes that agree with scope's into the
// empty index, false when a value fails a check.
func (ix *searchIndex) decode(data []byte, scope []scopedNote) (ok bool, stored int) {
	r := &reader{b: data}
	byPath := make(map[string]int, len(scope))
	for i, sn := range scope {
		byPath[sn.e.Path] = i
	}
	words := map[string]string{} // the stop words, each kept once
	nd := r.count()
	renum := make([]int32, nd)                    // a stored note's id, -1 when left out
	type limit struct{ lines, terms, held int32 } // per note: its lines, its positions, those read
	var lim []limit
	for k := range renum {
		renum[k] = -1
		path := r.bytes(r.count())
		entry := r.bytes(r.count())
		i, ok := byPath[string(path)]
		if !ok || r.err {
			continue
		}
		sn := scope[i]
		a, bad := decodeNote(entry, sn.e, words)
		if bad {
			return false, 0
		}
		if _, twice := ix.ids[sn.e.Path]; twice {
			return false, 0
		}
		if a == nil {
			continue
		}
		renum[k] = ix.addDoc(sn, a)
		lim = append(lim, limit{int32(a.lines()), int32(a.terms), 0})
	}
	nt := r.count()
	for range nt {
		t := string(r.bytes(r.count()))
		nr := r.count()
		// The list's bytes in the file: its bytes in memory are as many
		// or fewer (ids of notes left out are not there).
		size := r.count()
		l, end := &termList{last: -1, b: make([]byte, 0, size)}, len(r.b)-size
		prev := -1
		for range nr {
			k := prev + 1 + r.small(nd)
			if k >= nd {
				return false, 0
			}
			prev = k
			nk := r.u64()
			n, key := int(nk>>1), nk&1 != 0
			lines := r.small(n + 1)
			var occ []byte
			if n > 0 {
				occ = r.bytes(r.count())
			}
			if n > len(occ) || r.err {
				return false, 0
			}
			id := renum[k]
			if id < 0 {
				continue
			}
			lm := &lim[id]
			a := ix.docs[id].a
			sum, held, ok := checkOccs(occ, n, &a.lineLen)
			if !ok || held != lines || n == 0 && !key {
				return false, 0
			}
			if lm.held += int32(n); lm.held > lm.terms {
				return false, 0
			}
			if key {
				a.keyTerms = append(a.keyTerms, t)
			}
			l.b = appendRef(l.b, l.last, ref{id: id, n: int32(n), lines: int32(lines), key: key, sum: sum, occ: occ})
			l.refs, l.last = l.refs+1, id
		}
		if r.err || len(r.b) != end || ix.terms[t] != nil {
			return false, 0
		}
		if l.refs > 0 {
			ix.terms[t] = l
		}
	}
	if r.err || len(r.b) > 0 {
		return false, 0
	}
	for _, lm := range lim {
		if lm.held != lm.terms { // every position of the note is in a list
			return false, 0
		}
	}
	ix.fromStore = len(ix.docs)
	return true, nd
}

// checkOccs says whether occ is the encoding of n occurrences (postings.go)
// in order, each at a position its line holds (lineLen: the terms on each
// line), how many lines hold them and their summary (the stored index does
// not keep it).
func checkOccs(occ []byte, n int, lineLen *lineLens) (sum lineSummary, lines int, ok bool) {
	line, pos, count, nl := -1, 0, 0, len(lineLen.n)
	onLine := int32(0) // the occurrences on line so far
	for i := 0; i < len(occ); count++ {
		v, k := binary.Uvarint(occ[i:])
		if i += k; k <= 0 || v>>2 == 0 || v>>2 > 1<<31 {
			return sum, 0, false
		}
		if d := int(v >> 2); v&1 == 0 {
			if count == 0 {
				return sum, 0, false
			}
			pos += d
			onLine++
		} else {
			if onLine > 0 {
				sum.add(onLine, lineLen.at(line))
			}
			line, lines, onLine = line+d, lines+1, 1
			p, k := binary.Uvarint(occ[i:])
			if i += k; k <= 0 || line >= nl || p > 1<<31 {
				return sum, 0, false
			}
			pos = int(p)
		}
		if pos >= int(lineLen.at(line)) {
			return sum, 0, false
		}
	}
	if onLine > 0 {
		sum.add(onLine, lineLen.at(line))
	}
	return sum, lines, count == n
}

// decodeNote is the analysis (without its terms: the lists hold them) that
// entry holds of e, nil when it is of another version of e; bad when a
// value fails a check.
func decodeNote(entry []byte, e *engine.Note, words map[string]string) (a *analyzed, bad bool) {
	r := &reader{b: entry}
	key, size := r.bytes(r.count()), r.u64()
	stored, st := r.bytes(sha256.Size), r.stamp()
	if r.err {
		return nil, true
	}
	if string(key) != e.Key || size != uint64(e.Size()) {
		return nil, false
	}
	// The entry is of the note's version when its hash is the note's; a
	// note the load did not hash is not read to tell: the entry is its when
	// the file's stamp is the one the entry was written under, and is taken
	// for another version otherwise (analyzing it again reads it once, as
	// hashing it would).
	sum, atHand := e.SumAtHand()
	switch {
	case atHand && !bytes.Equal(stored, sum[:]):
		return nil, false
	case !atHand && st != e.TrustedStamp(): // an unhashed note's stamp is never the zero one
		return nil, false
	case !atHand:
		sum = [32]byte(stored)
	}
	a = &analyzed{hash: sum, day: dayOf(e), stored: true}
	nl := r.count()
	if nl == 0 {
		return nil, true
	}
	bodyLen := e.Size() - e.BodyStart()
	if nl > bodyLen+1 {
		return nil, true
	}
	a.bodyLen = int32(bodyLen)
	a.lineLen.n = make([]uint8, 0, nl)
	for range nl {
		n := r.small(bodyLen + 1)
		a.lineLen.add(int32(n))
		a.terms += n
	}
	nh := r.count()
	for i := range nh {
		h := r.small(nl)
		if i > 0 {
			if h == 0 || int(a.heads[i-1])+h >= nl {
				return nil, true
			}
			h += int(a.heads[i-1])
		}
		a.heads = append(a.heads, int32(h))
	}
	if a.terms > bodyLen {
		return nil, true
	}
	nm, prevWord := r.count(), -1
	for range nm {
		w := r.small(len(stopList()))
		if w <= prevWord || r.err {
			return nil, true
		}
		prevWord = w
		ls := make([]int32, r.count())
		for i := range ls {
			l := r.small(nl)
			if i > 0 {
				if l == 0 || int(ls[i-1])+l >= nl {
					return nil, true
				}
				l += int(ls[i-1])
			}
			ls[i] = int32(l)
		}
		if len(ls) == 0 {
			return nil, true
		}
		a.minor = appendMinor(a.minor, w, ls)
	}
	if r.err || len(r.b) > 0 {
		return nil, true
	}
	return a, false
}

// readStored is the stored index's content after the header, checked
// against its checksum; nil when absent, too large, of another format or
// damaged.
func readStored(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxStoredBytes {
		return nil
	}
	data := make([]byte, fi.Size())
	if n, _ := f.ReadAt(data, 0); n != len(data) {
		return nil
	}
	hdr := storedHeader()
	if !bytes.HasPrefix(data, hdr) || len(data) < len(hdr)+4 {
		return nil
	}
	body, sum := data[len(hdr):len(data)-4], data[len(data)-4:]
	if crc32.Checksum(body, castagnoli()) != binary.LittleEndian.Uint32(sum) {
		return nil
	}
	return body
}

// reader reads what save wrote, failing (err) rather than reading past the
// end or allocating for more items than bytes are left.
type reader struct {
	b   []byte
	err bool
}

func (r *reader) u64() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count is a number of items that follow, each at least a byte.
func (r *reader) count() int {
	v := r.u64()
	if v > uint64(len(r.b)) {
		r.fail()
		return 0
	}
	return int(v)
}

// small is a number below limit.
func (r *reader) small(limit int) int {
	v := r.u64()
	if v >= uint64(limit) {
		r.fail()
		return 0
	}
	return int(v)
}

func (r *reader) bytes(n int) []byte {
	if n > len(r.b) {
		r.fail()
		return nil
	}
	b := r.b[:n:n]
	r.b = r.b[n:]
	return b
}

func (r *reader) fail() { r.err, r.b = true, nil }

// stamp is a file stamp as appendStamp wrote it.
func (r *reader) stamp() safefs.Stamp {
	return safefs.Stamp{Dev: r.u64(), Ino: r.u64(), Size: int64(r.u64()), Mtime: int64(r.u64()), Ctime: int64(r.u64())}
}

// appendStamp appends st, each field as an unsigned varint (a time before
// 1970 takes ten bytes and reads back the same): the zero Stamp when the
// entry's note had no trusted one (a resident note, or one its load could
// not trust).
func appendStamp(b []byte, st safefs.Stamp) []byte {
	for _, v := range [...]uint64{st.Dev, st.Ino, uint64(st.Size), uint64(st.Mtime), uint64(st.Ctime)} {
		b = binary.AppendUvarint(b, v)
	}
	return b
}

// saveStored writes the index's live notes and their terms' lists to the
// stored index, whole, through a rename; a note whose body could not be read
// is left out (analyzed again next time). Its errors cost only speed.
func (p *Participant) saveStored() {
	ix := &p.index
	path := storedIndexFile(p.cacheDir, p.m, p.scope)
	renum := make([]int32, len(ix.docs))
	live := 0
	for id, d := range ix.docs {
		renum[id] = -1
		if d.a != nil && !d.a.unread {
			renum[id] = int32(live)
			live++
		}
	}
	terms := make([]string, 0, len(ix.terms))
	liveRefs := make(map[string]int, len(ix.terms)) // per term, its live notes
	for t, l := range ix.terms {
		n := 0
		for rr := newRefReader(l.b); ; {
			r, ok := rr.next()
			if !ok {
				break
			}
			if renum[r.id] >= 0 {
				n++
			}
		}
		if n > 0 {
			terms = append(terms, t)
			liveRefs[t] = n
		}
	}
	slices.Sort(terms)
	err := hashcache.WriteFileFunc(path, func(f io.Writer) error {
		if _, err := f.Write(storedHeader()); err != nil {
			return err
		}
		crc := crc32.New(castagnoli())
		w := &storedWriter{w: bufio.NewWriterSize(io.MultiWriter(f, crc), 1<<16)}
		w.uvarint(uint64(live))
		var entry []byte
		for id, d := range ix.docs {
			if renum[id] >= 0 {
				entry = encodeNote(entry[:0], d.e, d.a)
				w.bytes([]byte(d.e.Path))
				w.bytes(entry)
			}
		}
		w.uvarint(uint64(len(terms)))
		var list []byte
		for _, t := range terms { // in order: the same index makes the same file
			w.bytes([]byte(t))
			w.uvarint(uint64(liveRefs[t]))
			list = list[:0]
			prev := int32(-1)
			for rr := newRefReader(ix.terms[t].b); ; {
				r, ok := rr.next()
				if !ok {
					break
				}
				id := renum[r.id]
				if id < 0 {
					continue
				}
				list = binary.AppendUvarint(list, uint64(id-prev-1))
				prev = id
				nk := uint64(r.n) << 1
				if r.key {
					nk |= 1
				}
				list = binary.AppendUvarint(list, nk)
				list = binary.AppendUvarint(list, uint64(r.lines))
				if r.n > 0 {
					list = appendBytes(list, r.occ)
				}
			}
			w.bytes(list)
			if w.err != nil {
				return w.err
			}
		}
		if err := w.w.Flush(); err != nil {
			return err
		}
		if w.n > maxStoredBytes {
			return errors.New("over the bound")
		}
		_, err := f.Write(binary.LittleEndian.AppendUint32(nil, crc.Sum32()))
		return err
	})
	if err == nil {
		pruneStored(filepath.Dir(path), path)
	}
}

// storedWriter writes a stored index, counting its bytes and keeping the
// first error.
type storedWriter struct {
	w   *bufio.Writer
	n   int
	err error
	buf [binary.MaxVarintLen64]byte
}

func (w *storedWriter) uvarint(v uint64) {
	w.write(binary.PutUvarint(w.buf[:], v), w.buf[:])
}

func (w *storedWriter) bytes(b []byte) {
	w.uvarint(uint64(len(b)))
	w.write(len(b), b)
}

func (w *storedWriter) write(n int, b []byte) {
	if w.err != nil {
		return
	}
	if w.n += n; w.n > maxStoredBytes {
		w.err = errors.New("over the bound")
		return
	}
	_, w.err = w.w.Write(b[:n])
}

// encodeNote appends note e's entry, its analysis a without its terms'
// positions (the lists hold them), to b.
func encodeNote(b []byte, e *engine.Note, a *analyzed) []byte {
	b = appendBytes(b, []byte(e.Key))
	b = binary.AppendUvarint(b, uint64(e.Size()))
	b = append(b, a.hash[:]...) // the hash of the text analyzed (analyze)
	b = appendStamp(b, e.TrustedStamp())
	b = binary.AppendUvarint(b, uint64(a.lines()))
	for l := range a.lines() {
		b = binary.AppendUvarint(b, uint64(a.lineLen.at(l)))
	}
	b = binary.AppendUvarint(b, uint64(len(a.heads)))
	prev := int32(0)
	for i, h := range a.heads {
		if i == 0 {
			b = binary.AppendUvarint(b, uint64(h))
		} else {
			b = binary.AppendUvarint(b, uint64(h-prev))
		}
		prev = h
	}
	var words, ls []int32
	a.minor.each(func(w, _ int, _ []byte) { words = append(words, int32(w)) })
	b = binary.AppendUvarint(b, uint64(len(words)))
	a.minor.each(func(w, _ int, enc []byte) {
		b = binary.AppendUvarint(b, uint64(w))
		ls = linesOf(ls[:0], enc)
		b = binary.AppendUvarint(b, uint64(len(ls)))
		prev := int32(0)
		for i, l := range ls {
			if i == 0 {
				b = binary.AppendUvarint(b, uint64(l))
			} else {
				b = binary.AppendUvarint(b, uint64(l-prev))
			}
			prev = l
		}
	})
	return b
}

func appendBytes(b, s []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// pruneStored keeps the maxStoredFiles most recently written stored
// indexes of dir (keep, just written, among them).
func pruneStored(dir, keep string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type file struct {
		path string
		info fs.FileInfo
	}
	var files []file
	for _, de := range ents {
		if !strings.HasSuffix(de.Name(), ".idx") || !de.Type().IsRegular() {
			continue
		}
		if info, err := de.Info(); err == nil {
			files = append(files, file{filepath.Join(dir, de.Name()), info})
		}
	}
	if len(files) <= maxStoredFiles {
		return
	}
	slices.SortFunc(files, func(a, b file) int { return b.info.ModTime().Compare(a.info.ModTime()) })
	for _, f := range files[maxStoredFiles:] {
		if f.path != keep {
			os.Remove(f.path)
		}
	}
}
