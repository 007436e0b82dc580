package roam

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/magicfrog/mf-lsp/engine"
)

const journalLayers = `{"layers": [
  {"name": "core", "prefix": ""},
  {"name": "skills", "prefix": "skills/"},
  {"name": "journal", "prefix": "journal/", "kind": "fractal"}
]}
`

// withJournal gives a machine the journal layer.
func (mc *machine) withJournal() *machine {
	must(mc.t, os.WriteFile(filepath.Join(mc.data, "memory", "layers.json"), []byte(journalLayers), 0o644))
	mc.reopen()
	return mc
}

// appendDaily appends a block to a daily note as mf-lsp append does: the
// title when the note is new, then each block after one blank line.
func (mc *machine) appendDaily(d engine.Dimension, scope, key, text string) {
	mc.t.Helper()
	body := "# 2026-12-01 (Tuesday)\n\n"
	if n := mc.noteOf(d, scope, key); n != nil {
		body = strings.TrimRight(string(n.BodyOrNil()), "\n") + "\n\n"
	}
	mc.write(d, scope, key, body+text+"\n")
}

// Two machines append to the same day's daily note between syncs: the note
// merges as the union of the entries, in time order, with no conflict.
func TestSyncDailyAppendsMerge(t *testing.T) {
	for _, tc := range []struct {
		name  string
		d     engine.Dimension
		scope string
		key   string
	}{
		{"task", engine.Task, "", "journal/2026-12-01.md"},
		{"agent", engine.Agent, "larry", "journal/2026-12-01.md"},
		{"user", engine.User, "", "journal/2026-12-01.md"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			remote := bareRemote(t, dir)
			a, b := newMachine(t, dir, "a").withJournal(), newMachine(t, dir, "b").withJournal()
			a.appendDaily(tc.d, tc.scope, tc.key, "- 09:00 a: started")
			syncUntilQuiet(t, remote, a, b)

			a.appendDaily(tc.d, tc.scope, tc.key, "- 10:00 a: built the parser")
			b.appendDaily(tc.d, tc.scope, tc.key, "- 09:30 b: read the issue")
			b.appendDaily(tc.d, tc.scope, tc.key, "- 11:00 b: wrote tests\n  with a second line")
			a.sync(remote)
			rep := b.sync(remote)
			if len(rep.Conflicts) != 0 {
				t.Fatalf("conflicts: %+v", rep.Conflicts)
			}
			syncUntilQuiet(t, remote, a, b)
			sameChains(t, a, b)
			n := b.noteOf(tc.d, tc.scope, tc.key)
			want := "# 2026-12-01 (Tuesday)\n\n- 09:00 a: started\n\n- 09:30 b: read the issue\n\n- 10:00 a: built the parser\n\n- 11:00 b: wrote tests\n  with a second line\n"
			if got := string(n.BodyOrNil()); got != want {
				t.Errorf("merged daily:\n%s\nwant:\n%s", got, want)
			}
			if n.Revision() != 4 { // a at 2, b at 3: above both
				t.Errorf("revision %d", n.Revision())
			}
		})
	}
}

// Both machines start the day's note before either syncs: the title is
// written once, the entries of both follow.
func TestSyncDailyCreatedOnBoth(t *testing.T) {
	dir := t.TempDir()
	remote := bareRemote(t, dir)
	a, b := newMachine(t, dir, "a").withJournal(), newMachine(t, dir, "b").withJournal()
	a.write(engine.User, "", "layers-seen.md", "x\n")
	syncUntilQuiet(t, remote, a, b)
	key := "journal/2026-12-01.md"
	a.appendDaily(engine.Task, "", key, "- 08:00 a: up")
	b.appendDaily(engine.Task, "", key, "- 07:45 b: up earlier")
	a.sync(remote)
	if rep := b.sync(remote); len(rep.Conflicts) != 0 {
		t.Fatalf("conflicts: %+v", rep.Conflicts)
	}
	n := b.noteOf(engine.Task, "", key)
	want := "# 2026-12-01 (Tuesday)\n\n- 07:45 b: up earlier\n\n- 08:00 a: up\n"
	if got := string(n.BodyOrNil()); got != want {
		t.Errorf("merged daily:\n%s\nwant:\n%s", got, want)
	}
}

