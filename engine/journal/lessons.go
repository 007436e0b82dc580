package journal

import (
	"bytes"
	"strings"
)

// ProposeLessons returns the lessons of a monthly's "## Lessons" section worth
// promoting into MEMORY.md, in the monthly's order:
//
//   - A lesson the built-in summarizer wrote with its weeks ("Lesson (2026-W06,
//     2026-W08): …", "Recurring problem (…): …") is proposed when it was seen in
//     at least two different weeks, counting the weeks of the same lesson in the
//     earlier monthlies given (so a lesson of the last week of January and the
//     first of February is proposed with February). A lesson without weeks
//     (hand-written, or by a configured summarizer told to list only lessons of
//     several weeks) is proposed as it is.
//   - Near-duplicates (each holding 60% of the other's significant words) are
//     proposed once, in the first wording.
//   - A lesson MEMORY.md already holds is not proposed: its normalized text
//     (lower case, punctuation and whitespace runs made single spaces) occurs
//     as whole words in the normalized MEMORY.md, whatever list marker, case,
//     punctuation or line wrapping it was stored with, or a line of MEMORY.md
//     is a near-duplicate of it.
//
// The proposed text has no weeks and no "Lesson:" label; recurring items keep
// theirs ("Recurring problem: …").
func ProposeLessons(monthlyBody, memoryBody []byte, earlierMonthlies ...[]byte) []string {
	sec := FindSection(ParseSections(stripFrontmatter(monthlyBody)), SecLessons)
	if sec == nil {
		return nil
	}
	var before []lessonItem
	var beforeKeys []itemKey
	for _, m := range earlierMonthlies {
		if es := FindSection(ParseSections(stripFrontmatter(m)), SecLessons); es != nil {
			for _, it := range es.Items {
				li := parseLessonItem(it.Text)
				if li.weeks != nil {
					before = append(before, li)
					beforeKeys = append(beforeKeys, keyOf(li.text))
				}
			}
		}
	}
	known := normalize(string(memoryBody))
	var memKeys []itemKey
	for _, l := range strings.Split(string(stripFrontmatter(memoryBody)), "\n") {
		_, t := listMarker(strings.TrimSpace(l))
		if k := keyOf(t); len(k.full) > 0 {
			memKeys = append(memKeys, k)
		}
	}
	var proposed []itemKey
	var out []string
	for _, it := range sec.Items {
		if isNone(it.Text) || strings.HasPrefix(it.Text, "… and ") {
			continue
		}
		li := parseLessonItem(it.Text)
		n := normalize(li.text)
		k := keyOf(li.text)
		if n == "" || hasWord(known, n) || similarAny(k, memKeys) || similarAny(k, proposed) {
			continue
		}
		if li.weeks != nil {
			weeks := map[string]bool{}
			for _, w := range li.weeks {
				weeks[w] = true
			}
			for i, b := range before {
				if b.label == li.label && k.similar(beforeKeys[i]) {
					for _, w := range b.weeks {
						weeks[w] = true
					}
				}
			}
			if len(weeks) < 2 {
				continue
			}
		}
		proposed = append(proposed, k)
		out = append(out, li.text)
	}
	return out
}

func similarAny(k itemKey, in []itemKey) bool {
	for _, o := range in {
		if k.similar(o) {
			return true
		}
	}
	return false
}

// lessonItem is an item of a monthly's Lessons: its label ("Lesson",
// "Recurring problem", …; "" for none), the weeks the summarizer listed (nil for
// none) and the lesson as it would be promoted.
type lessonItem struct {
	label string
	weeks []string
	text  string
}

// parseLessonItem reads "Label (2026-W06, 2026-W08): text"; any other item is
// a lesson without weeks, with a "Lesson:" label taken off.
func parseLessonItem(s string) lessonItem {
	s = strings.TrimSpace(oneLine(s))
	if open := strings.Index(s, " ("); open > 0 {
		if end := strings.Index(s[open:], "): "); end > 0 {
			label, inner, text := s[:open], s[open+2:open+end], strings.TrimSpace(s[open+end+3:])
			var weeks []string
			for _, w := range strings.Split(inner, ",") {
				if _, err := ParseWeek(strings.TrimSpace(w)); err != nil {
					weeks = nil
					break
				}
				weeks = append(weeks, strings.TrimSpace(w))
			}
			if weeks != nil && !strings.Contains(label, " (") {
				li := lessonItem{label: label, weeks: weeks, text: text}
				if label != "Lesson" {
					li.text = label + ": " + text
				}
				li.text = strings.TrimSpace(lessonText(li.text))
				return li
			}
		}
	}
	return lessonItem{text: strings.TrimSpace(lessonText(s))}
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
