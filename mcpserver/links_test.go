//go:build unix

package mcpserver_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/magicfrog/mf-lsp/engine/participant"
)

// TestLinksNeverCrossScope (issue 22): larry's folder holds a link to moe's
// note and a link to moe's whole folder. Through larry's server no tool or
// resource reads a byte of moe's note, and no write lands in moe's folder.
func TestLinksNeverCrossScope(t *testing.T) {
	const secret = "Moe owns the billing service"
	f := startTree(t, nil, func(root string) {
		larry := filepath.Join(root, "data", "memory", "agent", "larry")
		for link, to := range map[string]string{"peek.md": "../moe/notes/focus.md", "moedir": "../moe"} {
			if err := os.Symlink(to, filepath.Join(larry, link)); err != nil {
				t.Fatal(err)
			}
		}
	})
	moe := filepath.Join(f.root, "data", "memory", "agent", "moe", "notes", "focus.md")
	before, err := os.ReadFile(moe)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	var c participant.Context
	structured(t, f.call(t, "memory_context", map[string]any{}), &c)
	if strings.Contains(c.Block, secret) || strings.Contains(c.Block, "peek.md") {
		t.Errorf("memory_context holds moe's note through the link:\n%s", c.Block)
	}
	for _, key := range []string{"peek.md", "moedir/notes/focus.md"} {
		res := f.call(t, "memory_read", map[string]any{"dimension": "agent/larry", "key": key})
		if !res.IsError || strings.Contains(text(res), secret) {
			t.Errorf("memory_read agent/larry %s: %s", key, text(res))
		}
	}
	var s participant.SearchResult
	structured(t, f.call(t, "memory_search", map[string]any{"query": "billing"}), &s)
	if s.Total != 0 {
		t.Errorf("memory_search found moe's note: %+v", s)
	}
	list, err := f.session.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range list.Resources {
		if strings.Contains(r.URI, "peek") || strings.Contains(r.URI, "moedir") {
			t.Errorf("resource %s", r.URI)
		}
	}
	for _, uri := range []string{"memory://agent/larry/peek.md", "memory://agent/larry/moedir/notes/focus.md"} {
		if rr, err := f.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("read %s: %+v", uri, rr.Contents)
		}
	}

	// Writes: through the folder link (an existing note, a new one) and the
	// file link; each is refused, and moe's folder is as it was.
	for _, w := range []map[string]any{
		{"dimension": "agent/larry", "key": "moedir/notes/focus.md", "body": "rewritten by larry\n", "expected_revision": 2},
		{"dimension": "agent/larry", "key": "moedir/notes/new.md", "body": "new from larry\n", "expected_revision": 0},
		{"dimension": "agent/larry", "key": "peek.md", "body": "rewritten by larry\n", "expected_revision": 2},
	} {
		if res := f.call(t, "memory_write", w); !res.IsError {
			t.Errorf("memory_write %v: written: %s", w["key"], text(res))
		}
	}
	if after, _ := os.ReadFile(moe); string(after) != string(before) {
		t.Errorf("moe's note was rewritten:\n%s", after)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(moe), "new.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a note was made in moe's folder: %v", err)
	}
}
