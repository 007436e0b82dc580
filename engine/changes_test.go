package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ChangesSince tells, for every version an index may have been built at, the
// notes that came and went since, as a diff of the two trees would: a
// refresh of one note, a delete, a folder, a write; came-and-went notes in
// neither list; a reload, a version never seen, or a log that no longer
// reaches back is Full (every note, to start over from).
func TestChangesSince(t *testing.T) {
	note := "---\nrevision: 1\n---\nbody\n"
	m, dir := newTree(t, map[string]string{
		"data/machine-id":            "m1\n",
		"data/memory/user/a.md":      note,
		"data/memory/user/b.md":      note,
		"data/memory/account/c.md":   note,
		"data/memory/user/sub/d.md":  note,
		"data/memory/user/sub/e.md":  note,
		"data/memory/agent/notes.md": note,
	})
	user := filepath.Join(dir, "data", "memory", "user")
	put := func(p, text string) {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	trees := map[uint64][]*Note{m.Version(): m.NotesUnordered()} // every version seen, as it was
	step := func(what string, f func()) {
		t.Helper()
		f()
		trees[m.Version()] = m.NotesUnordered()
		now := m.Version()
		for since, before := range trees {
			c := m.ChangesSince(since)
			if c.Version != now {
				t.Fatalf("%s: since %d: version %d, want %d", what, since, c.Version, now)
			}
			if c.Full {
				if got, want := paths(c.Added), paths(m.NotesUnordered()); got != want || len(c.Removed) > 0 {
					t.Fatalf("%s: since %d: Full with added\n%s\nwant every note\n%s", what, since, got, want)
				}
				continue
			}
			wantAdded, wantRemoved := diff(before, trees[now])
			if got := paths(c.Added); got != paths(wantAdded) {
				t.Errorf("%s: since %d: added\n%s\nwant\n%s", what, since, got, paths(wantAdded))
			}
			if got := paths(c.Removed); got != paths(wantRemoved) {
				t.Errorf("%s: since %d: removed\n%s\nwant\n%s", what, since, got, paths(wantRemoved))
			}
		}
	}
	step("one note rewritten", func() {
		put(filepath.Join(user, "a.md"), note+"more\n")
		m.Refresh(filepath.Join(user, "a.md"))
	})
	step("one note deleted", func() {
		os.Remove(filepath.Join(user, "b.md"))
		m.Refresh(filepath.Join(user, "b.md"))
	})
	step("a note that comes", func() {
		put(filepath.Join(user, "new.md"), note)
		m.Refresh(filepath.Join(user, "new.md"))
	})
	step("and goes again", func() {
		os.Remove(filepath.Join(user, "new.md"))
		m.Refresh(filepath.Join(user, "new.md"))
	})
	step("a folder", func() {
		put(filepath.Join(user, "sub", "f.md"), note)
		m.Refresh(filepath.Join(user, "sub"))
	})
	step("a write", func() {
		if _, err := m.Write(WriteRequest{Dimension: User, Key: "w.md", Body: []byte("body\n")}); err != nil {
			t.Fatal(err)
		}
	})
	step("a refresh that changes nothing", func() { m.Refresh(filepath.Join(user, "absent.md")) })
	before := m.Version()
	step("a reload", func() { m.Reload() })
	if c := m.ChangesSince(before); !c.Full {
		t.Errorf("since the version before a reload: not Full")
	}
	if c := m.ChangesSince(0); !c.Full {
		t.Errorf("since 0 (never built): not Full")
	}
	step("after the reload", func() {
		put(filepath.Join(user, "a.md"), note+"again\n")
		m.Refresh(filepath.Join(user, "a.md"))
	})

	// The log is bounded: an index too far behind starts over.
	start := m.Version()
	for i := range maxLoggedNotes + 1 {
		put(filepath.Join(user, "a.md"), fmt.Sprintf("%sedit %d\n", note, i))
		m.Refresh(filepath.Join(user, "a.md"))
	}
	if c := m.ChangesSince(start); !c.Full {
		t.Errorf("%d changes behind: not Full", maxLoggedNotes+1)
	}
	if c := m.ChangesSince(m.Version() - 1); c.Full || len(c.Added) != 1 || len(c.Removed) != 1 {
		t.Errorf("one change behind: %+v, want one note added and one removed", c)
	}
}

// diff is the notes in after and not in before, and those in before and not
// in after, by identity.
func diff(before, after []*Note) (added, removed []*Note) {
	for _, e := range after {
		if !slices.Contains(before, e) {
			added = append(added, e)
		}
	}
	for _, e := range before {
		if !slices.Contains(after, e) {
			removed = append(removed, e)
		}
	}
	return added, removed
}

func paths(notes []*Note) string {
	var ps []string
	for _, e := range notes {
		ps = append(ps, fmt.Sprintf("%s@%p", e.Path, e))
	}
	slices.Sort(ps)
	return strings.Join(ps, "\n")
}
