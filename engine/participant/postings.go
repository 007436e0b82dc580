package participant

import (
	"bytes"
	"encoding/binary"
	"slices"
	"sync"
)

// The index keeps what it knows of the notes in flat byte slices of
// varints, not in arrays of structs, so that its memory is a fraction of
// the text it indexes (issue 27: a server's memory must not grow with the
// notes' text). A term's list is, for each note holding it in order of ids,
// the note's entry:
//
//	uvarint(id - previous id - 1)   (the first: id)
//	uvarint(n<<1 | in the key)      n: the term's occurrences in the body
//	uvarint(lines holding it)       only when n > 0
//	the occurrences' summary        only when n > 0 (lineSummary)
//	uvarint(bytes of occurrences)   only when n > 0
//	the occurrences                 (appendOccs)
//
// An occurrence is its line, its position among the terms of its line
// (stop words are not counted) and whether a stop word stands right before
// it on its line: one varint for an occurrence on the line of the one
// before, (position gap)<<2 | afterStop<<1, else (line gap)<<2 | afterStop<<1
// | 1 and the position. Positions are counted in the line, not in the note:
// what reads them (proximity on a passage's centre line, phrases) compares
// positions on one line only. A search decodes the occurrences of its terms
// in the notes it scores (decodeOccs) into packAt's values.

// appendOccs appends the encoding of at (packAt's, in order) to b.
func appendOccs(b []byte, at []uint64) []byte {
	prevLine, prevPos := -1, 0
	for _, x := range at {
		line, pos, stop := atLine(x), atPos(x), x&1
		if line == prevLine {
			b = binary.AppendUvarint(b, uint64(pos-prevPos)<<2|stop<<1)
		} else {
			b = binary.AppendUvarint(b, uint64(line-prevLine)<<2|stop<<1|1)
			b = binary.AppendUvarint(b, uint64(pos))
		}
		prevLine, prevPos = line, pos
	}
	return b
}

// decodeOccs appends the occurrences b encodes (appendOccs, checked when
// it was made) to dst.
func decodeOccs(dst []uint64, b []byte) []uint64 {
	line, pos := -1, 0
	for i := 0; i < len(b); {
		v, k := uvarint(b, i)
		i = k
		if v&1 == 0 {
			pos += int(v >> 2)
		} else {
			line += int(v >> 2)
			var p uint64
			p, i = uvarint(b, i)
			pos = int(p)
		}
		dst = append(dst, packAt(int32(line), int32(pos), v&2 != 0))
	}
	return dst
}

// uvarint reads the varint at b[i:], trusted, and returns it and the index
// after it.
func uvarint(b []byte, i int) (uint64, int) {
	if c := b[i]; c < 0x80 {
		return uint64(c), i + 1
	}
	v, n := binary.Uvarint(b[i:])
	return v, i + n
}

// lineSummary is what a score's bound (upperBound) needs of a term's
// occurrences in a note, kept beside them so that a search reads it without
// decoding them (issue 26: decoding every candidate's occurrences was most of
// a common word's search at 100,000 notes). Its line lengths are the terms on
// a line (lineLens). It is derived from the occurrences and the note's line
// lengths wherever a list entry is made (the analysis, the stored index read
// back), so the stored index does not hold it.
//
// In a list it is one varint when its lines tell the rest (a term on one
// line: peak is n; on as many lines as occurrences: peak is 1, and
// shortestPeak is shortest), else uvarint(peak), uvarint(shortest) and
// uvarint(shortestPeak - shortest).
type lineSummary struct {
	peak         int32 // the most occurrences on one line
	shortest     int32 // the fewest terms of a line holding it
	shortestPeak int32 // the fewest terms of a line holding peak occurrences
}

// summarize is the summary of occurrences at (packAt's, in order) in a note
// of line lengths ll.
func summarize(at []uint64, ll *lineLens) lineSummary {
	var s lineSummary
	for k := 0; k < len(at); {
		l := atLine(at[k])
		n := 1
		for k+n < len(at) && atLine(at[k+n]) == l {
			n++
		}
		k += n
		s.add(int32(n), ll.at(l))
	}
	return s
}

