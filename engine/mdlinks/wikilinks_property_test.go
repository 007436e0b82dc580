package mdlinks

import (
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestWikiLinksIsTheLineByLineReading: WikiLinks, which reads only the
// lines holding "[[" and copies none, finds what the plain reading of every
// line finds (wikiLinksEveryLine, the implementation it replaced), on text
// made of the pieces that matter: fences, indents, code spans, brackets,
// pipes, anchors, blank and CRLF lines.
func TestWikiLinksIsTheLineByLineReading(t *testing.T) {
	pieces := []string{"[[", "]]", "[", "]", "`", "```", "~~~", "    ", " ", "|", "#", "key", "notes/a", "x", "\n", "\r\n", "\n\n", "[[a]]", "[[b|c]]"}
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOf(rapid.SampledFrom(pieces)).Draw(t, "parts")
		src := []byte(strings.Join(parts, ""))
		body := rapid.IntRange(0, len(src)).Draw(t, "body")
		got, want := WikiLinks(src, body), wikiLinksEveryLine(src, body)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q from %d:\n got %+v\nwant %+v", src, body, got, want)
		}
	})
}

// wikiLinksEveryLine is WikiLinks as it was: each line copied to a string
// and read for links byte by byte.
func wikiLinksEveryLine(src []byte, body int) []Link {
	b := src[body:]
	if !strings.Contains(string(b), "[[") {
		return nil
	}
	var out []Link
	fence := ""
	for at := 0; at < len(b); {
		end := at
		for end < len(b) && b[end] != '\n' {
			end++
		}
		line := b[at:end]
		t := strings.TrimLeft(string(line), " ")
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
		case strings.HasPrefix(t, "```"), strings.HasPrefix(t, "~~~"):
			fence = t[:3]
		case len(line)-len(t) >= 4:
		default:
			out = append(out, wikiInLineEveryByte(nil, line, body+at)...)
		}
		at = end + 1
	}
	return out
}

// BenchmarkWikiLinks: a 45 KB note of prose with a wikilink every few lines,
// read now and as before.
func BenchmarkWikiLinks(b *testing.B) {
	var s strings.Builder
	for i := 0; s.Len() < 45_000; i++ {
		s.WriteString("The agent prefers small commits and runs the tests before a review of the change.\n")
		if i%8 == 0 {
			s.WriteString("See [[topics/style]] and [[notes/deploy|the deploy note]].\n")
		}
	}
	src := []byte(s.String())
	for _, impl := range []struct {
		name string
		f    func([]byte, int) []Link
	}{{"now", WikiLinks}, {"everyLine", wikiLinksEveryLine}} {
		b.Run(impl.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				impl.f(src, 0)
			}
		})
	}
}

// wikiInLineEveryByte is wikiInLine as it was: every byte of the line read.
func wikiInLineEveryByte(out []Link, line []byte, base int) []Link {
	inCode := false
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '`':
			inCode = !inCode
		case inCode:
		case line[i] == '[' && i+1 < len(line) && line[i+1] == '[':
			l, ok, next, closed := wikiAt(line, i, base)
			if !closed {
				return out
			}
			if ok {
				out = append(out, l)
			}
			i = next
		}
	}
	return out
}
