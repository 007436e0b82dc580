package engine

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"slices"

	"pgregory.net/rapid"

	"github.com/magicfrog/mf-lsp/engine/frontmatter"
	"github.com/magicfrog/mf-lsp/engine/history"
)

// TestHistoryLosesNothing: a random sequence of engine writes (with and
// without the content hash) and foreign overwrites of two notes (a stale
// copy, an edit in place, anything at any revision), some seen by the
// watcher (Refresh), some by a Reload of the whole tree and some not, loses no version the engine wrote or
// observed: each one is in the local history, byte for byte, and restore
// brings each one back.
func TestHistoryLosesNothing(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		dir, err := os.MkdirTemp("", "history-property-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		data, project := filepath.Join(dir, "data"), filepath.Join(dir, "project")
		for _, d := range []string{filepath.Join(data, "memory"), filepath.Join(project, ".magicfrog")} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		os.WriteFile(filepath.Join(data, "machine-id"), []byte("m-here\n"), 0o644)
		os.WriteFile(filepath.Join(project, ".magicfrog", "config.json"), []byte(`{"task": "T-1"}`), 0o644)
		m, err := Open(Options{DataDir: data, ProjectDir: project})
		if err != nil {
			t.Fatal(err)
		}
		type target struct {
			d   Dimension
			own string
			key string
		}
		targets := []target{{User, "", "a.md"}, {Task, "T-1", "b.md"}}
		known := map[string]map[string][]byte{} // path -> blob -> content written or observed
		pending := map[string][]byte{}          // path -> a foreign version on disk nobody saw yet
		seen := func(path string, content []byte) {
			if known[path] == nil {
				known[path] = map[string][]byte{}
			}
			known[path][history.BlobID(content)] = content
		}
		now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
		steps := rapid.IntRange(1, 25).Draw(t, "steps")
		for i := range steps {
			now = now.Add(time.Second)
			tg := targets[rapid.IntRange(0, len(targets)-1).Draw(t, "note")]
			path, err := m.PathOf(tg.d, tg.own, tg.key)
			if err != nil {
				t.Fatal(err)
			}
			switch rapid.IntRange(0, 3).Draw(t, "action") {
			case 0: // an engine write, expecting what the loaded tree holds
				req := WriteRequest{Dimension: tg.d, Owner: tg.own, Key: tg.key, Body: fmt.Appendf(nil, "engine %d\n", i), Now: now}
				if n := m.Note(path); n != nil {
					req.ExpectRevision = n.Revision()
					if rapid.Bool().Draw(t, "with hash") {
						req.ExpectHash = n.Hash()
					}
				}
				if _, err := m.Write(req); err != nil {
					if _, stale := IsStale(err); !stale {
						t.Fatalf("write: %v", err)
					}
					continue
				}
				if p := pending[path]; p != nil {
					seen(path, p) // the write replaced it: kept first
					delete(pending, path)
				}
				b, _ := os.ReadFile(path)
				seen(path, b)
			case 1: // another program writes the file
				var content []byte
				prev := known[path]
				if len(prev) > 0 && rapid.Bool().Draw(t, "stale copy") {
					ids := make([]string, 0, len(prev))
					for id := range prev {
						ids = append(ids, id)
					}
					sortStrings(ids)
					content = append([]byte(nil), prev[rapid.SampledFrom(ids).Draw(t, "copy of")]...)
					if rapid.Bool().Draw(t, "edited") {
						content = append(content, fmt.Sprintf("foreign edit %d\n", i)...)
					}
				} else {
					content = fmt.Appendf(nil, "---\nrevision: %d\n---\nforeign %d\n", rapid.IntRange(0, 9).Draw(t, "revision"), i)
				}
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, content, 0o644); err != nil {
					t.Fatal(err)
				}
				pending[path] = content
			case 2: // the watcher reports the file
				m.Refresh(path)
				if p := pending[path]; p != nil {
					seen(path, p)
					delete(pending, path)
				}
			case 3: // the whole tree is read again (a sync's end, a configuration change)
				m.Reload()
				for p, c := range pending {
					seen(p, c)
					delete(pending, p)
				}
			}
		}
		for path, versions := range known {
			ids := make([]string, 0, len(versions))
			for id := range versions {
				ids = append(ids, id)
			}
			sortStrings(ids)
			for _, id := range ids {
				want := versions[id]
				got, err := m.HistoryVersion(path, id)
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("%s: version %s not in the history (%v):\n%s", path, id[:12], err, want)
				}
				m.Refresh(path) // the tree holds the disk's version
				if _, err := m.RestoreLocal(path, 0, id, now); err != nil {
					t.Fatalf("%s: restore %s: %v", path, id[:12], err)
				}
				disk, _ := os.ReadFile(path)
				if !bytes.Equal(disk, want) && !bytes.Equal(bodyOf(disk), bodyOf(want)) {
					t.Fatalf("%s: restore of %s gave\n%s\nwant\n%s", path, id[:12], disk, want)
				}
			}
		}
	})
}

