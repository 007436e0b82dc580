package session

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestNavigationIndexesMatchTheTree: the backlink index and completion's
// candidates, kept in step with the tree by the changes it tells
// (engine.Memory.ChangesSince), answer after writes, deletes, renames, folder
// events and configuration reloads (where the tree cannot tell and they build
// again), read every step or several steps behind, what computing them from
// the whole tree answers: the candidates of the whole effective view, and for
// every note the links of every note in scope that resolve to it.
func TestNavigationIndexesMatchTheTree(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		data, err := os.MkdirTemp("", "mf-nav-index-")
		if err != nil {
			rt.Fatal(err)
		}
		defer os.RemoveAll(data)
		mem := filepath.Join(data, "memory")
		os.MkdirAll(mem, 0o755)
		os.WriteFile(filepath.Join(data, "magicfrog.json"), []byte(`{"agents": ["larry", "bob"]}`), 0o644)
		os.WriteFile(filepath.Join(data, "machine-id"), []byte("m1\n"), 0o644)
		places := []string{"account", "user", "agent", "agent/larry", "agent/bob", "device"}
		keys := []string{"a.md", "b.md", "notes/c.md", "notes/D.md", "notes/d.md"}
		pathOf := func(place, key string) string {
			return filepath.Join(mem, filepath.FromSlash(place), filepath.FromSlash(key))
		}
		text := func(rt *rapid.T, place string) string {
			fm := "---\nrevision: 1\n"
			if place == "device" {
				fm += "machine: " + rapid.SampledFrom([]string{"m1", "m2"}).Draw(rt, "machine") + "\n"
			}
			var body strings.Builder
			for i := range rapid.IntRange(0, 3).Draw(rt, "links") {
				k := rapid.SampledFrom(keys).Draw(rt, fmt.Sprint("to", i))
				if rapid.Bool().Draw(rt, fmt.Sprint("wiki", i)) {
					fmt.Fprintf(&body, "See [[%s]].\n", strings.TrimSuffix(k, ".md"))
				} else {
					fmt.Fprintf(&body, "See [x](%s).\n", rapid.SampledFrom([]string{k, "../" + k, "../user/" + k, "notes/" + k}).Draw(rt, fmt.Sprint("rel", i)))
				}
			}
			return fm + "---\n" + body.String()
		}
		write := func(p, s string) {
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
				rt.Fatal(err)
			}
		}
		for i := range rapid.IntRange(0, 12).Draw(rt, "notes") {
			place := rapid.SampledFrom(places).Draw(rt, fmt.Sprint("place", i))
			write(pathOf(place, rapid.SampledFrom(keys).Draw(rt, fmt.Sprint("key", i))), text(rt, place))
		}
		s := New(Options{Logf: func(string, ...any) {}})
		s.SetSettings(Settings{DataDir: data, Participant: "larry", Today: "2026-11-30"})
		if _, err := s.Load(); err != nil {
			rt.Fatal(err)
		}
		defer s.Shutdown()
		check := func(step int) {
			snap, err := s.Snapshot("")
			if err != nil {
				rt.Fatal(err)
			}
			m, sc := snap.Memory, snap.Participant
			got := snap.tree.candidates.lists(snap).list()
			want := viewCandidates(m.View(sc))
			if a, b := candidateRows(got), candidateRows(want); a != b {
				rt.Fatalf("step %d: candidates\n%s\nwant (from the whole view)\n%s", step, a, b)
			}
			for _, target := range m.Notes() {
				var want []string
				for _, src := range m.Notes() {
					if !inScope(m, sc, src) {
						continue
					}
					for _, l := range linksOf(src.TextOrNil(), src.BodyStart()) {
						if t := resolveLink(m, sc, src.Path, l); t != nil && t.Path == target.Path {
							want = append(want, fmt.Sprint(src.Path, l.Span.Start))
						}
					}
				}
				var got []string
				for _, b := range backlinks(snap, target) {
					got = append(got, fmt.Sprint(b.from.Path, b.link.Span.Start))
				}
				sort.Strings(want)
				sort.Strings(got)
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					rt.Fatalf("step %d: backlinks of %s\n%v\nwant (from every note)\n%v", step, target.Ref(), got, want)
				}
			}
		}
		check(0)
		// The indexes follow the tree by the changes it tells (a delta since
		// the version they hold, which may be several steps behind: not every
		// step reads them), or build again when it cannot tell (a reload).
		// A small compaction threshold merges the recomputed keys into the
		// sorted list now and then.
		at := rapid.IntRange(1, 6).Draw(rt, "compactAt")
		if snap, err := s.Snapshot(""); err == nil {
			c := &snap.tree.candidates
			c.mu.Lock()
			c.compactAt = at
			c.mu.Unlock()
		} else {
			rt.Fatal(err)
		}
		roster := []string{`{"agents": ["larry", "bob"]}`, `{"agents": ["larry"]}`, `{"agents": ["larry", "bob"], "shared": ["bob"]}`}
		for step := 1; step <= rapid.IntRange(1, 12).Draw(rt, "steps"); step++ {
			place := rapid.SampledFrom(places).Draw(rt, "opPlace")
			p := pathOf(place, rapid.SampledFrom(keys).Draw(rt, "opKey"))
			var changed []string
			switch rapid.SampledFrom([]string{"write", "write", "delete", "rename", "folder", "reload"}).Draw(rt, "op") {
			case "write":
				write(p, text(rt, place))
				changed = []string{p}
			case "delete":
				os.Remove(p)
				changed = []string{p}
			case "rename":
				to := pathOf(place, rapid.SampledFrom(keys).Draw(rt, "toKey"))
				os.MkdirAll(filepath.Dir(to), 0o755)
				os.Rename(p, to)
				changed = []string{p, to}
			case "folder": // a folder's event: every note below it read again
				write(pathOf(place, "notes/c.md"), text(rt, place))
				changed = []string{pathOf(place, "notes")}
			case "reload": // a configuration file: the tree cannot tell what changed
				file := filepath.Join(data, "magicfrog.json")
				write(file, rapid.SampledFrom(roster).Draw(rt, "roster"))
				changed = []string{file}
			}
			s.Refresh(changed)
			if rapid.IntRange(0, 2).Draw(rt, "read") > 0 {
				check(step)
			}
		}
		check(-1)
		// And a reload always, read after a delta or several.
		file := filepath.Join(data, "magicfrog.json")
		write(file, rapid.SampledFrom(roster).Draw(rt, "lastRoster"))
		s.Refresh([]string{file})
		check(-2)
	})
}

// candidateRows is a candidate list as text, one row each, in sort order
// (ties by path: their order among themselves is not part of the answer).
func candidateRows(list []candidate) string {
	rows := make([]string, 0, len(list))
	for _, c := range list {
		rows = append(rows, c.sort+" | "+c.note.Path+" | "+c.standing+" | "+fmt.Sprint(c.winner))
	}
	if !sort.StringsAreSorted(rows) {
		// the list must be in sort order; rows of equal sort may come either way
		for i := 1; i < len(list); i++ {
			if list[i-1].sort > list[i].sort {
				return "not sorted at " + list[i].sort
			}
		}
		sort.Strings(rows)
	}
	return strings.Join(rows, "\n")
}
