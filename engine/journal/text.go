package journal

import (
	"bytes"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// normalize lower-cases s, turns every run of characters that are not letters or
// digits into one space and trims: the comparison key for "the same line" (dedupe,
// lessons already in MEMORY.md).
func normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	if isASCII(s) {
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case c >= 'A' && c <= 'Z':
				c += 'a' - 'A'
			case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			default:
				space = true
				continue
			}
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteByte(c)
		}
		return b.String()
	}
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
		} else {
			space = true
		}
	}
	return b.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// stopwords are left out of significant words: function words and the journal's
// own vocabulary, which says nothing about what a line is about.
var stopwords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all also am an and any are as at be
	because been before being below between both but by can could did do does doing done down during each
	few for from further get got had has have having he her here hers him his how i if in into is it its
	itself just let me more most my need needs no nor not now of off on once only or other our ours out over
	own same she should so some still such than that the their them then there these they this those through
	to too under until up us very was we were what when where which while who whom why will with would you
	your yet via per one two new use used using make made today yesterday tomorrow day week month lot bit
	really maybe think thing things stuff okay ok yeah like want wanted going gonna again first last next
	step steps todo blocked blocker decided decision lesson learned none`) {
		m[w] = true
	}
	return m
})

// sigWords returns the significant words of s: normalized words of three or more
// characters that are not stopwords or numbers, with a plural "s" taken off words
// of four or more characters (keys/key, parsers/parser; not "ss": class). Order of first appearance, no
// repeats.
func sigWords(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.Fields(normalize(s)) {
		w = stem(w)
		if utf8.RuneCountInString(w) < 3 || stopwords()[w] || isNumber(w) || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// notPlural are words ending in "s" that are not plurals ("always" is not
// "alway").
var notPlural = sync.OnceValue(func() map[string]bool {
	return wordSet(strings.Fields(`always perhaps status thus plus focus bonus virus analysis basis
	axis canvas alias atlas series chaos corpus radius census bias lens various previous nervous`))
})

func stem(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !notPlural()[w] {
		return w[:len(w)-1]
	}
	return w
}

func isNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// overlap returns the share of want's words that are in have (0 when want is
// empty).
func overlap(want []string, have map[string]bool) float64 {
	if len(want) == 0 {
		return 0
	}
	n := 0
	for _, w := range want {
		if have[w] {
			n++
		}
	}
	return float64(n) / float64(len(want))
}

func wordSet(ws []string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// truncate shortens s to at most max bytes, cutting at a word boundary and adding
// "…" when it cuts.
func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if i := strings.LastIndexByte(s[:cut], ' '); i > max/2 {
		cut = i
	}
	return strings.TrimRight(s[:cut], " ,;:-") + "…"
}

// stripFrontmatter removes a leading YAML frontmatter block ("---" line to the
// next "---" line), so that summarizing a file with its frontmatter reads only
// its body.
func stripFrontmatter(b []byte) []byte {
	first := b
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		first = b[:i]
	} else {
		return b
	}
	if string(bytes.TrimRight(first, "\r")) != "---" {
		return b
	}
	rest := b[len(first)+1:]
	for off := 0; off < len(rest); {
		i := bytes.IndexByte(rest[off:], '\n')
		end := len(rest)
		if i >= 0 {
			end = off + i
		}
		if string(bytes.TrimRight(rest[off:end], "\r")) == "---" {
			if end < len(rest) {
				end++
			}
			return rest[end:]
		}
		if i < 0 {
			break
		}
		off = end + 1
	}
	return b
}

// hasWord reports whether the normalized text n (words separated by one space)
// contains the normalized phrase p as whole words.
func hasWord(n, p string) bool {
	return anyWordAt(n, p, func(int) bool { return true })
}

// anyWordAt reports whether ok holds for the offset of some occurrence of the
// normalized phrase p in n as whole words.
func anyWordAt(n, p string, ok func(at int) bool) bool {
	if p == "" {
		return false
	}
	for i := 0; ; {
		j := strings.Index(n[i:], p)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(p)
		if (j == 0 || n[j-1] == ' ') && (end == len(n) || n[end] == ' ') && ok(j) {
			return true
		}
		i = j + 1
	}
}

// baseName returns the file name of a slash-separated key without ".md".
func baseName(key string) string {
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		key = key[i+1:]
	}
	return strings.TrimSuffix(key, noteExt)
}