func bodyOf(src []byte) []byte {
	doc := frontmatter.Parse(src)
	if !doc.Present {
		return src
	}
	return src[doc.Body:]
}

func sortStrings(xs []string) { slices.Sort(xs) }

// The history never holds another machine's device notes: a device note
// bound to another machine that changes on disk is not kept; this machine's
// is.
func TestHistoryKeepsNoOtherMachinesDeviceNotes(t *testing.T) {
	other := "---\nrevision: 1\nupdated: 2026-11-30T09:00:00.000Z\nmachine: m-other\n---\nTheirs.\n"
	mine := "---\nrevision: 1\nupdated: 2026-11-30T09:00:00.000Z\nmachine: m-here\n---\nMine.\n"
	m, dir := newTree(t, map[string]string{
		"data/machine-id":               "m-here\n",
		"data/memory/device/other.md":   other,
		"data/memory/machine/legacy.md": other,
		"data/memory/device/mine.md":    mine,
	})
	for _, rel := range []string{"device/other.md", "machine/legacy.md", "device/mine.md"} {
		p := filepath.Join(dir, "data", "memory", filepath.FromSlash(rel))
		b, _ := os.ReadFile(p)
		if err := os.WriteFile(p, append(b, "Changed.\n"...), 0o644); err != nil {
			t.Fatal(err)
		}
		m.Refresh(p)
		vs, err := m.LocalHistory(p)
		if err != nil {
			t.Fatal(err)
		}
		if keep := rel == "device/mine.md"; (len(vs) > 0) != keep {
			t.Errorf("%s: %d versions in the history, want kept %v", rel, len(vs), keep)
		}
	}
}

// What a Reload observed is kept when the next Reload finds it replaced: the
// engine writes a note (revision 1), another program overwrites it with
// revision 0 and a Reload loads that (the overwrite of a newer version is
// caught), then another program writes an older copy over it that no
// watcher reports, and the tree is read again. The revision-0 version was
// observed at load: it must be in the history (issue 21, the combined
// property TestNoPathLosesARevision in engine/roam).
func TestHistoryKeepsWhatAReloadObserved(t *testing.T) {
	m, dir := newTree(t, map[string]string{"data/machine-id": "m-here\n"})
	p := filepath.Join(dir, "data", "memory", "user", "n3.md")
	if _, err := m.Write(WriteRequest{Dimension: User, Key: "n3.md", Body: []byte("engine 1\n")}); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(p)
	foreign := []byte("---\nrevision: 0\n---\nforeign 7\n")
	if err := os.WriteFile(p, foreign, 0o644); err != nil {
		t.Fatal(err)
	}
	m.Reload()
	if n := m.Note(p); n == nil || !bytes.Equal(n.src, foreign) {
		t.Fatalf("the reload did not load the foreign version: %v", n)
	}
	if o, ok := m.OverwriteAt(p); !ok || o.Blob != history.BlobID(foreign) {
		t.Errorf("the overwrite of revision 1 by revision 0 found at reload is not open: %+v", o)
	}
	if err := os.WriteFile(p, first, 0o644); err != nil {
		t.Fatal(err)
	}
	m.Reload()
	for _, want := range [][]byte{first, foreign} {
		if got, err := m.HistoryVersion(p, history.BlobID(want)); err != nil || !bytes.Equal(got, want) {
			t.Errorf("not in the history (%v):\n%s", err, want)
		}
	}
}

