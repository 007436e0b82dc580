package journal

import (
	"bytes"
	"strings"
)

// ProposeLessons returns the lessons of a monthly's "## Lessons" section that
// MEMORY.md does not contain yet, in the monthly's order, without repeats.
//
// A lesson is the item's text without a "Lesson:" label, and without the list of
// weeks the built-in summarizer puts in "Recurring problem (2026-W45, 2026-W47): …"
// (which becomes "Recurring problem: …"). It is already in MEMORY.md
// when its normalized text (lower case, punctuation and whitespace runs turned
// into single spaces) occurs, as whole words, in the normalized MEMORY.md, so a
// lesson is found whatever list marker, case, punctuation or line wrapping it
// was stored with, and is never proposed twice.
func ProposeLessons(monthlyBody, memoryBody []byte) []string {
	sec := FindSection(ParseSections(stripFrontmatter(monthlyBody)), SecLessons)
	if sec == nil {
		return nil
	}
	known := normalize(string(memoryBody))
	seen := map[string]bool{}
	var out []string
	for _, it := range sec.Items {
		if isNone(it.Text) || strings.HasPrefix(it.Text, "… and ") {
			continue
		}
		l := cleanLesson(it.Text)
		n := normalize(l)
		if n == "" || seen[n] || hasWord(known, n) {
			continue
		}
		seen[n] = true
		out = append(out, l)
	}
	return out
}

func cleanLesson(s string) string {
	s = strings.TrimSpace(oneLine(s))
	for _, label := range []string{recurProblem, recurWorked} {
		if strings.HasPrefix(s, label+" (") {
			if i := strings.Index(s, "): "); i > 0 {
				s = label + ": " + s[i+3:]
			}
		}
	}
	return strings.TrimSpace(lessonText(s))
}

// AppendLessons adds lessons as "- " items to the "## Lessons" section of
// MEMORY.md, after its last non-blank line, or appends that section at the end
// when there is none. Lessons MEMORY.md already contains (compared as in
// ProposeLessons) and repeats are skipped, so appending twice adds nothing.
// Every byte of memoryBody is kept, in order: the result is memoryBody with lines
// inserted at one place (plus a line ending if the body did not end with one).
// Line endings follow the body (CRLF if it uses CRLF).
func AppendLessons(memoryBody []byte, lessons []string) []byte {
	known := normalize(string(memoryBody))
	seen := map[string]bool{}
	var add []string
	for _, l := range lessons {
		l = strings.TrimSpace(oneLine(l))
		n := normalize(l)
		if n == "" || seen[n] || hasWord(known, n) {
			continue
		}
		seen[n] = true
		add = append(add, l)
	}
	out := append([]byte(nil), memoryBody...)
	if len(add) == 0 {
		return out
	}
	eol := "\n"
	if bytes.Contains(memoryBody, []byte("\r\n")) {
		eol = "\r\n"
	}
	var items strings.Builder
	for _, l := range add {
		items.WriteString("- " + l + eol)
	}

	fm := len(memoryBody) - len(stripFrontmatter(memoryBody))
	body := memoryBody[fm:]
	if sec := FindSection(ParseSections(body), SecLessons); sec != nil {
		// After the last non-blank line of the section.
		last := sec.End
		for last > sec.HeadingEnd && isSpace(body[last-1]) {
			last--
		}
		lineStart := bytes.LastIndexByte(body[:last], '\n') + 1
		prefix := ""
		if lineStart == sec.Start {
			prefix = eol // only the heading: a blank line before the list
		} else if m, _ := listMarker(strings.TrimLeft(string(body[lineStart:last]), " \t")); m == "" {
			prefix = eol // after a paragraph: a blank line, or the list would continue it
		}
		pos := last
		switch {
		case pos < len(body) && body[pos] == '\r' && pos+1 < len(body) && body[pos+1] == '\n':
			pos += 2
		case pos < len(body) && body[pos] == '\n':
			pos++
		default:
			prefix = eol + prefix
		}
		at := fm + pos
		var b bytes.Buffer
		b.Write(memoryBody[:at])
		b.WriteString(prefix)
		b.WriteString(items.String())
		b.Write(memoryBody[at:])
		return b.Bytes()
	}
	var b bytes.Buffer
	b.Write(memoryBody)
	if len(body) > 0 {
		if !bytes.HasSuffix(body, []byte("\n")) {
			b.WriteString(eol)
		}
		if !bytes.HasSuffix(bytes.TrimRight(body, " \t"), []byte("\n\n")) && !bytes.HasSuffix(body, []byte("\n\r\n")) {
			b.WriteString(eol)
		}
	}
	b.WriteString("## " + SecLessons + eol + eol)
	b.WriteString(items.String())
	return b.Bytes()
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
