// Package o200k counts text in o200k_base tokens exactly as tiktoken-go's
// Count does, with only the standard library: tiktoken-go links regexp2,
// whose initializer builds Unicode tables in every process (a quarter of
// what `mf-hook version` runs), and four vocabularies as Go map literals.
package o200k

import (
	_ "embed"
	"math"
	"sync"
	"unicode/utf8"
)

//go:embed vocab.bin
var vocab string

// Version names what Count does; it changes when a count could, so that
// counts kept across processes (engine's token cache) are not reused.
const Version = "1"

// ranks is the number of tokens in vocab: o200k_base's ordinary vocabulary,
// ids 0..199997 (gen writes them; the special tokens are not counted text).
const ranks = 199998

// table is the vocabulary's look-up, built on the first Count, not at start:
// an open-addressing hash of token to rank+1 over offsets into vocab.
type table struct {
	off   []uint32 // off[rank] is the end of the token in vocab
	start []uint32 // start[rank] is the token's first byte in vocab
	slots []uint32 // rank+1, 0 empty
	mask  uint64
}

func hash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h ^ h>>29
}

var tab = sync.OnceValue(func() *table {
	t := &table{start: make([]uint32, 0, ranks), off: make([]uint32, 0, ranks)}
	for i := 0; i < len(vocab); {
		n := 0
		for shift := 0; ; shift += 7 { // the token's length, a uvarint
			b := vocab[i]
			i++
			n |= int(b&0x7f) << shift
			if b < 0x80 {
				break
			}
		}
		t.start = append(t.start, uint32(i))
		i += n
		t.off = append(t.off, uint32(i))
	}
	size := 1
	for size < 2*len(t.start) {
		size <<= 1
	}
	t.slots = make([]uint32, size)
	t.mask = uint64(size - 1)
	for r := range t.start {
		s := vocab[t.start[r]:t.off[r]]
		for h := hash(s) & t.mask; ; h = (h + 1) & t.mask {
			if t.slots[h] == 0 {
				t.slots[h] = uint32(r + 1)
				break
			}
		}
	}
	return t
})

func (t *table) rank(s string) (uint32, bool) {
	for h := hash(s) & t.mask; ; h = (h + 1) & t.mask {
		v := t.slots[h]
		if v == 0 {
			return 0, false
		}
		if vocab[t.start[v-1]:t.off[v-1]] == s {
			return v - 1, true
		}
	}
}

// Count is the number of o200k_base tokens of text. regexp2 matches runes,
// so an invalid byte counts as U+FFFD, as in tiktoken-go.
func Count(text string) int {
	t := tab()
	n := 0
	var buf []byte
	pieces([]rune(text), func(piece []rune) {
		buf = buf[:0]
		for _, r := range piece {
			buf = utf8.AppendRune(buf, r)
		}
		n += t.count(string(buf))
	})
	return n
}

// pieces calls yield with each piece of the pre-split, in order. A rune at
// which no alternative matches (U+007F, see isDel) is in no piece.
func pieces(rs []rune, yield func([]rune)) {
	for p := 0; p < len(rs); {
		e := next(rs, p)
		if e == p {
			p++
			continue
		}
		yield(rs[p:e])
		p = e
	}
}

// longPiece is the length from which a piece is merged with a heap: the scan
// is quadratic, 4.6 s for a 100 KB run of letters, and a note may be 4 MiB.
const longPiece = 96

// count is the tokens of one piece: one when the piece is a token, else
// byte-pair merging (the lowest rank pair first, the leftmost of equal
// ranks): a scan for short pieces, a heap for long ones, the same merges.
func (t *table) count(piece string) int {
	if _, ok := t.rank(piece); ok {
		return 1
	}
	if len(piece) >= longPiece {
		return t.countHeap(piece)
	}
	return t.countScan(piece)
}

