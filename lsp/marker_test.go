package lsp_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/magicfrog/mf-lsp/lsp"
	"github.com/magicfrog/mf-lsp/lsp/lsptest"
	"github.com/magicfrog/mf-lsp/session"
)

var update = flag.Bool("update", false, "rewrite the want sections of testdata/lsp/*.txtar with the server's answers")

// TestMarkers runs the language-server cases of testdata/lsp/*.txtar: hover, code
// lens, code actions and diagnostics as data. Each archive is a small memory tree
// and the answers expected on one note of it:
//
//	-- clock --            the server's clock (RFC 3339); default 2026-11-30T12:00:00Z.
//	                       The journal's today is its date unless settings name one.
//	-- settings.json --    initializationOptions beside the default {"dataDir": "$ROOT/data"}
//	-- data/... --         files of the data directory (data/machine-id defaults
//	                       to 3f9c2a7e5b10d4c8)
//	-- project/... --      files of the project, the workspace root
//	-- disk --             the marked note's bytes on disk when they differ from the
//	                       buffer (an agent wrote since the editor read it)
//	-- symlinks --         symbolic links made after the files, one PATH -> TARGET
//	                       a line, in place of what the files put there (the marked
//	                       note may be one, or below one: its buffer is kept)
//	-- want/diagnostics -- the diagnostics published when the note is opened
//	-- want/lenses --      its code lenses
//	-- want/hover@NAME --  the hover at marker NAME: its range, then the Markdown
//	-- want/actions@NAME -- the code actions for the empty range at marker NAME
//	-- want/definition@NAME, want/references@NAME, want/completion@NAME --
//	                       what the server answers at marker NAME (navigation_marker_test.go)
//	-- want/links, want/folding, want/inlay -- the note's document links, folding
//	                       ranges and inlay hints
//
// Exactly one file of the tree holds markers «NAME»: that note is opened (markers
// removed) and asked. Positions print as a marker's name when one sits there, else
// as LINE:CHARACTER (0-based, UTF-16, as LSP counts); the temporary directory of the
// tree prints as $ROOT. The server runs in-process over net.Pipe with its clock
// pinned. A case asks only what its want sections name; go test ./lsp -run
// TestMarkers -update rewrites them (an empty one is filled), so a new case starts
// as the tree, the markers and empty want sections.
func TestMarkers(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "lsp", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases in testdata/lsp: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			t.Parallel()
			runMarkerCase(t, file)
		})
	}
}

// markerRE is a marker: «NAME».
var markerRE = regexp.MustCompile(`«([A-Za-z0-9_.-]*)»`)

// markerCase is one archive set up on disk.
type markerCase struct {
	root    string
	uri     string            // the marked note
	text    string            // its buffer, markers removed
	markers map[string]lspPos // marker name → position in text
}

