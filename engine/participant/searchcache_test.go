package participant_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/participant"
)

// cachedJournal opens journalTree's tree and agent larry with the stored
// index in cache.
func cachedJournal(t fataler, data, project, cache string) *participant.Participant {
	m, err := engine.Open(engine.Options{DataDir: data, ProjectDir: project})
	if err != nil {
		t.Fatal(err)
	}
	p, err := participant.New(m, participant.Options{Scope: engine.Scope{Agents: []string{"larry"}}, Today: "2026-06-01", SearchCacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// agreeFresh fails unless p answers q as a participant over a freshly
// opened tree without a stored index.
func agreeFresh(t fataler, p *participant.Participant, data, project, q string) {
	got, err := p.Search(q, 10)
	_, fresh := openJournal(t, data, project)
	want, werr := fresh.Search(q, 10)
	if (err == nil) != (werr == nil) || !reflect.DeepEqual(got, want) {
		t.Fatal(fmt.Sprintf("%q: with the stored index\n%+v %v\nwithout\n%+v %v", q, got, err, want, werr))
	}
	if msg := participant.IndexCheck(p); msg != "" {
		t.Fatal("the index read from the store: " + msg)
	}
}

// TestStoredIndexAgrees: over edits, deletes and renames made between
// processes, each process's first search, its index read from the stored
// copy where the notes agree with it, answers as one without a stored index;
// the copy it leaves holds exactly the notes in scope, so that the next
// process over an unchanged tree analyzes none; and an index read back is
// kept up to date after a change as any other.
func TestStoredIndexAgrees(t *testing.T) {
	words := []string{"pottery", "class", "Caroline", "went", "support", "group", "the", "to", "cooked", "ramen", "May", "# Plans"}
	rapid.Check(t, func(rt *rapid.T) {
		root := t.TempDir()
		data, project, dir, shared := journalTree(rt, root)
		cache := filepath.Join(root, "cache")
		name, text := journalEdits(rt, dir, shared, "", words)
		for step := rapid.IntRange(1, 8).Draw(rt, "steps"); step > 0; step-- {
			switch rapid.IntRange(0, 2).Draw(rt, "op") {
			case 0:
				if err := os.WriteFile(name(), []byte(text()), 0o644); err != nil {
					rt.Fatal(err)
				}
			case 1:
				os.Remove(name())
			case 2:
				os.Rename(name(), name())
			}
			q := strings.Join(rapid.SliceOfN(rapid.SampledFrom(append(words, `"support group"`, `"to the"`)), 1, 3).Draw(rt, "query"), " ")
			p := cachedJournal(rt, data, project, cache)
			agreeFresh(rt, p, data, project, q)
			again := cachedJournal(rt, data, project, cache)
			agreeFresh(rt, again, data, project, q)
			if _, err := again.Search(q, 10); err != nil {
				continue // a query of stop words only: refused before the index
			}
			if n, want := participant.FromStore(again), len(again.Notes()); n != want {
				rt.Fatalf("the next process read %d notes from the store, want all %d", n, want)
			}
			// The index read back is kept up to date as any other.
			if rapid.Bool().Draw(rt, "eager") {
				participant.CompactEagerly(again)
			}
			path := name()
			if err := os.WriteFile(path, []byte(text()), 0o644); err != nil {
				rt.Fatal(err)
			}
			again.Memory().Refresh(path)
			agreeFresh(rt, again, data, project, q)
		}
	})
}

// TestStoredIndexDamaged: a stored index that is cut short, has a byte
// flipped, is of another format, or is another program's file is ignored
// (the search answers as without it, reading nothing from it) and written
// again whole.
func TestStoredIndexDamaged(t *testing.T) {
	root := t.TempDir()
	data, project, dir, _ := journalTree(t, root)
	cache := filepath.Join(root, "cache")
	for d := 1; d <= 5; d++ {
		body := fmt.Sprintf("---\nrevision: 1\n---\n# Day %d\n- Caroline went to the support group\n- cooked ramen %d\n", d, d)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("2026-05-%02d.md", d)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	agreeFresh(t, cachedJournal(t, data, project, cache), data, project, "support group")
	file := storedFile(t, cache)
	good, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 0x10
	header := good[:strings.IndexByte(string(good), '\n')+1]
	for name, bad := range map[string][]byte{
		"cut short":      good[:len(good)-7],
		"a byte flipped": flipped,
		"another format": append([]byte("mf-lsp search index 0\n"), good[len(header):]...),
		"foreign":        []byte("not an index at all\n"),
		"empty":          {},
	} {
		if err := os.WriteFile(file, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		p := cachedJournal(t, data, project, cache)
		agreeFresh(t, p, data, project, `"cooked ramen" Caroline`)
		if n := participant.FromStore(p); n != 0 {
			t.Errorf("%s: %d notes read from the store", name, n)
		}
		if now, _ := os.ReadFile(file); string(now) != string(good) {
			t.Errorf("%s: the stored index was not written again", name)
		}
	}
}

// TestStoredIndexSeesChangesBehindItsBack: a note changed to another text of
// the same size with its modification time put back, and one whose size
// changed under the same modification time, are analyzed again: the
// entries are keyed by the text's hash, not by what a stat says.
func TestStoredIndexSeesChangesBehindItsBack(t *testing.T) {
	root := t.TempDir()
	data, project, dir, _ := journalTree(t, root)
	cache := filepath.Join(root, "cache")
	paths := []string{filepath.Join(dir, "2026-05-01.md"), filepath.Join(dir, "2026-05-02.md"), filepath.Join(dir, "2026-05-03.md")}
	for _, path := range paths {
		if err := os.WriteFile(path, []byte("---\nrevision: 1\n---\n- pottery class\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	agreeFresh(t, cachedJournal(t, data, project, cache), data, project, "pottery")
	for name, text := range map[string]string{paths[0]: "- quokkas class\n", paths[1]: "- quokka classes\n"} {
		fi, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte("---\nrevision: 1\n---\n"+text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(name, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
	}
	p := cachedJournal(t, data, project, cache)
	r, err := p.Search("quokka", 10)
	if err != nil || r.Total != 2 {
		t.Fatalf("quokka: %+v %v, want the two changed notes", r, err)
	}
	if n := participant.FromStore(p); n != 1 {
		t.Errorf("%d notes read from the store, want the unchanged one", n)
	}
	agreeFresh(t, p, data, project, "pottery class")
}

// TestStoredIndexWritesOnlyItsCache: searching with a stored index writes
// nothing inside the memory tree or the project, only its one file in the
// cache folder; and the binary's folder is <XDG_CACHE_HOME>/mf-lsp/search.
func TestStoredIndexWritesOnlyItsCache(t *testing.T) {
	root := t.TempDir()
	data, project, dir, _ := journalTree(t, root)
	cache := filepath.Join(root, "cache")
	if err := os.WriteFile(filepath.Join(dir, "2026-05-01.md"), []byte("---\nrevision: 1\n---\n- pottery class\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := listTree(t, root)
	agreeFresh(t, cachedJournal(t, data, project, cache), data, project, "pottery")
	after := listTree(t, root)
	var added []string
	for path := range after {
		if _, ok := before[path]; !ok {
			added = append(added, path)
		} else if after[path] != before[path] {
			t.Errorf("%s changed", path)
		}
	}
	if len(added) != 2 || storedFile(t, cache) == "" {
		t.Errorf("written: %q, want only the cache folder and its stored index", added)
	}
	t.Setenv("XDG_CACHE_HOME", filepath.Join(root, "xdg"))
	if got, want := participant.DefaultSearchCacheDir(), filepath.Join(root, "xdg", "mf-lsp", "search"); got != want {
		t.Errorf("DefaultSearchCacheDir %q, want %q", got, want)
	}
}

// storedFile is the one stored index in cache.
func storedFile(t fataler, cache string) string {
	files, _ := filepath.Glob(filepath.Join(cache, "*.idx"))
	if len(files) != 1 {
		t.Fatal(fmt.Sprintf("stored indexes in %s: %q, want one", cache, files))
	}
	return files[0]
}

// listTree is every file and folder under root with its size and time.
func listTree(t fataler, root string) map[string]string {
	out := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out[path] = fmt.Sprint(fi.Size(), fi.ModTime().Format(time.RFC3339Nano))
		if d.IsDir() {
			out[path] = "dir"
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