// A note replaced on disk by a file that is not a note (its frontmatter
// holds a NUL byte) keeps the version the tree had, whether the watcher
// reports it (Refresh) or a Reload finds it.
func TestHistoryKeepsWhatANonNoteReplaced(t *testing.T) {
	for _, how := range []string{"refresh", "reload"} {
		t.Run(how, func(t *testing.T) {
			loaded := "---\nrevision: 2\n---\nloaded, never written by the engine\n"
			m, dir := newTree(t, map[string]string{"data/machine-id": "m-here\n", "data/memory/user/x.md": loaded})
			p := filepath.Join(dir, "data", "memory", "user", "x.md")
			if err := os.WriteFile(p, []byte("---\nrevision: 3\n---\nbinary \x00\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if how == "refresh" {
				m.Refresh(p)
			} else {
				m.Reload()
			}
			if m.Note(p) != nil {
				t.Fatal("the binary file loaded as a note")
			}
			if got, err := m.HistoryVersion(p, history.BlobID([]byte(loaded))); err != nil || string(got) != loaded {
				t.Errorf("the version the tree had is not in the history (%v)", err)
			}
		})
	}
}

// Another program writes a note as os.WriteFile does: truncate, then write.
// A refresh whose read falls in between sees an empty note; the write's own
// event then brings the new version. The empty read is no version: no
// overwrite of the note is opened and the history holds no empty version,
// while both versions with content are kept.
func TestHistoryEmptyReadOfAWriteInProgress(t *testing.T) {
	m, dir := newTree(t, map[string]string{"data/machine-id": "m-here\n"})
	p := filepath.Join(dir, "data", "memory", "user", "n.md")
	if _, err := m.Write(WriteRequest{Dimension: User, Key: "n.md", Body: []byte("engine 1\n")}); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(p)
	edited := bytes.Replace(first, []byte("engine 1\n"), []byte("edited in place, same revision\n"), 1)
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	wrote := make(chan error, 1)
	m.seenHook = func(string) { // the refresh has read the empty file
		m.seenHook = nil
		go func() {
			time.Sleep(5 * time.Millisecond)
			wrote <- os.WriteFile(p, edited, 0o644)
		}()
	}
	m.Refresh(p) // the watcher, between the truncate and the write
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	m.Refresh(p) // the write's own event
	if o, open := m.OverwriteAt(p); open {
		t.Errorf("an overwrite is open after a write in progress was read empty: %+v", o)
	}
	vs, err := m.LocalHistory(p)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, v := range vs {
		got[v.Blob] = true
	}
	if got[history.BlobID(nil)] {
		t.Errorf("the history holds the empty read as a version: %+v", vs)
	}
	if !got[history.BlobID(first)] || !got[history.BlobID(edited)] {
		t.Errorf("a version with content is missing: %+v", vs)
	}
}

// A refresh of a note whose file holds the text the tree has (an append's
// refresh before its write, moments after the load) keeps the loaded note
// and judges nothing again; a change in place of the same size, made
// between the load and the write, is still read, refused to a write of
// the loaded revision and hash, and kept in the history by the retry.
func TestRefreshOfUnchangedNoteJudgesNothing(t *testing.T) {
	m, dir := newTree(t, map[string]string{"data/machine-id": "m-here\n"})
	p := filepath.Join(dir, "data", "memory", "user", "n.md")
	if _, err := m.Write(WriteRequest{Dimension: User, Key: "n.md", Body: []byte("engine 1\n")}); err != nil {
		t.Fatal(err)
	}
	before := m.Note(p)
	judged := 0
	m.seenHook = func(string) { judged++ }
	if m.Refresh(p) {
		t.Error("a refresh of an unchanged note reports a change")
	}
	if m.Note(p) != before || judged != 0 {
		t.Fatalf("a refresh of an unchanged note read it again (same note %v, judged %d times)", m.Note(p) == before, judged)
	}
	// Another program edits the note in place, same size, same revision.
	first, _ := os.ReadFile(p)
	edited := bytes.Replace(first, []byte("engine 1\n"), []byte("editor 1\n"), 1)
	if err := os.WriteFile(p, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	req := WriteRequest{Dimension: User, Key: "n.md", Body: []byte("engine 2\n"), ExpectRevision: before.Revision(), ExpectHash: before.Hash()}
	if _, err := m.Write(req); err == nil {
		t.Fatal("a write over a note changed behind the tree was not refused")
	} else if _, stale := IsStale(err); !stale {
		t.Fatalf("want a stale refusal, got %v", err)
	}
	m.Refresh(p) // the retry's refresh
	now := m.Note(p)
	if now == nil || string(now.src) != string(edited) || judged == 0 {
		t.Fatalf("the retry's refresh did not read the edited note (judged %d times)", judged)
	}
	req.ExpectRevision, req.ExpectHash = now.Revision(), now.Hash()
	judgedBefore := judged
	if _, err := m.Write(req); err != nil {
		t.Fatal(err)
	}
	if judged != judgedBefore {
		t.Errorf("the refresh after the write judged its own two versions again (%d times)", judged-judgedBefore)
	}
	got := map[string]bool{}
	vs, err := m.LocalHistory(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		got[v.Blob] = true
	}
	if !got[history.BlobID(first)] || !got[history.BlobID(edited)] {
		t.Errorf("a version is missing from the history: %+v", vs)
	}
}