// A change to the same existing line on both machines is still a conflict;
// an edit of an existing line on one side and an append on the other merge.
func TestSyncDailySameLineConflicts(t *testing.T) {
	dir := t.TempDir()
	remote := bareRemote(t, dir)
	a, b := newMachine(t, dir, "a").withJournal(), newMachine(t, dir, "b").withJournal()
	key := "journal/2026-12-01.md"
	a.appendDaily(engine.Task, "", key, "- 09:00 started")
	syncUntilQuiet(t, remote, a, b)

	a.write(engine.Task, "", key, "# 2026-12-01 (Tuesday)\n\n- 09:00 started the parser\n")
	b.appendDaily(engine.Task, "", key, "- 10:00 b: more")
	a.sync(remote)
	if rep := b.sync(remote); len(rep.Conflicts) != 0 {
		t.Fatalf("edit + append: conflicts %+v", rep.Conflicts)
	}
	syncUntilQuiet(t, remote, a, b)
	if got := string(a.noteOf(engine.Task, "", key).BodyOrNil()); got != "# 2026-12-01 (Tuesday)\n\n- 09:00 started the parser\n\n- 10:00 b: more\n" {
		t.Errorf("edit + append:\n%s", got)
	}

	a.write(engine.Task, "", key, "# 2026-12-01 (Tuesday)\n\n- 09:00 started the lexer\n\n- 10:00 b: more\n")
	b.write(engine.Task, "", key, "# 2026-12-01 (Tuesday)\n\n- 09:00 started the printer\n\n- 10:00 b: more\n")
	a.sync(remote)
	rep := b.sync(remote)
	if len(rep.Conflicts) != 1 {
		t.Fatalf("same line on both: conflicts %+v", rep.Conflicts)
	}
}

func TestMergeDailyUntimed(t *testing.T) {
	base := []byte("---\nrevision: 1\nupdated: 2026-12-01T08:00:00.000Z\n---\n# 2026-12-01 (Tuesday)\n\nfirst\n")
	ours := []byte("---\nrevision: 2\nupdated: 2026-12-01T10:00:00.000Z\n---\n# 2026-12-01 (Tuesday)\n\nfirst\n\nours, later\n")
	theirs := []byte("---\nrevision: 3\nupdated: 2026-12-01T09:00:00.000Z\n---\n# 2026-12-01 (Tuesday)\n\nfirst\n\ntheirs one\n\ntheirs two\n")
	got, ok := mergeDaily(base, ours, theirs, time.Date(2026, 12, 1, 11, 0, 0, 0, time.UTC))
	if !ok {
		t.Fatal("no merge")
	}
	_, body, _ := split(got)
	if string(body) != "# 2026-12-01 (Tuesday)\n\nfirst\n\ntheirs one\n\ntheirs two\n\nours, later\n" || revision(got) != 4 {
		t.Errorf("merged:\n%s", got)
	}
}

func TestIsDaily(t *testing.T) {
	// As the engine orders them: longest prefix first.
	ls := engine.Layers{{Name: "journal", Prefix: "journal/", Kind: engine.KindFractal}, {Name: "skills", Prefix: "skills/"}, {Name: "core"}}
	for rel, want := range map[string]bool{
		"task/journal/2026-12-01.md":          true,
		"task/T-1/journal/2026-12-01.md":      true,
		"task/T-1/T-1/journal/2026-12-01.md":  false,
		"agent/larry/journal/2026-12-01.md":   true,
		"agent/journal/2026-12-01.md":         true,
		"user/journal/2026-12-01.md":          true,
		"user/journal/refined/2026-12-01.md":  false,
		"user/journal/MEMORY.md":              false,
		"user/notes/2026-12-01.md":            false,
		"magicfrog.json":                      false,
		"device/journal/2026-12-01.md":        false,
		"account/journal/sticky-notes/gpu.md": false,
	} {
		if got := isDaily(ls, rel); got != want {
			t.Errorf("isDaily(%s) = %v", rel, got)
		}
	}
}

// Property: merging two sides' appended entries keeps every entry once, each
// side's entries in their own order.
func TestMergeByTimeKeepsEveryEntry(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		gen := rapid.SliceOf(rapid.SampledFrom([]string{"- 09:00 x", "- 10:30 y", "note", "## 08:15 z", "- 9:05 w", "plain\ntwo lines"}))
		a, b := gen.Draw(t, "a"), gen.Draw(t, "b")
		for i := range a {
			a[i] += " a" + strconv.Itoa(i)
		}
		for i := range b {
			b[i] += " b" + strconv.Itoa(i)
		}
		out := mergeByTime(a, b)
		if len(out) != len(a)+len(b) {
			t.Fatalf("%d entries from %d and %d", len(out), len(a), len(b))
		}
		ia, ib := 0, 0
		for _, e := range out {
			switch {
			case ia < len(a) && e == a[ia]:
				ia++
			case ib < len(b) && e == b[ib]:
				ib++
			default:
				t.Fatalf("entry %q out of its side's order in %q", e, out)
			}
		}
	})
}
