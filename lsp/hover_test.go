package lsp_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/magicfrog/mf-lsp/lsp/lsptest"
	"github.com/magicfrog/mf-lsp/session"
)

// Wire types the feature tests decode into.
type lspPos struct{ Line, Character int }
type lspRange struct{ Start, End lspPos }
type lspEdit struct {
	Range   lspRange
	NewText string
}

type hoverResult struct {
	Contents struct{ Kind, Value string }
	Range    *lspRange
}

func hoverAt(t *testing.T, c *lsptest.Client, uri string, line, char int) *hoverResult {
	t.Helper()
	var raw json.RawMessage
	if err := c.Call("textDocument/hover", map[string]any{
		"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": line, "character": char}}, &raw); err != nil {
		t.Fatalf("hover: %v", err)
	}
	if string(raw) == "null" {
		return nil
	}
	var h hoverResult
	if err := json.Unmarshal(raw, &h); err != nil {
		t.Fatalf("hover result %s: %v", raw, err)
	}
	return &h
}

func openText(t *testing.T, c *lsptest.Client, path, text string) string {
	t.Helper()
	uri := string(session.PathToURI(path))
	if err := c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "markdown", "version": 1, "text": text}}); err != nil {
		t.Fatal(err)
	}
	return uri
}

// utf16Col is the UTF-16 column of byte offset off in its line of text (lines end
// at \n, \r\n or \r). An independent implementation of what lsp.Mapper does.
func utf16Pos(text string, off int) lspPos {
	line, start := 0, 0
	for i := 0; i < off; i++ {
		switch text[i] {
		case '\n':
			line, start = line+1, i+1
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				continue
			}
			line, start = line+1, i+1
		}
	}
	return lspPos{line, len(utf16.Encode([]rune(text[start:off])))}
}

// byteOffset is the inverse of utf16Pos.
func byteOffset(t *testing.T, text string, p lspPos) int {
	t.Helper()
	line, i := 0, 0
	for line < p.Line {
		j := strings.IndexAny(text[i:], "\r\n")
		if j < 0 {
			t.Fatalf("position %+v beyond the text", p)
		}
		i += j
		if strings.HasPrefix(text[i:], "\r\n") {
			i += 2
		} else {
			i++
		}
		line++
	}
	col := 0
	for col < p.Character && i < len(text) && text[i] != '\n' && text[i] != '\r' {
		r, size := utf8.DecodeRuneInString(text[i:])
		col += len(utf16.Encode([]rune{r}))
		i += size
	}
	return i
}

// applyLSPEdits applies LSP text edits (non-overlapping) to text.
func applyLSPEdits(t *testing.T, text string, edits []lspEdit) string {
	t.Helper()
	type span struct {
		s, e int
		text string
	}
	var spans []span
	for _, e := range edits {
		spans = append(spans, span{byteOffset(t, text, e.Range.Start), byteOffset(t, text, e.Range.End), e.NewText})
	}
	for i := range spans { // sort by start, stable
		for j := i + 1; j < len(spans); j++ {
			if spans[j].s < spans[i].s {
				spans[i], spans[j] = spans[j], spans[i]
			}
		}
	}
	var b strings.Builder
	pos := 0
	for _, s := range spans {
		b.WriteString(text[pos:s.s])
		b.WriteString(s.text)
		pos = s.e
	}
	b.WriteString(text[pos:])
	return b.String()
}

func mustContain(t *testing.T, what, s string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(s, p) {
			t.Errorf("%s does not contain %q:\n%s", what, p, s)
		}
	}
}

func TestHoverEffectiveAndScopes(t *testing.T) {
	c, data, _ := startDemo(t)
	larry := openFile(t, c, filepath.Join(data, "memory/agent/larry/notes/style.md"))
	v := hoverAt(t, c, larry, 0, 0).Contents.Value
	mustContain(t, "larry hover", v, "effective · shadows agent", "scope: `larry`", "revision: 5",
		"(effective, this note)", "agent · rev 1",
		"_Seen as task `T-7` · agent `larry` · machine `3f9c2a7e5b10d4c8`._")

	moe := openFile(t, c, filepath.Join(data, "memory/agent/moe/notes/focus.md"))
	v = hoverAt(t, c, moe, 1, 0).Contents.Value
	mustContain(t, "moe hover", v, "not in scope (agent moe)", "scope: `moe`", "(not in scope, this note)")

	gpu := openFile(t, c, filepath.Join(data, "memory/device/gpu.md"))
	v = hoverAt(t, c, gpu, 0, 0).Contents.Value
	mustContain(t, "device hover", v, "device · machine a71be0c94d2f6e13 (not this one)", "machine: `a71be0c94d2f6e13` (not this one: this is `3f9c2a7e5b10d4c8`)")

	// Not a memory note: no hover.
	readme := openFile(t, c, filepath.Join(filepath.Dir(data), "project/README.md"))
	if h := hoverAt(t, c, readme, 0, 0); h != nil {
		t.Errorf("hover on a file that is not memory: %+v", h)
	}
}

// A session with no task and no agent (the data directory as workspace) says
// so in every hover: the view of nobody in particular.
func TestHoverSaysUnbound(t *testing.T) {
	data, _ := demo(t)
	c := start(t)
	c.Initialize(string(session.PathToURI(data)), map[string]any{"dataDir": data, "today": "2026-11-30"})
	waitIndexed(t, c)
	u := openFile(t, c, filepath.Join(data, "memory/user/editor.md"))
	v := hoverAt(t, c, u, 0, 0).Contents.Value
	mustContain(t, "unbound hover", v, "_Seen as no task · no agent · machine `3f9c2a7e5b10d4c8` (unbound: notes under a task or agent ID are not in this view)._")
}
