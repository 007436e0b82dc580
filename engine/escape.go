package engine

import (
	"bytes"
	"strings"
)

// blockTags are the element names the <memory> block uses. A body must never be
// able to close one of them.
var blockTags = []string{"memory", "note", "task", "agent", "user", "account", "device", "skills", "skill", "omitted"}

// EscapeBody makes a note body safe to place inside the <memory> block: every
// "</" that begins one of the block's closing tags (any case) gets one backslash
// after its "<" — "</note>" becomes "<\/note>". To stay reversible, a run of
// backslashes already standing there gets one more: "<\/note>" becomes
// "<\\/note>". UnescapeBody removes exactly one backslash from every such run,
// so UnescapeBody(EscapeBody(b)) == b for every b.
func EscapeBody(body string) string {
	if !strings.Contains(body, "/") || !strings.Contains(body, "<") {
		return body
	}
	var b strings.Builder
	last := 0
	escapeCuts(body, func(i int) {
		b.WriteString(body[last:i])
		b.WriteByte('\\')
		last = i
	})
	if last == 0 {
		return body
	}
	b.WriteString(body[last:])
	return b.String()
}

// writeEscaped writes EscapeBody(body) to w without building it.
func writeEscaped(w blockWriter, body []byte) {
	if bytes.IndexByte(body, '/') < 0 || bytes.IndexByte(body, '<') < 0 {
		w.Write(body)
		return
	}
	last := 0
	escapeCuts(body, func(i int) {
		w.Write(body[last:i])
		w.WriteString("\\")
		last = i
	})
	w.Write(body[last:])
}

// escapeCuts calls cut with each offset of body where EscapeBody puts a
// backslash: just after a "<" that, past a run of backslashes, begins the
// closing tag of a block tag.
func escapeCuts[T ~string | ~[]byte](body T, cut func(int)) {
	for i := 0; i < len(body); i++ {
		if body[i] != '<' {
			continue
		}
		j := i + 1
		for j < len(body) && body[j] == '\\' {
			j++
		}
		if j < len(body) && body[j] == '/' && isBlockTag(string(body[j+1:min(len(body), j+1+maxTagWindow)])) {
			cut(i + 1)
		}
	}
}

// maxTagWindow is more than the longest block tag and the byte after it:
// all isBlockTag reads of what follows "</".
const maxTagWindow = 16

// UnescapeBody reverses EscapeBody.
func UnescapeBody(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '<' || i+1 >= len(s) || s[i+1] != '\\' {
			continue
		}
		j := i + 1
		for j < len(s) && s[j] == '\\' {
			j++
		}
		if j < len(s) && s[j] == '/' && isBlockTag(s[j+1:]) {
			b.WriteString(s[last : i+1])
			last = i + 2 // drop one backslash
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// isBlockTag reports whether rest starts with a block tag name followed by a
// character that ends a tag name.
func isBlockTag(rest string) bool {
	for _, t := range blockTags {
		if len(rest) >= len(t) && strings.EqualFold(rest[:len(t)], t) {
			if len(rest) == len(t) {
				return true
			}
			c := rest[len(t)]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == ':' || c == '.') {
				return true
			}
		}
	}
	return false
}
