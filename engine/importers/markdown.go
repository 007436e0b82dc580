package importers

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// lines splits src into lines that keep their line ends, so joining them gives
// back src byte for byte (CRLF included).
func lines(src []byte) [][]byte {
	var out [][]byte
	for len(src) > 0 {
		i := bytes.IndexByte(src, '\n')
		if i < 0 {
			out = append(out, src)
			break
		}
		out = append(out, src[:i+1])
		src = src[i+1:]
	}
	return out
}

// fence reports whether line opens or closes a fenced code block (``` or ~~~,
// indented at most three spaces), and with which marker.
func fence(line []byte) (string, bool) {
	t := bytes.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return "", false
	}
	for _, m := range []string{"```", "~~~"} {
		if bytes.HasPrefix(t, []byte(m)) {
			return m, true
		}
	}
	return "", false
}

// proseLines calls fn with every line outside fenced code blocks and its index.
func proseLines(ls [][]byte, fn func(i int, line []byte)) {
	open := ""
	for i, l := range ls {
		if m, ok := fence(l); ok {
			switch {
			case open == "":
				open = m
				continue
			case m == open:
				open = ""
				continue
			}
		}
		if open == "" {
			fn(i, l)
		}
	}
}

var atxHeading = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*\r?\n?$`) })

// heading returns an ATX heading's level and text; level 0 when line is none.
func heading(line []byte) (int, string) {
	m := atxHeading().FindSubmatch(line)
	if m == nil {
		return 0, ""
	}
	return len(m[1]), string(m[2])
}

// section is one part of a split note.
type section struct {
	title string // "" for the text before the first heading
	body  []byte
}

// splitSections cuts src into one section per top-level heading: the
// shallowest heading level that occurs at least twice outside code blocks (a
// file's single "# Title" is not a split point; its "##" sections are). Text
// before the first such heading is the untitled first section. Fewer than two
// headings at every level: nil (nothing to split).
func splitSections(src []byte) []section {
	ls := lines(src)
	count := map[int]int{}
	proseLines(ls, func(_ int, l []byte) {
		if lv, _ := heading(l); lv > 0 {
			count[lv]++
		}
	})
	level := 0
	for lv := 1; lv <= 6; lv++ {
		if count[lv] >= 2 {
			level = lv
			break
		}
	}
	if level == 0 {
		return nil
	}
	starts := map[int]string{}
	proseLines(ls, func(i int, l []byte) {
		if lv, t := heading(l); lv == level {
			starts[i] = t
		}
	})
	var out []section
	cur := section{}
	for i, l := range ls {
		if t, ok := starts[i]; ok {
			if len(bytes.TrimSpace(cur.body)) > 0 || cur.title != "" {
				out = append(out, cur)
			}
			cur = section{title: t}
		}
		cur.body = append(cur.body, l...)
	}
	return append(out, cur)
}

// slug makes a heading into a key element: lower case letters and digits, words
// joined by "-"; "section" when nothing is left.
func slug(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		default:
			dash = true
		}
	}
	s := b.String()
	if len(s) > 60 {
		s = strings.TrimRight(s[:60], "-")
	}
	if s == "" {
		return "section"
	}
	return s
}

// uniqueSlugs makes the slugs of titles distinct: the second "setup" is "setup-2".
func uniqueSlugs(titles []string) []string {
	seen := map[string]int{}
	out := make([]string, len(titles))
	for i, t := range titles {
		s := slug(t)
		if t == "" {
			s = "intro"
		}
		seen[s]++
		if n := seen[s]; n > 1 {
			s += "-" + strconv.Itoa(n)
		}
		out[i] = s
	}
	return out
}

var codeSpan = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`+[^`]*`+") })

var atRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|[\s(\[])@(\S+)`) })

// atImports lists the @path references of a Claude Code memory file, in order:
// not inside fenced code blocks or code spans (Claude Code does not evaluate
// them there). Only references that look like paths (with "/", "." or "~") are
// returned: "@alice" in prose is a mention, not an import.
func atImports(src []byte) []string {
	var out []string
	proseLines(lines(src), func(_ int, l []byte) {
		l = codeSpan().ReplaceAllFunc(l, func(b []byte) []byte { return bytes.Repeat([]byte(" "), len(b)) })
		for _, m := range atRef().FindAllSubmatch(l, -1) {
			ref := string(m[1])
			if strings.ContainsAny(ref, "/.~") {
				out = append(out, ref)
			}
		}
	})
	return out
}
