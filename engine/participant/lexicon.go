package participant

import (
	"encoding/binary"
	"strings"
	"unicode"
	"unicode/utf8"
)

// An index build spends most of its time turning the words of the notes into
// terms, and prose repeats its words: each worker remembers what every word
// it has seen is (lexicon), so a word is lower-cased, looked up as a stop word
// and stemmed once per worker, not once per occurrence. The lexicon is keyed
// by the word lower-cased (a word's term depends on nothing else), and an
// ASCII word, which is most words, is hashed and compared lower-cased in
// place (its first 8 bytes in one load), without making its lower-cased
// copy. A slot holds its lexeme's
// hash and a lexeme its word's first 8 bytes, so a probe reads neither a
// lexeme of another hash nor, for a word of up to 8 bytes, the word itself.
// The keys' words have a lexicon of their own: a note's name is often a
// word no other note holds (an id, a slug), and would crowd the bodies'
// table. nextLexeme reads the same words as runs and gives the terms tokens
// gives (TestLexiconAgrees).

// lexeme is a word as search indexes it: the id of its term (a stop word as
// it is, any other word stemmed; analysisScratch.terms spells it).
type lexeme struct {
	word  string // lower-cased, the lexicon's key
	pre   uint64 // word's first 8 bytes, little-endian, 0 past its end
	hash  uint32
	id    int32
	minor int32 // a stop word's index in stopList
	stop  bool
}

// lexicon is an open-addressing table of lexemes by their lower-cased word.
type lexicon struct {
	slots []uint64 // a lexeme's hash<<32 | its index into lex + 1, 0 for a free slot; a power of two long
	lex   []lexeme
}

// maxLexemes bounds the words a lexicon remembers.
const maxLexemes = 1 << 20

const (
	fnvOffset = 2166136261
	fnvPrime  = 16777619
)