func runMarkerCase(t *testing.T, file string) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	mc := &markerCase{root: t.TempDir()}
	clock := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	settings := map[string]any{"dataDir": filepath.Join(mc.root, "data")}
	var notePath string
	var disk *string
	var links string
	var viewURI string // the marked document when it is a view/ one
	machineID := true
	for _, f := range ar.Files {
		data := string(f.Data)
		switch {
		case f.Name == "clock":
			if clock, err = time.Parse(time.RFC3339, strings.TrimSpace(data)); err != nil {
				t.Fatalf("clock: %v", err)
			}
		case f.Name == "settings.json":
			if err := json.Unmarshal([]byte(strings.ReplaceAll(data, "$ROOT", mc.root)), &settings); err != nil {
				t.Fatalf("settings.json: %v", err)
			}
		case f.Name == "disk":
			disk = &data
		case f.Name == "symlinks":
			links = data
		case strings.HasPrefix(f.Name, "want/"):
		case strings.HasPrefix(f.Name, "data/"), strings.HasPrefix(f.Name, "project/"):
			machineID = machineID && f.Name != "data/machine-id"
			path := filepath.Join(mc.root, filepath.FromSlash(f.Name))
			if markerRE.MatchString(data) {
				if notePath != "" {
					t.Fatalf("markers in %s and in %s: mark one note", notePath, f.Name)
				}
				notePath = path
				data = mc.unmark(t, data)
			}
			putFile(t, path, data)
		case strings.HasPrefix(f.Name, "view/"):
			// A document the editor shows that is no file (a block preview,
			// an effective view): opened as magicfrog-memory:/NAME, never
			// written to disk.
			if notePath != "" || !markerRE.MatchString(data) {
				t.Fatalf("%s: a view/ document must be the one marked document", f.Name)
			}
			notePath, viewURI = f.Name, "magicfrog-memory:/"+strings.TrimPrefix(f.Name, "view/")
			data = strings.ReplaceAll(mc.unmark(t, data), "$ROOT", mc.root)
			mc.text = data
		default:
			t.Fatalf("unknown section %q", f.Name)
		}
	}
	if notePath == "" {
		t.Fatal("no note holds a «marker»")
	}
	if machineID {
		putFile(t, filepath.Join(mc.root, "data", "machine-id"), "3f9c2a7e5b10d4c8\n")
	}
	if err := os.MkdirAll(filepath.Join(mc.root, "project"), 0o755); err != nil {
		t.Fatal(err)
	}
	if disk != nil {
		putFile(t, notePath, *disk)
	}
	for _, line := range strings.Split(strings.TrimSpace(links), "\n") {
		if line == "" {
			continue
		}
		link, target, ok := strings.Cut(line, " -> ")
		if !ok {
			t.Fatalf("symlinks: %q is not PATH -> TARGET", line)
		}
		path := filepath.Join(mc.root, filepath.FromSlash(link))
		os.RemoveAll(path) // the marked note may be the link, or below it: its buffer is kept
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
	}

	c := serveInProcess(t, lsp.Options{Now: func() time.Time { return clock }})
	c.Initialize(string(session.PathToURI(filepath.Join(mc.root, "project"))), settings)
	var published lsptest.PublishedDiagnostics
	if viewURI != "" {
		mc.uri = viewURI
		if err := c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": viewURI, "languageId": "markdown", "version": 1, "text": mc.text}}); err != nil {
			t.Fatal(err)
		}
	} else {
		mc.uri = openText(t, c, notePath, mc.text)
		var err error
		published, err = c.WaitDiagnostics(mc.uri, func(p lsptest.PublishedDiagnostics) bool { return p.Version != nil && *p.Version == 1 })
		if err != nil {
			t.Fatal(err)
		}
	}

	changed := false
	for i, f := range ar.Files {
		if !strings.HasPrefix(f.Name, "want/") {
			continue
		}
		question, marker, _ := strings.Cut(strings.TrimPrefix(f.Name, "want/"), "@")
		var got string
		switch question {
		case "diagnostics":
			got = mc.diagnostics(t, published.Diagnostics)
		case "lenses":
			got = mc.lenses(t, c)
		case "hover":
			got = mc.hover(t, c, mc.at(t, marker))
		case "actions":
			got = mc.actions(t, c, mc.at(t, marker))
		case "definition", "references", "links", "folding", "completion", "inlay":
			got = mc.navigation(t, c, question, marker) // navigation_marker_test.go
		default:
			t.Fatalf("unknown question %q (want/diagnostics, want/lenses, want/hover@NAME, want/actions@NAME)", f.Name)
		}
		if got == string(f.Data) {
			continue
		}
		if *update {
			ar.Files[i].Data = []byte(got)
			changed = true
			continue
		}
		t.Errorf("%s: got\n%s\nwant\n%s", f.Name, got, f.Data)
	}
	if changed {
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// unmark records the markers of text and returns it without them.
func (mc *markerCase) unmark(t *testing.T, text string) string {
	mc.markers = map[string]lspPos{}
	var b strings.Builder
	last := 0
	for _, m := range markerRE.FindAllStringSubmatchIndex(text, -1) {
		b.WriteString(text[last:m[0]])
		name := text[m[2]:m[3]]
		if _, dup := mc.markers[name]; dup || name == "" {
			t.Fatalf("marker «%s»: names must be given and unique", name)
		}
		mc.markers[name] = utf16Pos(b.String(), b.Len())
		last = m[1]
	}
	b.WriteString(text[last:])
	mc.text = b.String()
	return mc.text
}

// at is the position of marker name.
func (mc *markerCase) at(t *testing.T, name string) lspPos {
	p, ok := mc.markers[name]
	if !ok {
		t.Fatalf("no marker «%s» in the note", name)
	}
	return p
}

// pos prints p as the marker there, else LINE:CHARACTER.
func (mc *markerCase) pos(p lspPos) string {
	var names []string
	for name, at := range mc.markers {
		if at == p {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return fmt.Sprintf("%d:%d", p.Line, p.Character)
	}
	sort.Strings(names)
	return "«" + names[0] + "»"
}

func (mc *markerCase) span(r lspRange) string { return mc.pos(r.Start) + "-" + mc.pos(r.End) }

// clean replaces the temporary tree's location with $ROOT: as a URI, as a path
// escaped for Markdown, and as a plain path.
func (mc *markerCase) clean(s string) string {
	s = strings.ReplaceAll(s, string(session.PathToURI(mc.root)), "$ROOT")
	s = strings.ReplaceAll(s, strings.ReplaceAll(mc.root, "_", `\_`), "$ROOT")
	return strings.ReplaceAll(s, mc.root, "$ROOT")
}

// lines ends every line of out with a newline, as a txtar section holds it.
func lines(out []string) string {
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, "\n") + "\n"
}

var severities = map[int]string{1: "error", 2: "warning", 3: "information", 4: "hint"}

// diagnostics prints one line per diagnostic: RANGE SEVERITY CODE: MESSAGE, and an
// indented line for each related location.
func (mc *markerCase) diagnostics(t *testing.T, raw []json.RawMessage) string {
	var out []string
	for _, r := range raw {
		var d struct {
			Range              lspRange
			Severity           int
			Code               string
			Message            string
			RelatedInformation []struct {
				Location struct {
					URI   string
					Range lspRange
				}
				Message string
			}
		}
		if err := json.Unmarshal(r, &d); err != nil {
			t.Fatalf("diagnostic %s: %v", r, err)
		}
		out = append(out, fmt.Sprintf("%s %s %s: %s", mc.span(d.Range), severities[d.Severity], d.Code, mc.clean(d.Message)))
		for _, ri := range d.RelatedInformation {
			loc := ri.Location.Range
			out = append(out, fmt.Sprintf("\trelated %s %d:%d-%d:%d: %s", mc.clean(ri.Location.URI),
				loc.Start.Line, loc.Start.Character, loc.End.Line, loc.End.Character, mc.clean(ri.Message)))
		}
	}
	return lines(out)
}

// lenses prints one line per lens: RANGE TITLE → COMMAND ARGUMENTS.
func (mc *markerCase) lenses(t *testing.T, c *lsptest.Client) string {
	var lenses []struct {
		Range   lspRange
		Command *struct {
			Title     string
			Command   string
			Arguments []json.RawMessage
		}
	}
	if err := c.Call("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": mc.uri}}, &lenses); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range lenses {
		line := mc.span(l.Range)
		if l.Command != nil {
			line += " " + l.Command.Title + " → " + l.Command.Command + mc.arguments(l.Command.Arguments)
		}
		out = append(out, line)
	}
	return lines(out)
}

