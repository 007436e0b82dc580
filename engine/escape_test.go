package engine_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/magicfrog/mf-lsp/engine"
)

// blockTagNames are the element names of the <memory> block (SPEC §5), listed
// here independently of the engine so that a tag added to the block without
// being escaped fails these tests.
var blockTagNames = []string{"memory", "note", "task", "agent", "user", "account", "device", "skills", "skill", "omitted"}

// closesBlockTag reports the first closing tag of a block element in s, read as
// an XML reader (or a model skimming the text) would: "</" + a block tag name in
// any case, followed by the end of the text or a character that cannot continue
// an XML name. "</notes>" closes notes, not note.
func closesBlockTag(s string) (string, bool) {
	low := strings.ToLower(s)
	for i := 0; ; {
		j := strings.Index(low[i:], "</")
		if j < 0 {
			return "", false
		}
		i += j + 2
		for _, tag := range blockTagNames {
			if !strings.HasPrefix(low[i:], tag) {
				continue
			}
			rest := low[i+len(tag):]
			if rest == "" {
				return "</" + tag, true
			}
			r, _ := utf8.DecodeRuneInString(rest)
			if !isXMLNameChar(r) {
				return "</" + tag, true
			}
		}
	}
}

// isXMLNameChar is the ASCII part of XML's NameChar. A non-ASCII rune is read
// as ending the name: the stricter reading ("</noteé>" may be taken for
// "</note"), so the engine escapes it too.
func isXMLNameChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
		r == '-' || r == '_' || r == ':' || r == '.'
}

func checkEscape(t *testing.T, body string) string {
	t.Helper()
	esc := engine.EscapeBody(body)
	if tag, ok := closesBlockTag(esc); ok {
		t.Errorf("EscapeBody(%q) = %q still closes %s>", body, esc, tag)
	}
	if back := engine.UnescapeBody(esc); back != body {
		t.Errorf("UnescapeBody(EscapeBody(%q)) = %q; want the body back", body, back)
	}
	if _, ok := closesBlockTag(body); !ok && !strings.Contains(body, `<\`) && esc != body {
		t.Errorf("EscapeBody(%q) = %q: a body with nothing to escape must stay as it is", body, esc)
	}
	return esc
}

func TestEscapeBody(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"", ""},
		{"plain text", "plain text"},
		{"</note>", `<\/note>`},
		{"</memory>", `<\/memory>`},
		{"</NOTE >", `<\/NOTE >`},
		{"</Memory\t>", "<\\/Memory\t>"},
		{"</note", `<\/note`}, // at the very end: the renderer adds the real </note> after it
		{"a </note>\n</memory>\n", "a <\\/note>\n<\\/memory>\n"},
		{"</task></agent></user></account></device></skills></skill></omitted>",
			`<\/task><\/agent><\/user><\/account><\/device><\/skills><\/skill><\/omitted>`},
		{`<\/note>`, `<\\/note>`},         // already looks escaped: one more backslash
		{`<\\\/memory>`, `<\\\\/memory>`}, // a run of any length
		{"</notes> </div> </memory-bank> </note_x> </note.md> < /note> <note>", "</notes> </div> </memory-bank> </note_x> </note.md> < /note> <note>"},
		{`<\/div>`, `<\/div>`}, // not a block tag: left alone, so unescape leaves it too
		{"</noteé>", `<\/noteé>`},
		{"<</note>>", `<<\/note>>`},
	} {
		if got := checkEscape(t, tc.body); got != tc.want {
			t.Errorf("EscapeBody(%q) = %q; want %q", tc.body, got, tc.want)
		}
	}
}

func TestUnescapeBodyOnlyUndoesEscapes(t *testing.T) {
	// Text the escaper never produces is left as it is.
	for _, s := range []string{"", "a<b", `<\div>`, `<\/div>`, `\/note>`, `<\`, `<\\`, "</note>"} {
		if got := engine.UnescapeBody(s); got != s {
			t.Errorf("UnescapeBody(%q) = %q; want it unchanged", s, got)
		}
	}
}

var escapeSeeds = []string{
	"", "</note>", "</memory>", "</NOTE >", "</nOtE\n>", `<\/note>`, `<\\/memory>`, "</note", "<", "</", `<\`,
	"</notes>", "</skill/>", "</skills>", "</omitted>", "<</note>", "<\\</note>", "</note></note>",
	"x</TASK>y</Agent >z</user\r\n>", "</memory\x00>", "\xff</note>", "</noteé>", "</ note>",
}

func TestEscapeSeeds(t *testing.T) {
	for _, s := range escapeSeeds {
		checkEscape(t, s)
		checkEscape(t, s+s)
		checkEscape(t, "a"+s+"\n"+strings.ToUpper(s))
	}
}

// FuzzEscape: after escaping, no body closes a block element (in any case), and
// unescaping gives the body back.
//
//	go test ./engine -run NONE -fuzz FuzzEscape -fuzztime 30s
func FuzzEscape(f *testing.F) {
	for _, s := range escapeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		checkEscape(t, body)
	})
}
