package participant

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/internal/hashcache"
)

// The stored index is a copy of the search index's analyses in the user's
// cache directory, so that a process's first search (a shell's `mf-lsp
// search`, an MCP server's first memory_search) reads each note's analysis
// back instead of tokenizing the note again. It is derived, never a source of
// truth: one file per memory tree and scope
// (<cache dir>/mf-lsp/search/<hash of the data directory, project and scope>.idx),
// each note's entry keyed by its path, key, size and the SHA-256 of the text
// the tree loaded (the load hashes every note, so a note changed behind the
// cache's back, even to the same size and modification time, disagrees), the
// whole under a header naming the format and the stemmer's version and a
// checksum. An entry that disagrees with its note is analyzed again; a file
// that is damaged, of another format or version, or that fails a check of its
// values is ignored whole. Whenever the first build read anything but exactly
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
	return []byte("mf-lsp search index 1 kljensen/snowball@" + hashcache.ModuleVersion("github.com/kljensen/snowball") + "\n")
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// storedIndex is what a first build read of its stored index.
type storedIndex struct {
	path  string
	stale bool // it did not hold exactly the notes in scope: write it again
}

// loadStored fills as[j] (and scratchOf[j]) with the stored analysis of note
// scope[missing[j]] where the stored index has one that agrees with it.
func (p *Participant) loadStored(scope []scopedNote, missing []int, as []*analyzed, scratchOf []*analysisScratch) *storedIndex {
	st := &storedIndex{path: storedIndexFile(p.cacheDir, p.m, p.scope), stale: true}
	data := readStored(st.path)
	if data == nil {
		return st
	}
	r := &reader{b: data}
	nd := r.count()
	dict := make([]string, nd)
	for i := range dict {
		dict[i] = r.str()
	}
	byPath := make(map[string]int, len(missing))
	for j, i := range missing {
		byPath[scope[i].e.Path] = j
	}
	sc := &analysisScratch{stored: nd}
	d := &decoder{dict: dict}
	used := 0
	nn := r.count()
	for k := 0; k < nn && !r.err; k++ {
		path := r.bytes(r.count())
		entry := r.bytes(r.count())
		j, ok := byPath[string(path)]
		if !ok || r.err || as[j] != nil {
			continue
		}
		if a := d.note(entry, scope[missing[j]].e); a != nil {
			as[j], scratchOf[j] = a, sc
			used++
		} else if d.bad {
			r.err = true
		}
	}
	if r.err || len(r.b) > 0 {
		// A file that fails a check is not trusted in any part.
		clear(as)
		clear(scratchOf)
		return st
	}
	st.stale = used != len(missing) || nn != len(missing)
	return st
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
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxStoredBytes {
		return nil
	}
	data, err := readAll(f)
	hdr := storedHeader()
	if err != nil || !bytes.HasPrefix(data, hdr) || len(data) < len(hdr)+4 {
		return nil
	}
	body, sum := data[len(hdr):len(data)-4], data[len(data)-4:]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(sum) {
		return nil
	}
	return body
}

func readAll(f *os.File) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	buf := make([]byte, fi.Size())
	n, err := f.ReadAt(buf, 0)
	if n == len(buf) {
		return buf, nil
	}
	return nil, errors.Join(err, errors.New("short read"))
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

func (r *reader) str() string { return string(r.bytes(r.count())) }

func (r *reader) fail() { r.err, r.b = true, nil }

// decoder reads notes' entries; bad is set by an entry that fails a check
// of its values (as opposed to one of another version of its note).
type decoder struct {
	dict []string
	seen []bool // scratch: the positions read of the note at hand
	bad  bool
}

