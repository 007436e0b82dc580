package participant

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestLexiconAgrees: a worker's lexicon, however many texts it has read
// before (its remembered words, in any case), reads the words of a text as
// tokens does and gives each the term tokens gives: ASCII in both cases,
// letters whose lower case is ASCII (the Kelvin sign), whose lower case is
// longer or shorter (İ, ẞ), stop words, digits, and invalid UTF-8.
func TestLexiconAgrees(t *testing.T) {
	pieces := []string{"Went", "went", "WENT", "the", "The", "THE", "running", "Running", "runs", "a", "A",
		"x9", "X9", "42", "café", "CAFÉ", "\u212a", "k", "K", "İstanbul", "istanbul", "ẞ", "ß", "naïve",
		"日本語", "\xff", "\xe2\x82", " ", "  ", "-", ".", ",", "\n", "_", "'", "é", "É", "Ⅻ", "٣"}
	text := rapid.Custom(func(rt *rapid.T) string {
		var s string
		for _, p := range rapid.SliceOfN(rapid.SampledFrom(pieces), 0, 24).Draw(rt, "pieces") {
			s += p
		}
		return s
	})
	type tok struct {
		w    string
		stop bool
	}
	rapid.Check(t, func(rt *rapid.T) {
		sc := &analysisScratch{ids: map[string]int32{}}
		for _, s := range rapid.SliceOfN(text, 1, 6).Draw(rt, "texts") {
			var want, got []tok
			tokens(s, func(w string, stop bool) { want = append(want, tok{w, stop}) })
			for i := 0; ; {
				lx, next := nextLexeme(sc, &sc.lex, []byte(s), i)
				if lx == nil {
					break
				}
				got, i = append(got, tok{sc.terms[lx.id], lx.stop}), next
			}
			if !slices.Equal(got, want) {
				rt.Fatalf("%q: the lexicon reads %v, tokens %v", s, got, want)
			}
		}
	})
}

// TestLexiconGrows: a lexicon keeps every word through its table's growth
// (each word once), each word's term the one tokens gives; half the words
// share their first 8 bytes, which a lexeme compares first.
func TestLexiconGrows(t *testing.T) {
	sc := &analysisScratch{ids: map[string]int32{}}
	word := func(i int) string {
		b := []byte{'W'}
		if i%2 == 1 {
			b = append(b, "ordsbegin"...)
		}
		for ; i > 0; i /= 26 {
			b = append(b, byte('a'+i%26))
		}
		return string(b)
	}
	for round := 0; round < 2; round++ {
		for i := 0; i < 3000; i++ {
			w := word(i)
			lx, _ := nextLexeme(sc, &sc.lex, []byte(w), 0)
			var want string
			tokens(w, func(t string, _ bool) { want = t })
			if lx == nil || sc.terms[lx.id] != want {
				t.Fatalf("round %d, %q: %v, want the term %q", round, w, lx, want)
			}
		}
	}
	if n := len(sc.lex.lex); n != 3000 {
		t.Fatalf("%d words remembered, want 3000 (each once)", n)
	}
}

// TestByteClass: byteClass gives each byte the class of its range: an ASCII
// letter or digit, any other ASCII byte, a byte of a longer UTF-8 sequence.
func TestByteClass(t *testing.T) {
	if len(byteClass) != 256 {
		t.Fatalf("byteClass has %d bytes, want 256", len(byteClass))
	}
	for i := 0; i < 256; i++ {
		c, want := byte(i), byte(asciiOther)
		switch {
		case c >= 0x80:
			want = multiByte
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
			want = asciiWord
		}
		if byteClass[c] != want {
			t.Errorf("byte %#x: class %d, want %d", c, byteClass[c], want)
		}
	}
}
