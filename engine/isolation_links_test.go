//go:build unix

package engine_test

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"pgregory.net/rapid"

	"github.com/magicfrog/mf-lsp/engine"
)

// The link property (issue 22): the isolation property's trees, with
// symbolic links planted in them — to notes and to folders, relative and
// absolute, chained through other links, to the data directory's own files
// and out of the tree. For every scope,
//
//   - every body in the block, and in every note the scope can see (what
//     read, search and the resources serve), is a note of the participant
//     (the oracle's standing of the note the bytes came from, never the
//     link's), and never a byte of a file outside the notes;
//   - every planted link is a note or a problem (the link itself is a
//     diagnostic), and a folder link is never a note;
//   - no write through a link, to a note or under a folder, succeeds, and
//     no file of the tree changes.

// genLink is one planted link: where (relative to the temporary directory),
// what it points at, as text, and whether it was meant as a folder link.
type genLink struct {
	path, dest string
	folder     bool
}

// outsideMarker is the body of a file outside the tree, which no participant
// may ever read (the data directory's own files are checked by their bytes).
const outsideMarker = "OUTSIDE-BYTES"

// plantLinks draws links into the written tree g at dir.
func plantLinks(t *rapid.T, g genTree, dir string) []genLink {
	// Places a link may sit in: the folders of the notes and the roots.
	placeSet := map[string]bool{"data/memory/agent": true, "data/memory/user": true, "project/.magicfrog/memory": true, "data/memory/device": true}
	for _, n := range g.notes {
		placeSet[filepath.ToSlash(filepath.Dir(n.path))] = true
	}
	places := slices.Sorted(maps.Keys(placeSet))
	// What a link may point at: notes, their folders, the data directory's
	// own files, a file outside, and the links before it (a chain).
	targets := []string{"outside/secret.md", "data/magicfrog.json", "data/machine-id", "data/memory/layers.json", "project/.magicfrog/config.json", "data/memory/agent/nowhere.md"}
	for _, n := range g.notes {
		targets = append(targets, n.path)
	}
	targets = append(targets, places...)
	for _, p := range places {
		if parts := strings.Split(p, "/"); len(parts) > 3 { // agent/<first> as a whole
			targets = append(targets, strings.Join(parts[:4], "/"))
		}
	}
	for _, d := range []string{"outside", "data/memory"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeTest(t, filepath.Join(dir, "outside", "secret.md"), "---\nrevision: 1\n---\n"+outsideMarker+"\n")
	if _, err := os.Stat(filepath.Join(dir, "data/memory/layers.json")); err != nil {
		writeTest(t, filepath.Join(dir, "data/memory/layers.json"), `{"layers": []}`+"\n")
	}
	n := rapid.IntRange(1, 6).Draw(t, "links")
	var links []genLink
	for i := range n {
		place := rapid.SampledFrom(places).Draw(t, "place")
		if err := os.MkdirAll(filepath.Join(dir, place), 0o755); err != nil {
			t.Fatal(err)
		}
		var target string
		var siblings []string // notes beside the link: the one case a link is followed
		for _, n := range g.notes {
			if filepath.ToSlash(filepath.Dir(n.path)) == place {
				siblings = append(siblings, n.path)
			}
		}
		switch {
		case len(siblings) > 0 && rapid.Bool().Draw(t, "sibling"):
			target = rapid.SampledFrom(siblings).Draw(t, "siblingNote")
		case len(links) > 0 && rapid.Bool().Draw(t, "chain"):
			target = rapid.SampledFrom(links).Draw(t, "chainTo").path
		default:
			target = rapid.SampledFrom(targets).Draw(t, "target")
		}
		st, err := os.Stat(filepath.Join(dir, target))
		folder := err == nil && st.IsDir()
		name := "lnk" + strconv.Itoa(i) + ".md"
		if folder {
			name = "lnkdir" + strconv.Itoa(i)
		}
		l := genLink{path: place + "/" + name, folder: folder}
		if rapid.Bool().Draw(t, "absolute") {
			l.dest = filepath.Join(dir, target)
		} else {
			l.dest, _ = filepath.Rel(filepath.Join(dir, place), filepath.Join(dir, target))
		}
		if err := os.Symlink(l.dest, filepath.Join(dir, l.path)); err != nil {
			t.Fatal(err)
		}
		links = append(links, l)
	}
	return links
}

func writeTest(t *rapid.T, p, s string) {
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// snapshot is every regular file below dir (links not followed, hidden
// names skipped: the store's lock) and its bytes.
func snapshot(t *rapid.T, dir string) map[string]string {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && d.Name() != ".magicfrog" && p != dir {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[p] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var linkCases, linkNotes, linkWrites atomic.Int64

func linkProperty(t *rapid.T) {
	linkCases.Add(1)
	g, s, opts, scope, cleanup := drawCase(t, "links")
	defer cleanup()
	dir := filepath.Dir(opts.DataDir)
	links := plantLinks(t, g, dir)
	m, err := engine.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[int]genNote{}
	for _, n := range g.notes {
		byID[n.id] = n
	}
	// The bytes a participant sees are its own notes' only.
	private := map[string]string{}
	for _, f := range []string{"data/machine-id", "data/magicfrog.json", "project/.magicfrog/config.json", "data/memory/layers.json"} {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		private[f] = string(b)
	}
	check := func(what, text string) {
		if strings.Contains(text, outsideMarker) {
			t.Fatalf("%s holds the bytes of a file outside the tree (scope %+v, links %+v):\n%s", what, s, links, text)
		}
		for _, sm := range bodyRE.FindAllStringSubmatch(text, -1) {
			id, _ := strconv.Atoi(sm[1])
			if st, ref := g.standing(byID[id], s); st != mine {
				t.Fatalf("%s holds %s (%s), which is not the participant's (scope %+v, links %+v):\n%s", what, byID[id].path, ref, s, links, text)
			}
		}
	}
	blk, err := m.Render(engine.RenderOptions{Scope: scope, Budget: s.budget, Today: "2026-11-30"})
	if err != nil {
		t.Fatal(err)
	}
	check("the block", blk.Text)
	for _, e := range m.Notes() {
		if !m.StatusOf(e, scope).InScope {
			continue
		}
		check(e.Ref(), string(e.TextOrNil()))
		if e.Dimension != engine.Device { // device notes hold no configuration
			for f, b := range private {
				if strings.TrimSpace(b) != "" && bytes.Contains(e.TextOrNil(), []byte(strings.TrimSpace(b))) {
					t.Fatalf("%s holds the bytes of %s (links %+v)", e.Ref(), f, links)
				}
			}
		}
	}
	// Each link is a note (followed inside its owner's scope) or a problem.
	for _, l := range links {
		p := filepath.Join(dir, l.path)
		e := m.Note(p)
		_, isProblem := m.ProblemAt(p)
		switch {
		case e != nil && l.folder:
			t.Fatalf("folder link %s -> %s loaded as a note", l.path, l.dest)
		case e != nil:
			linkNotes.Add(1)
		case !isProblem && (l.folder || strings.HasSuffix(l.path, ".md")):
			t.Fatalf("link %s -> %s is neither a note nor a problem", l.path, l.dest)
		}
	}
	// No write goes through a link, and nothing in the tree changes.
	before := snapshot(t, dir)
	for _, l := range links {
		var paths []string
		if l.folder {
			paths = append(paths, filepath.Join(dir, l.path, "w.md"))
			entries, _ := os.ReadDir(filepath.Join(dir, l.path))
			for _, en := range entries {
				if en.Type().IsRegular() && strings.HasSuffix(en.Name(), ".md") {
					paths = append(paths, filepath.Join(dir, l.path, en.Name()))
				}
			}
		} else {
			paths = append(paths, filepath.Join(dir, l.path))
		}
		for _, p := range paths {
			loc, ok := m.Locate(p)
			if !ok || loc.Legacy {
				continue
			}
			for _, rev := range []int{0, 1} {
				linkWrites.Add(1)
				req := engine.WriteRequest{Dimension: loc.Dimension, Owner: loc.Owner, Key: loc.Key, Body: []byte(fmt.Sprintf("WRITTEN-THROUGH %s\n", l.path)), ExpectRevision: rev, Register: true}
				if _, err := m.Write(req); err == nil {
					t.Fatalf("a write of %s (revision %d) through the link %s -> %s succeeded", p, rev, l.path, l.dest)
				}
			}
		}
	}
	after := snapshot(t, dir)
	for p, b := range before {
		if filepath.Base(p) == "magicfrog.json" || filepath.Base(p) == "config.json" {
			continue // Register may add the ID
		}
		if after[p] != b {
			t.Fatalf("%s changed by a write through a link (links %+v):\n%s", p, links, after[p])
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Fatalf("%s was made by a write through a link (links %+v)", p, links)
		}
	}
}

// TestLinkIsolationProperty runs the link property over generated trees
// (-rapid.checks overrides; -short runs 50). A few seconds.
func TestLinkIsolationProperty(t *testing.T) {
	if f := flag.Lookup("rapid.checks"); f != nil && f.Value.String() == f.DefValue {
		n := "300"
		if testing.Short() {
			n = "50"
		}
		f.Value.Set(n)
		defer f.Value.Set(f.DefValue)
	}
	linkCases.Store(0)
	linkNotes.Store(0)
	linkWrites.Store(0)
	rapid.Check(t, linkProperty)
	t.Logf("%d generated trees, %d links followed as notes, %d writes through links refused", linkCases.Load(), linkNotes.Load(), linkWrites.Load())
}