// note is the analysis entry holds of e, or nil when it is of another
// version of e (bad unset) or fails a check (bad set).
func (d *decoder) note(entry []byte, e *engine.Note) *analyzed {
	r := &reader{b: entry}
	sum := e.Sum()
	if string(r.bytes(r.count())) != e.Key || r.u64() != uint64(e.Size()) || !bytes.Equal(r.bytes(len(sum)), sum[:]) || r.err {
		d.bad = r.err
		return nil
	}
	a := &analyzed{hash: sum, day: dayOf(e)}
	fail := func() *analyzed { d.bad = true; return nil }
	nd := len(d.dict)
	a.keyTerms = make([]string, r.count())
	for i := range a.keyTerms {
		a.keyTerms[i] = d.dict[r.small(nd)]
	}
	nl := r.count()
	if nl == 0 {
		return fail()
	}
	lines := make([]int32, 3*nl+1)
	a.lineAt, a.lineLen, a.heading = lines[:nl+1], lines[nl+1:2*nl+1], lines[2*nl+1:]
	at, bodyLen := 0, e.Size()-e.BodyStart()
	for i := range a.lineAt {
		if at += r.small(bodyLen + 1); at > bodyLen {
			return fail()
		}
		a.lineAt[i] = int32(at)
	}
	if a.lineAt[0] != 0 || at != bodyLen {
		return fail()
	}
	for i := range a.lineLen {
		a.lineLen[i] = int32(r.small(bodyLen + 1))
		a.terms += int(a.lineLen[i])
	}
	for i := range a.heading {
		if a.heading[i] = int32(r.small(i+2)) - 1; a.heading[i] >= 0 && a.heading[a.heading[i]] != a.heading[i] {
			return fail()
		}
	}
	if a.terms > bodyLen {
		return fail()
	}
	d.seen = slices.Grow(d.seen[:0], a.terms)[:a.terms]
	clear(d.seen)
	nv := r.count()
	a.vocab, a.termIDs, a.posts = make([]string, nv), make([]int32, nv), make([]posting, nv)
	all := make([]uint64, a.terms)
	filled := 0
	for slot := range a.vocab {
		id := r.small(nd)
		a.vocab[slot], a.termIDs[slot] = d.dict[id], int32(id)
		n := r.count()
		lines := int32(r.small(nl + 1))
		if n == 0 || filled+n > a.terms {
			return fail()
		}
		x, line, held := uint64(0), -1, int32(0)
		for k := 0; k < n; k++ {
			delta := r.u64()
			if k > 0 && delta == 0 {
				return fail()
			}
			x += delta
			if atLine(x) >= nl || atPos(x) >= a.terms || d.seen[atPos(x)] {
				return fail()
			}
			d.seen[atPos(x)] = true
			if atLine(x) != line {
				line, held = atLine(x), held+1
			}
			all[filled+k] = x
		}
		if held != lines {
			return fail()
		}
		a.posts[slot] = posting{lines: lines, at: all[filled : filled+n : filled+n]}
		filled += n
	}
	if filled != a.terms {
		return fail()
	}
	if nm := r.count(); nm > 0 {
		a.minor = make(map[string][]int32, nm)
		for range nm {
			w := d.dict[r.small(nd)]
			ls := make([]int32, r.count())
			for i := range ls {
				l := r.small(nl)
				if i > 0 {
					if l == 0 || int(ls[i-1])+l >= nl {
						return fail()
					}
					l += int(ls[i-1])
				}
				ls[i] = int32(l)
			}
			if len(ls) == 0 || a.minor[w] != nil {
				return fail()
			}
			a.minor[w] = ls
		}
	}
	if r.err || len(r.b) > 0 {
		return fail()
	}
	return a
}

// save writes the stored index of the notes scope[missing[j]], analyzed as
// as[j], whole, through a rename; a note whose body could not be read is
// left out (analyzed again next time). Its errors cost only speed.
func (st *storedIndex) save(p *Participant, scope []scopedNote, missing []int, as []*analyzed) {
	ids := map[string]int{}
	var dict []string
	term := func(b []byte, t string) []byte {
		id, ok := ids[t]
		if !ok {
			id = len(dict)
			ids[t] = id
			dict = append(dict, t)
		}
		return binary.AppendUvarint(b, uint64(id))
	}
	var notes, entry []byte
	n := 0
	for j, i := range missing {
		e, a := scope[i].e, as[j]
		if a.unread {
			continue
		}
		entry = encodeNote(entry[:0], e, a, term)
		notes = appendBytes(notes, []byte(e.Path))
		notes = appendBytes(notes, entry)
		n++
		if len(notes) > maxStoredBytes {
			os.Remove(st.path)
			return
		}
	}
	out := storedHeader()
	hdr := len(out)
	out = binary.AppendUvarint(out, uint64(len(dict)))
	for _, t := range dict {
		out = appendBytes(out, []byte(t))
	}
	out = binary.AppendUvarint(out, uint64(n))
	out = append(out, notes...)
	out = binary.LittleEndian.AppendUint32(out, crc32.Checksum(out[hdr:], castagnoli))
	if hashcache.WriteFile(st.path, out) == nil {
		pruneStored(filepath.Dir(st.path), st.path)
	}
}

// encodeNote appends note e's entry, its analysis a, to b.
func encodeNote(b []byte, e *engine.Note, a *analyzed, term func([]byte, string) []byte) []byte {
	sum := e.Sum()
	b = appendBytes(b, []byte(e.Key))
	b = binary.AppendUvarint(b, uint64(e.Size()))
	b = append(b, sum[:]...)
	b = binary.AppendUvarint(b, uint64(len(a.keyTerms)))
	for _, t := range a.keyTerms {
		b = term(b, t)
	}
	b = binary.AppendUvarint(b, uint64(len(a.lineLen)))
	prev := int32(0)
	for _, at := range a.lineAt {
		b = binary.AppendUvarint(b, uint64(at-prev))
		prev = at
	}
	for _, n := range a.lineLen {
		b = binary.AppendUvarint(b, uint64(n))
	}
	for _, h := range a.heading {
		b = binary.AppendUvarint(b, uint64(h+1))
	}
	b = binary.AppendUvarint(b, uint64(len(a.vocab)))
	for slot, t := range a.vocab {
		p := a.posts[slot]
		b = term(b, t)
		b = binary.AppendUvarint(b, uint64(len(p.at)))
		b = binary.AppendUvarint(b, uint64(p.lines))
		x := uint64(0)
		for _, at := range p.at {
			b = binary.AppendUvarint(b, at-x)
			x = at
		}
	}
	words := make([]string, 0, len(a.minor))
	for w := range a.minor {
		words = append(words, w)
	}
	slices.Sort(words) // the same analyses make the same file
	b = binary.AppendUvarint(b, uint64(len(words)))
	for _, w := range words {
		b = term(b, w)
		ls := a.minor[w]
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
	}
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
