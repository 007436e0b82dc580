package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/lsp/lsptest"
	"github.com/magicfrog/mf-lsp/session"
)

// demo copies testdata/demo into a temp dir and returns its data and project dirs.
func demo(t testing.TB) (data, project string) {
	t.Helper()
	dst := t.TempDir()
	src, _ := filepath.Abs("../testdata/demo")
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if strings.HasPrefix(info.Name(), ".mf-lsp") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dst, "data"), filepath.Join(dst, "project")
}

// startDemo starts the real binary on a copy of the demo.
func startDemo(t *testing.T) (c *lsptest.Client, data, project string) {
	t.Helper()
	data, project = demo(t)
	c = start(t)
	c.Initialize(string(session.PathToURI(project)), map[string]any{"dataDir": data, "today": "2026-11-30"})
	waitIndexed(t, c)
	return c, data, project
}

func openFile(t *testing.T, c *lsptest.Client, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	uri := string(session.PathToURI(path))
	if err := c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "markdown", "version": 1, "text": string(b)}}); err != nil {
		t.Fatal(err)
	}
	return uri
}

func hasCode(code string) func(lsptest.PublishedDiagnostics) bool {
	return func(p lsptest.PublishedDiagnostics) bool {
		for _, d := range p.Diagnostics {
			if strings.Contains(string(d), `"code":"`+code+`"`) {
				return true
			}
		}
		return false
	}
}

func TestDiagnosticsOnOpenAndExternalChange(t *testing.T) {
	c, data, _ := startDemo(t)
	// A note without frontmatter is flagged as soon as it is opened.
	uri := openFile(t, c, filepath.Join(data, "memory/user/editor.md"))
	if _, err := c.WaitDiagnostics(uri, hasCode("frontmatter-missing")); err != nil {
		t.Fatal(err)
	}
	// An effective note becomes shadowed when an agent writes a more specific
	// version on disk: the open buffer's diagnostics follow without a reload.
	tone := openFile(t, c, filepath.Join(data, "memory/account/tone.md"))
	if _, err := c.WaitDiagnostics(tone, nil); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := os.WriteFile(filepath.Join(data, "memory/user/tone.md"), []byte("---\nrevision: 1\nupdated: 2026-11-30T08:00:00.000Z\n---\nBe terse.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitDiagnostics(tone, hasCode("shadowed")); err != nil {
		t.Fatal(err)
	}
	t.Logf("external write reflected in %v", time.Since(start))
	if _, err := c.WaitNotification("magicfrog/memoryChanged", nil); err != nil {
		t.Fatal(err)
	}
}

// TestWorkspaceIsTheDataDirectory: opened on the data directory itself (no
// dataDir option, no project), the server reads it as the data directory.
func TestWorkspaceIsTheDataDirectory(t *testing.T) {
	data, _ := demo(t)
	c := start(t)
	c.Initialize(string(session.PathToURI(data)), map[string]any{"today": "2026-11-30"})
	waitIndexed(t, c)
	uri := openFile(t, c, filepath.Join(data, "memory/user/editor.md"))
	if _, err := c.WaitDiagnostics(uri, hasCode("frontmatter-missing")); err != nil {
		t.Fatal(err)
	}
	var hover struct{ Contents struct{ Value string } }
	tone := openFile(t, c, filepath.Join(data, "memory/account/tone.md"))
	if err := c.Call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": tone},
		"position": map[string]any{"line": 5, "character": 2}}, &hover); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(hover.Contents.Value, "account") {
		t.Errorf("hover in the data directory: %q", hover.Contents.Value)
	}
}

// TestLoneMemoryFile: a memory note opened from outside the session's tree (a
// lone file of another project, or of another data directory) is still checked,
// against the tree found around it.
func TestLoneMemoryFile(t *testing.T) {
	data, project := demo(t)
	elsewhere := t.TempDir()
	c := start(t)
	c.Initialize(string(session.PathToURI(elsewhere)), map[string]any{"dataDir": filepath.Join(elsewhere, "no-data"), "today": "2026-11-30"})
	waitIndexed(t, c)

	// A task note of a project that is not the workspace: its project is found.
	note := filepath.Join(project, ".magicfrog/memory/style/code.md")
	uri := openFile(t, c, note)
	// Its tree loads beside the read loop; its diagnostics come when it is loaded.
	if _, err := c.WaitDiagnostics(uri, nil); err != nil {
		t.Fatal(err)
	}
	var lens []struct{ Command struct{ Title string } }
	if err := c.Call("textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": uri}}, &lens); err != nil {
		t.Fatal(err)
	}
	if len(lens) != 1 || !strings.HasPrefix(lens[0].Command.Title, "effective") {
		t.Errorf("lens on a lone project note: %+v", lens)
	}
	// A note of another data directory: found from its memory/<dimension>/ path.
	plain := openFile(t, c, filepath.Join(data, "memory/user/editor.md"))
	if _, err := c.WaitDiagnostics(plain, hasCode("frontmatter-missing")); err != nil {
		t.Fatal(err)
	}
	// Any other Markdown file is not memory: no findings, no lens.
	other := filepath.Join(elsewhere, "README.md")
	if err := os.WriteFile(other, []byte("# Not memory\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	readme := openFile(t, c, other)
	got, err := c.WaitDiagnostics(readme, nil)
	if err != nil || len(got.Diagnostics) != 0 {
		t.Errorf("a non-memory file got diagnostics %v (%v)", got.Diagnostics, err)
	}
}

// waitIndexed waits until the server finished loading memory (the end of its
// "indexing memory" progress). Until then requests are answered at once
// without memory: no lens, no symbols, ContentModified for hover.
func waitIndexed(t testing.TB, c *lsptest.Client) {
	t.Helper()
	err := c.WaitFor("memory indexed", func(r lsptest.Recorded) bool {
		for _, m := range r.Notifications {
			p := string(m.Params)
			if m.Method == "$/progress" && strings.Contains(p, `"kind":"end"`) &&
				(strings.Contains(p, `"message":"indexed `) || strings.Contains(p, `"message":"failed"`)) {
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatal(err)
	}
}
