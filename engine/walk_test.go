package engine_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
)

// TestWalkThroughFoldersSameLoad: loading through opened folders (the fast
// walk) finds the same notes, in the same order for every key, with the same
// problems, as the walk by path, on a tree with links in and out, a link to
// a folder, hidden and badly named files, special files and notes beside and
// below folders.
func TestWalkThroughFoldersSameLoad(t *testing.T) {
	dir, _ := makeTree(t, map[string]string{
		"data/memory/user/a.md":                    note(1, "user a"),
		"data/memory/user/b/c.md":                  note(1, "user b/c"),
		"data/memory/user/b.md":                    note(1, "user b"),
		"data/memory/user/b/d/e.md":                note(1, "user b/d/e"),
		"data/memory/user/.hidden/x.md":            note(1, "hidden"),
		"data/memory/user/not-a-note.txt":          "text",
		"data/memory/agent/larry/topics/t1.md":     note(2, "larry t1"),
		"data/memory/agent/moe/topics/t1.md":       note(3, "moe t1"),
		"data/memory/agent/topics/t1.md":           note(4, "shared t1"),
		"data/memory/agent/stranger/topics/t1.md":  note(5, "unregistered"),
		"data/memory/account/topics/t1.md":         note(6, "account t1"),
		"project/.magicfrog/memory/topics/t1.md":   note(7, "task t1"),
		"project/.magicfrog/memory/T-7/notes/n.md": note(8, "task T-7"),
		"data/memory/device/d.md":                  note(1, "device"),
		"data/memory/user/broken.md":               "---\nrevision: [1\n---\nbroken\n",
		"elsewhere/out.md":                         note(1, "outside"),
	})
	mem := filepath.Join(dir, "data", "memory")
	must(t, os.Symlink("b/c.md", filepath.Join(mem, "user", "linked-in.md")))
	must(t, os.Symlink("../account/topics/t1.md", filepath.Join(mem, "user", "linked-across.md")))
	must(t, os.Symlink("../moe/topics/t1.md", filepath.Join(mem, "agent", "larry", "peek.md")))
	must(t, os.Symlink(filepath.Join(dir, "elsewhere", "out.md"), filepath.Join(mem, "user", "linked-out.md")))
	must(t, os.Symlink(filepath.Join(mem, "user", "b"), filepath.Join(mem, "user", "linked-folder")))
	must(t, os.Symlink("missing.md", filepath.Join(mem, "user", "dangling.md")))
	must(t, os.WriteFile(filepath.Join(mem, "user", "bad\nname.md"), []byte(note(1, "bad name")), 0o644))
	if err := makeFIFO(filepath.Join(mem, "user", "fifo.md")); err != nil {
		t.Log("no FIFO here:", err)
	}

	load := func() *engine.Memory {
		m, err := engine.Open(engine.Options{DataDir: filepath.Join(dir, "data"), ProjectDir: filepath.Join(dir, "project")})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	type loaded struct {
		Notes    []string
		Versions map[string][]string
		Src      map[string]string
		Problems []engine.Problem
	}
	describe := func(m *engine.Memory) loaded {
		l := loaded{Versions: map[string][]string{}, Src: map[string]string{}, Problems: m.Problems()}
		for _, e := range m.Notes() {
			l.Notes = append(l.Notes, e.Path)
			l.Src[e.Path] = string(e.TextOrNil())
			if _, ok := l.Versions[e.Key]; !ok {
				for _, v := range m.Versions(e.Key) {
					l.Versions[e.Key] = append(l.Versions[e.Key], v.Path)
				}
			}
		}
		return l
	}
	fast := describe(load())
	engine.WalkByPath(t)
	byPath := describe(load())
	if !reflect.DeepEqual(fast, byPath) {
		t.Errorf("through folders:\n%+v\nby path:\n%+v", fast, byPath)
	}
	if len(fast.Notes) < 15 || len(fast.Problems) < 4 {
		t.Errorf("%d notes, %d problems: the tree did not load as built", len(fast.Notes), len(fast.Problems))
	}
	if _, ok := fast.Src[filepath.Join(mem, "user", "linked-in.md")]; !ok {
		t.Error("a link to a note of its own dimension was not read")
	}
	for _, p := range []string{filepath.Join(mem, "user", "linked-across.md"), filepath.Join(mem, "agent", "larry", "peek.md")} {
		if _, ok := fast.Src[p]; ok {
			t.Errorf("%s: a link into another dimension or owner was read", p)
		}
	}
}