func (mc *markerCase) arguments(args []json.RawMessage) string {
	var s string
	for _, a := range args {
		s += " " + mc.clean(string(a))
	}
	return s
}

// hover prints the hover's range on a first line (or "no hover"), then its Markdown.
func (mc *markerCase) hover(t *testing.T, c *lsptest.Client, at lspPos) string {
	h := hoverAt(t, c, mc.uri, at.Line, at.Character)
	if h == nil {
		return "no hover\n"
	}
	head := "range: none"
	if h.Range != nil {
		head = "range: " + mc.span(*h.Range)
	}
	md := mc.clean(h.Contents.Value)
	if !strings.HasSuffix(md, "\n") {
		md += "\n"
	}
	return head + " (" + h.Contents.Kind + ")\n" + md
}

// actions prints one line per code action for the empty range at the marker:
// KIND: TITLE, then → COMMAND or "edit" for what it does.
func (mc *markerCase) actions(t *testing.T, c *lsptest.Client, at lspPos) string {
	var as []codeAction
	err := c.Call("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": mc.uri},
		"range":        map[string]any{"start": wirePos(at), "end": wirePos(at)},
		"context":      map[string]any{"diagnostics": []any{}},
	}, &as)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range as {
		line := a.Kind + ": " + a.Title
		for _, d := range a.Diagnostics {
			line += " [" + d.Code + "]"
		}
		if a.Edit != nil {
			line += " → edit"
		}
		if a.Command != nil {
			line += " → " + a.Command.Command
		}
		out = append(out, line)
	}
	return lines(out)
}

// wirePos is p as LSP spells it.
func wirePos(p lspPos) map[string]any {
	return map[string]any{"line": p.Line, "character": p.Character}
}
