package lsp_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/lsp/lsptest"
)

// navigation answers the marker questions of navigation: definition,
// references, completion at a marker, the note's document links, folding
// ranges and inlay hints, one line each.
func (mc *markerCase) navigation(t *testing.T, c *lsptest.Client, question, marker string) string {
	doc := map[string]any{"uri": mc.uri}
	var out []string
	switch question {
	case "definition", "references":
		params := map[string]any{"textDocument": doc, "position": wirePos(mc.at(t, marker))}
		if question == "references" {
			params["context"] = map[string]any{"includeDeclaration": true}
		}
		var locs []struct {
			URI   string
			Range lspRange
		}
		if err := c.Call("textDocument/"+question, params, &locs); err != nil {
			t.Fatal(err)
		}
		for _, l := range locs {
			out = append(out, mc.place(l.URI, l.Range))
		}
	case "links":
		var links []struct {
			Range   lspRange
			Target  string
			Tooltip string
		}
		if err := c.Call("textDocument/documentLink", map[string]any{"textDocument": doc}, &links); err != nil {
			t.Fatal(err)
		}
		for _, l := range links {
			out = append(out, mc.span(l.Range)+" → "+mc.clean(l.Target)+" ("+l.Tooltip+")")
		}
	case "folding":
		var folds []struct {
			StartLine, EndLine int
			Kind               string
		}
		if err := c.Call("textDocument/foldingRange", map[string]any{"textDocument": doc}, &folds); err != nil {
			t.Fatal(err)
		}
		for _, f := range folds {
			out = append(out, fmt.Sprintf("%d-%d %s", f.StartLine, f.EndLine, f.Kind))
		}
	case "inlay":
		var hints []struct {
			Position lspPos
			Label    string
		}
		if err := c.Call("textDocument/inlayHint", map[string]any{"textDocument": doc,
			"range": map[string]any{"start": wirePos(lspPos{}), "end": wirePos(lspPos{Line: 1 << 20})}}, &hints); err != nil {
			t.Fatal(err)
		}
		for _, h := range hints {
			out = append(out, mc.pos(h.Position)+" "+h.Label)
		}
	case "completion":
		var list struct {
			IsIncomplete bool
			Items        []struct {
				Label    string
				Kind     int
				Detail   string
				TextEdit *struct {
					Range   lspRange
					NewText string
				}
				InsertText string
			}
		}
		params := map[string]any{"textDocument": doc, "position": wirePos(mc.at(t, marker))}
		if err := c.Call("textDocument/completion", params, &list); err != nil {
			t.Fatal(err)
		}
		for _, it := range list.Items {
			line := it.Label
			if it.Detail != "" {
				line += " · " + mc.clean(it.Detail)
			}
			if it.TextEdit != nil {
				b, _ := json.Marshal(it.TextEdit.NewText)
				line += " → " + mc.span(it.TextEdit.Range) + " " + string(b)
			}
			out = append(out, line)
		}
	}
	return lines(out)
}

// place prints a location: the file (as $ROOT/…), then the range, a marker's
// name only in the marked note.
func (mc *markerCase) place(uri string, r lspRange) string {
	if uri == mc.uri {
		return "this note " + mc.span(r)
	}
	return fmt.Sprintf("%s %d:%d-%d:%d", mc.clean(uri), r.Start.Line, r.Start.Character, r.End.Line, r.End.Character)
}

// TestCapabilitiesNavigation: initialize announces every navigation feature
// docs/protocol.md lists, inlay hints (LSP 3.17) beside glsp's capabilities.
func TestCapabilitiesNavigation(t *testing.T) {
	c := start(t)
	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(c.Initialize("", nil), &res); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"definitionProvider":   "true",
		"referencesProvider":   "true",
		"documentLinkProvider": `{"resolveProvider":false}`,
		"foldingRangeProvider": "true",
		"renameProvider":       `{"prepareProvider":true}`,
		"inlayHintProvider":    "true",
	}
	for k, v := range want {
		if got := string(res.Capabilities[k]); got != v {
			t.Errorf("%s = %s, want %s", k, got, v)
		}
	}
	for _, k := range []string{"completionProvider", "workspace", "hoverProvider", "executeCommandProvider"} {
		if len(res.Capabilities[k]) == 0 {
			t.Errorf("no %s", k)
		}
	}
	if !strings.Contains(string(res.Capabilities["workspace"]), `"willRename":{"filters":[{"pattern":{"glob":"**/*.md"}}]}`) {
		t.Errorf("workspace = %s, want willRename of *.md", res.Capabilities["workspace"])
	}
}
