package engine

import "strings"

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
	for i := 0; i < len(body); i++ {
		if body[i] != '<' {
			continue
		}
		j := i + 1
		for j < len(body) && body[j] == '\\' {
			j++
		}
		if j < len(body) && body[j] == '/' && isBlockTag(body[j+1:]) {
			b.WriteString(body[last : i+1])
			b.WriteByte('\\')
			last = i + 1
		}
	}
	if last == 0 {
		return body
	}
	b.WriteString(body[last:])
	return b.String()
}

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