// countScan merges by finding the lowest rank pair afresh each time.
func (t *table) countScan(piece string) int {
	const none = math.MaxUint32
	type part struct{ offset, rank uint32 }
	var space [longPiece + 1]part // the piece is shorter than longPiece
	parts := space[:len(piece)+1]
	for i := range parts {
		parts[i] = part{uint32(i), none}
	}
	rankOf := func(i, skip int) uint32 {
		if i+skip+2 < len(parts) {
			if r, ok := t.rank(piece[parts[i].offset:parts[i+skip+2].offset]); ok {
				return r
			}
		}
		return none
	}
	for i := 0; i < len(parts)-2; i++ {
		parts[i].rank = rankOf(i, 0)
	}
	for len(parts) > 1 {
		minRank, minIndex := uint32(none), 0
		for i, p := range parts[:len(parts)-1] {
			if p.rank < minRank {
				minRank, minIndex = p.rank, i
			}
		}
		if minRank == none {
			break
		}
		parts[minIndex].rank = rankOf(minIndex, 1)
		if minIndex > 0 {
			parts[minIndex-1].rank = rankOf(minIndex-1, 1)
		}
		parts = append(parts[:minIndex+1], parts[minIndex+2:]...)
	}
	return len(parts) - 1
}

// candidate is a pair that could merge: the part starting at byte at with the
// part after it, whose bytes are token rank.
type candidate struct{ rank, at uint32 }

func (a candidate) before(b candidate) bool {
	return a.rank < b.rank || a.rank == b.rank && a.at < b.at
}

// countHeap merges as countScan does in O(n log n): the parts are a list
// linked by byte offset, the pairs a min-heap by rank then offset (the
// leftmost first, as the scan takes it). A candidate whose parts have merged
// since it was pushed is stale: it no longer names its part's current pair
// and is skipped when it comes up.
func (t *table) countHeap(piece string) int {
	n := len(piece)
	// next[i] is the byte after the part starting at i; prev[i] the start of
	// the part before; pair[i] the rank of i's part with the next, or none.
	const none = math.MaxUint32
	next := make([]uint32, n+1)
	prev := make([]uint32, n+1)
	pair := make([]uint32, n+1)
	for i := 0; i <= n; i++ {
		next[i], prev[i], pair[i] = uint32(i+1), uint32(i-1), none
	}
	var h []candidate
	push := func(c candidate) {
		h = append(h, c)
		for i := len(h) - 1; i > 0; {
			up := (i - 1) / 2
			if !h[i].before(h[up]) {
				break
			}
			h[i], h[up] = h[up], h[i]
			i = up
		}
	}
	pop := func() candidate {
		top := h[0]
		last := len(h) - 1
		h[0] = h[last]
		h = h[:last]
		for i := 0; ; {
			l, m := 2*i+1, i
			if l < len(h) && h[l].before(h[m]) {
				m = l
			}
			if l+1 < len(h) && h[l+1].before(h[m]) {
				m = l + 1
			}
			if m == i {
				break
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
		return top
	}
	// rate sets the pair of the part at i with its next, and offers it.
	rate := func(i uint32) {
		pair[i] = none
		if int(i) >= n {
			return
		}
		j := next[i]
		if int(j) >= n {
			return
		}
		if r, ok := t.rank(piece[i:next[j]]); ok {
			pair[i] = r
			push(candidate{r, i})
		}
	}
	for i := 0; i < n-1; i++ {
		rate(uint32(i))
	}
	parts := n
	for len(h) > 0 {
		c := pop()
		if pair[c.at] != c.rank {
			continue // stale: the part's pair has changed since
		}
		// Merge the part at c.at with the next one.
		gone := next[c.at]
		next[c.at] = next[gone]
		if int(next[gone]) <= n {
			prev[next[gone]] = c.at
		}
		pair[gone] = none
		parts--
		rate(c.at)
		if c.at > 0 {
			rate(prev[c.at])
		}
	}
	return parts
}