// find is the lexeme of the word run, hashed to h (wordHash), its first 8
// bytes lower-cased pre (prefix's): lower-cased already
// (folded false) or an ASCII run of letters and digits whose lower-cased
// form is each byte |0x20 (folded true); nil if it is not in the lexicon.
// A slot's hash and a lexeme's first 8 bytes are compared before its word,
// which is read only past them.
func find[T string | []byte](lx *lexicon, run T, h uint32, pre uint64, folded bool) *lexeme {
	if len(lx.slots) == 0 {
		return nil
	}
	mask := uint32(len(lx.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := lx.slots[i]
		if s == 0 {
			return nil
		}
		if uint32(s>>32) != h {
			continue
		}
		l := &lx.lex[uint32(s)-1]
		if l.pre != pre || len(l.word) != len(run) {
			continue
		}
		if len(run) <= 8 || sameWord(l.word[8:], run[8:], folded) {
			return l
		}
	}
}

// prefix is the first 8 bytes of run (lower-cased as each byte |0x20 when
// folded), little-endian, 0 past its end: a lexeme's pre.
func prefix[T string | []byte](run T, folded bool) uint64 {
	n := min(len(run), 8)
	var p uint64
	for k := n - 1; k >= 0; k-- {
		p = p<<8 | uint64(run[k])
	}
	if folded {
		p |= 0x2020202020202020 >> (64 - 8*n)
	}
	return p
}

func sameWord[T string | []byte](word string, run T, folded bool) bool {
	if !folded {
		return word == string(run)
	}
	for k := 0; k < len(run); k++ {
		if word[k] != run[k]|0x20 {
			return false
		}
	}
	return true
}

// insert adds l, whose word is not in the lexicon.
func (lx *lexicon) insert(l lexeme) *lexeme {
	if len(lx.lex) >= maxLexemes {
		lx.lex, lx.slots = nil, nil // a bound on memory (the terms keep their ids); a new array, as callers hold lexemes of the old
	}
	if 2*(len(lx.lex)+1) > len(lx.slots) {
		lx.grow()
	}
	lx.lex = append(lx.lex, l)
	lx.place(int32(len(lx.lex)))
	return &lx.lex[len(lx.lex)-1]
}

func (lx *lexicon) grow() {
	lx.slots = make([]uint64, max(1024, 2*len(lx.slots)))
	for i := range lx.lex {
		lx.place(int32(i + 1))
	}
}

func (lx *lexicon) place(s int32) {
	mask := uint32(len(lx.slots) - 1)
	h := lx.lex[s-1].hash
	i := h & mask
	for lx.slots[i] != 0 {
		i = (i + 1) & mask
	}
	lx.slots[i] = uint64(h)<<32 | uint64(s)
}

// wordHash is a lexeme's hash: of its lower-cased word's first 8 bytes
// (pre, prefix's), the FNV-1a of the bytes past them (tail; fnvOffset for a
// word of up to 8 bytes) and its length. An ASCII word's pre is one load,
// and find compares it too: FNV-1a over the whole word as it was read was a
// multiply per byte, each waiting on the last, and most words are short.
func wordHash(pre uint64, tail uint32, n int) uint32 {
	x := (pre ^ uint64(n)<<56 ^ uint64(tail)<<17) * 0x9e3779b97f4a7c15
	return uint32(x>>32) ^ uint32(x)
}

// hashWord is w's wordHash, w lower-cased.
func hashWord(w string) (uint32, uint64) {
	pre, tail := prefix(w, false), uint32(fnvOffset)
	for k := 8; k < len(w); k++ {
		tail = (tail ^ uint32(w[k])) * fnvPrime
	}
	return wordHash(pre, tail, len(w)), pre
}

// nextLexeme reads the next word of text from byte i on (a run of letters
// and digits, as runs reads them) and returns its lexeme in lx and the byte
// after it; nil at the end of text.
func nextLexeme(sc *analysisScratch, lx *lexicon, text []byte, i int) (*lexeme, int) {
	// Up to the word's first byte. The loops over ASCII call nothing, so
	// that their index stays in a register: a loop that could decode a
	// rune spilled it on every byte.
	for {
		for i < len(text) && byteClass[text[i]] == asciiOther {
			i++
		}
		if i >= len(text) {
			return nil, i
		}
		if byteClass[text[i]] == asciiWord {
			break
		}
		r, size := utf8.DecodeRune(text[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			break
		}
		i += size
	}
	start, ascii := i, true
	for {
		for i < len(text) && byteClass[text[i]] == asciiWord {
			i++
		}
		if i >= len(text) || byteClass[text[i]] == asciiOther {
			break
		}
		r, size := utf8.DecodeRune(text[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		ascii = false
		i += size
	}
	run := text[start:i]
	if ascii {
		// Lower-cased as each byte |0x20 (a digit has the bit already): the
		// first 8 bytes in one load, the rest (a long word's) one by one.
		pre, tail := uint64(0), uint32(fnvOffset)
		if start+8 <= len(text) {
			pre = (binary.LittleEndian.Uint64(text[start:]) | 0x2020202020202020) & (^uint64(0) >> (64 - 8*min(len(run), 8)))
		} else {
			pre = prefix(run, true)
		}
		for k := start + 8; k < i; k++ {
			tail = (tail ^ uint32(text[k]|0x20)) * fnvPrime
		}
		h := wordHash(pre, tail, len(run))
		if l := find(lx, run, h, pre, true); l != nil {
			return l, i
		}
		w := strings.ToLower(string(run))
		return sc.newLexeme(lx, w, h, pre), i
	}
	w := strings.ToLower(string(run))
	h, pre := hashWord(w)
	if l := find(lx, w, h, pre, false); l != nil {
		return l, i
	}
	return sc.newLexeme(lx, w, h, pre), i
}

// The classes of a byte that nextLexeme's loops tell apart, in one load
// (byteClass) where two ranges were tested: a letter or digit of ASCII, any
// other ASCII byte, and a byte of a longer UTF-8 sequence (decoded).
const (
	asciiOther = iota
	asciiWord
	multiByte
)

// byteClass is each byte's class, a constant so that no initializer builds
// it (TestByteClass checks it against the ranges).
const byteClass = "" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x00\x00\x00\x00\x00\x00" +
	"\x00\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x00\x00\x00\x00\x00" +
	"\x00\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x00\x00\x00\x00\x00" +
	"\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02" +
	"\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02" +
	"\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02" +
	"\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02"

// newLexeme adds the lower-cased word w, hashed to h, its first 8 bytes
// pre, to lx, a lexicon of the scratch's, with its term and the term's id.
func (sc *analysisScratch) newLexeme(lx *lexicon, w string, h uint32, pre uint64) *lexeme {
	l, term := lexeme{word: w, pre: pre, hash: h}, w
	if l.stop = stopWords()[w]; !l.stop {
		term = stem(w)
	} else {
		l.minor = int32(stopIndex(w))
	}
	id, ok := sc.ids[term]
	if !ok {
		id = int32(len(sc.ids))
		sc.ids[term] = id
		sc.at = append(sc.at, termAt{seen: -1})
		sc.terms, sc.parts = append(sc.terms, term), append(sc.parts, partList{})
	}
	l.id = id
	return lx.insert(l)
}