// add counts a line holding n occurrences, of length terms.
func (s *lineSummary) add(n, length int32) {
	if s.peak == 0 || length < s.shortest {
		s.shortest = length
	}
	switch {
	case n > s.peak:
		s.peak, s.shortestPeak = n, length
	case n == s.peak && length < s.shortestPeak:
		s.shortestPeak = length
	}
}

// ref is a note's entry in a term's list.
type ref struct {
	id       int32
	n, lines int32
	key      bool
	sum      lineSummary // when n > 0
	occ      []byte      // the encoded occurrences
	at       []uint64    // when occ is nil, the occurrences (packAt's), encoded in place
}

// appendRef appends r's entry to a list whose last id is last.
func appendRef(b []byte, last int32, r ref) []byte {
	b = binary.AppendUvarint(b, uint64(r.id-last-1))
	nk := uint64(r.n) << 1
	if r.key {
		nk |= 1
	}
	b = binary.AppendUvarint(b, nk)
	if r.n > 0 {
		b = binary.AppendUvarint(b, uint64(r.lines))
		if r.lines == 1 || r.lines == r.n {
			b = binary.AppendUvarint(b, uint64(r.sum.shortest))
		} else {
			b = binary.AppendUvarint(b, uint64(r.sum.peak))
			b = binary.AppendUvarint(b, uint64(r.sum.shortest))
			b = binary.AppendUvarint(b, uint64(r.sum.shortestPeak-r.sum.shortest))
		}
		if r.occ != nil || r.at == nil {
			b = binary.AppendUvarint(b, uint64(len(r.occ)))
			return append(b, r.occ...)
		}
		b = appendSized(b, r.at)
	}
	return b
}

// appendSized appends the length of at's encoding (appendOccs) and the
// encoding, written in place: a byte is kept for the length, which is
// moved on when it needs more.
func appendSized(b []byte, at []uint64) []byte {
	start := len(b)
	b = appendOccs(append(b, 0), at)
	k := len(b) - start - 1
	if k < 0x80 {
		b[start] = byte(k)
		return b
	}
	var size [binary.MaxVarintLen64]byte
	n := binary.PutUvarint(size[:], uint64(k))
	b = append(b, size[1:n]...)
	copy(b[start+n:], b[start+1:start+1+k])
	copy(b[start:], size[:n])
	return b
}

// refReader reads a term's list, entry by entry.
type refReader struct {
	b  []byte
	i  int
	id int32
}

func newRefReader(b []byte) refReader { return refReader{b: b, id: -1} }

// next is the next entry; false at the end.
func (rr *refReader) next() (ref, bool) {
	if rr.i >= len(rr.b) {
		return ref{}, false
	}
	d, i := uvarint(rr.b, rr.i)
	rr.id += int32(d) + 1
	nk, i := uvarint(rr.b, i)
	r := ref{id: rr.id, n: int32(nk >> 1), key: nk&1 != 0}
	if r.n > 0 {
		var lines, size uint64
		lines, i = uvarint(rr.b, i)
		r.lines = int32(lines)
		i = r.readSummary(rr.b, i)
		size, i = uvarint(rr.b, i)
		r.occ = rr.b[i : i+int(size) : i+int(size)]
		i += int(size)
	}
	rr.i = i
	return r, true
}

// readSummary reads the summary appendRef wrote at b[i:] of an entry whose
// n and lines are read, and returns the index after it.
func (r *ref) readSummary(b []byte, i int) int {
	if r.lines == 1 || r.lines == r.n {
		var shortest uint64
		shortest, i = uvarint(b, i)
		r.sum = lineSummary{peak: 1, shortest: int32(shortest), shortestPeak: int32(shortest)}
		if r.lines == 1 {
			r.sum.peak = r.n
		}
		return i
	}
	var peak, shortest, more uint64
	peak, i = uvarint(b, i)
	shortest, i = uvarint(b, i)
	more, i = uvarint(b, i)
	r.sum = lineSummary{peak: int32(peak), shortest: int32(shortest), shortestPeak: int32(shortest + more)}
	return i
}

