package lsp_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/lsp"
	"github.com/magicfrog/mf-lsp/lsp/lsptest"
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
	uri := string(lsp.PathToURI(path))
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

func TestHoverShadowedNote(t *testing.T) {
	c, data, project := startDemo(t)
	// account/style/code.md is shadowed by the project's task note (task beats
	// user beats account); user/style/code.md sits between them.
	path := filepath.Join(data, "memory/account/style/code.md")
	uri := openFile(t, c, path)
	h := hoverAt(t, c, uri, 4, 3)
	if h == nil {
		t.Fatal("no hover on a memory note")
	}
	if h.Contents.Kind != "markdown" {
		t.Errorf("hover kind %q, want markdown", h.Contents.Kind)
	}
	v := h.Contents.Value
	taskURI := string(lsp.PathToURI(filepath.Join(project, ".magicfrog/memory/style/code.md")))
	userURI := string(lsp.PathToURI(filepath.Join(data, "memory/user/style/code.md")))
	mustContain(t, "hover", v,
		"shadowed by task (rev 2)",
		"dimension: `account`", "layer: `core`", "key: `style/code.md`", "revision: 2", "updated: 2026-09-02T10:00:00.000Z",
		"tokens",
		"]("+taskURI+") (effective)",
		"]("+userURI+") (shadowed)",
		"]("+uri+") (shadowed, this note)",
	)
	// The chain is most specific first.
	if i, j := strings.Index(v, taskURI), strings.Index(v, userURI); i < 0 || j < i {
		t.Errorf("chain order: task should come before user:\n%s", v)
	}
	if h.Range == nil || h.Range.Start.Line != 4 || h.Range.End.Line != 4 || h.Range.Start.Character != 0 {
		t.Errorf("range %+v, want line 4", h.Range)
	}
	// The token count is the engine's (a real BPE count of the body).
	mustContain(t, "hover", v, fmt.Sprintf("size: %d tokens", engine.Tokens("Prefer functional array methods over for loops.\n")))
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
	c.Initialize(string(lsp.PathToURI(data)), map[string]any{"dataDir": data, "today": "2026-11-30"})
	waitIndexed(t, c)
	u := openFile(t, c, filepath.Join(data, "memory/user/editor.md"))
	v := hoverAt(t, c, u, 0, 0).Contents.Value
	mustContain(t, "unbound hover", v, "_Seen as no task · no agent · machine `3f9c2a7e5b10d4c8` (unbound: notes under a task or agent ID are not in this view)._")
}

func TestHoverLinkShowsTargetSummary(t *testing.T) {
	c, data, _ := startDemo(t)
	// CRLF line ends and characters outside the BMP before the link on its line:
	// the range must be counted in UTF-16 code units.
	prefix := "---\r\nrevision: 1\r\nupdated: 2026-08-14T08:30:00.000Z\r\n---\r\nWrite tersely.\r\n🐸🐸 é see "
	link := "[the review skill](../user/skills/review.md)"
	text := prefix + link + " and [code](style/code.md#x).\r\n"
	uri := openText(t, c, filepath.Join(data, "memory/account/tone.md"), text)
	start := utf16Pos(text, len(prefix))
	end := utf16Pos(text, len(prefix)+len(link))
	h := hoverAt(t, c, uri, start.Line, start.Character+3)
	if h == nil {
		t.Fatal("no hover on the link")
	}
	reviewURI := string(lsp.PathToURI(filepath.Join(data, "memory/user/skills/review.md")))
	mustContain(t, "link hover", h.Contents.Value, "Review a change", "user · rev 3", reviewURI, "How to review a change before approving it")
	if strings.Contains(h.Contents.Value, "Chain") {
		t.Errorf("link hover describes the note instead of the target:\n%s", h.Contents.Value)
	}
	if h.Range == nil || h.Range.Start != start || h.Range.End != end {
		t.Errorf("link range %+v, want %+v-%+v (UTF-16)", h.Range, start, end)
	}
	// The second link, with an anchor: the account note's own summary line.
	second := strings.Index(text, "[code]")
	p := utf16Pos(text, second+2)
	h = hoverAt(t, c, uri, p.Line, p.Character)
	mustContain(t, "second link hover", h.Contents.Value, "Prefer functional array methods over for loops.", "account · rev 2")
	// Just after the link, on the same line: the note itself.
	after := utf16Pos(text, len(prefix)+len(link)+2)
	h = hoverAt(t, c, uri, after.Line, after.Character)
	mustContain(t, "hover next to a link", h.Contents.Value, "**account/tone.md**")
}