// occReader reads encoded occurrences (appendOccs) one by one, for what
// reads them once in order (a phrase) without decoding them into an array.
type occReader struct {
	b         []byte
	i         int
	line, pos int
}

func newOccReader(b []byte) occReader { return occReader{b: b, line: -1} }

// next is the next occurrence, packAt's; false at the end.
func (or *occReader) next() (uint64, bool) {
	if or.i >= len(or.b) {
		return 0, false
	}
	v, i := uvarint(or.b, or.i)
	if v&1 == 0 {
		or.pos += int(v >> 2)
	} else {
		or.line += int(v >> 2)
		var p uint64
		p, i = uvarint(or.b, i)
		or.pos = int(p)
	}
	or.i = i
	return packAt(int32(or.line), int32(or.pos), v&2 != 0), true
}

// A note's stop words are kept as the lines holding each, in one byte slice
// (minorSet): for each stop word it holds, in the order of stopList,
// uvarint(its index in stopList), uvarint(lines), uvarint(bytes of them),
// then the lines, each a uvarint gap from the one before (the first from
// 0).
type minorSet []byte

// stopList is the stop words in order; stopIndex their indexes.
var stopList = sync.OnceValue(func() []string {
	words := make([]string, 0, len(stopWords()))
	for w := range stopWords() {
		words = append(words, w)
	}
	slices.Sort(words)
	return words
})

func stopIndex(w string) int {
	i, ok := slices.BinarySearch(stopList(), w)
	if !ok {
		return -1
	}
	return i
}

// appendMinor appends the entry of stop word i, on lines ls (in order).
func appendMinor(b []byte, i int, ls []int32) []byte {
	b = binary.AppendUvarint(b, uint64(i))
	b = binary.AppendUvarint(b, uint64(len(ls)))
	size := 0
	prev := int32(0)
	for _, l := range ls {
		size += uvarintLen(uint64(l - prev))
		prev = l
	}
	b = binary.AppendUvarint(b, uint64(size))
	prev = 0
	for _, l := range ls {
		b = binary.AppendUvarint(b, uint64(l-prev))
		prev = l
	}
	return b
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// each calls f with each stop word held, its count of lines and their
// encoding (read them with linesOf).
func (m minorSet) each(f func(word int, count int, enc []byte)) {
	for i := 0; i < len(m); {
		w, j := uvarint(m, i)
		c, j := uvarint(m, j)
		size, j := uvarint(m, j)
		f(int(w), int(c), m[j:j+int(size)])
		i = j + int(size)
	}
}

// lines appends the lines holding stop word w to dst; dst as it is when
// none does.
func (m minorSet) lines(dst []int32, w string) []int32 {
	want := stopIndex(w)
	if want < 0 {
		return dst
	}
	for i := 0; i < len(m); {
		wi, j := uvarint(m, i)
		_, j = uvarint(m, j)
		size, j := uvarint(m, j)
		if int(wi) == want {
			return linesOf(dst, m[j:j+int(size)])
		}
		if int(wi) > want {
			break
		}
		i = j + int(size)
	}
	return dst
}

// linesOf appends the lines enc holds to dst.
func linesOf(dst []int32, enc []byte) []int32 {
	l := int32(0)
	for i := 0; i < len(enc); {
		var d uint64
		d, i = uvarint(enc, i)
		l += int32(d)
		dst = append(dst, l)
	}
	return dst
}

// lineStarts appends the byte offset of each line of body (as analyze
// counts them: a last line end starts no line) to dst, and the body's length
// last.
func lineStarts(dst []int32, body []byte) []int32 {
	for at := 0; ; {
		dst = append(dst, int32(at))
		end := bytes.IndexByte(body[at:], '\n')
		if end < 0 || at+end+1 == len(body) {
			break
		}
		at += end + 1
	}
	return append(dst, int32(len(body)))
}
