package roam

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
)

// A journal mounted in place (init --journal) roams as its dimension's
// journal, at the paths export gives it (agent/larry/journal/…), and a day
// arriving from the remote lands in the mounted workspace, in place. A day
// appended on each of two machines (one through mf-lsp, one by the agent
// host writing the file itself) merges as the union of the entries, and
// stays a plain Markdown file as the host keeps it.
func TestMountedJournalRoams(t *testing.T) {
	dir := t.TempDir()
	remote := bareRemote(t, dir)
	a, b := newMachine(t, dir, "a").withJournal(), newMachine(t, dir, "b").withJournal()
	wsA, wsB := filepath.Join(dir, "a", "clawd"), filepath.Join(dir, "b", "clawd")
	a.mountJournal(wsA)
	b.mountJournal(wsB)
	a.appendDaily(engine.Agent, "larry", "journal/2026-12-01.md", "- 09:00 started on a")
	must(t, os.WriteFile(filepath.Join(wsA, "MEMORY.md"), []byte("# Memory\n\nLessons so far.\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(wsA, "AGENTS.md"), []byte("the host's own file, not the journal's\n"), 0o644))
	journal := func(cs []Change) (out []string) {
		for _, c := range cs {
			if strings.HasPrefix(c.Path, "agent/") {
				out = append(out, c.Path)
			}
		}
		return strings.Fields(strings.Join(out, " "))
	}
	want := "[agent/larry/journal/2026-12-01.md agent/larry/journal/MEMORY.md]"
	if got := journal(a.sync(remote).Pushed); fmt.Sprint(got) != want {
		t.Fatalf("a pushed %v, want %s", got, want)
	}
	if got := journal(b.sync(remote).Pulled); fmt.Sprint(got) != want {
		t.Fatalf("b pulled %v, want %s", got, want)
	}
	day := func(ws string) string {
		t.Helper()
		got, err := os.ReadFile(filepath.Join(ws, "memory", "2026-12-01.md"))
		must(t, err)
		return string(got)
	}
	if got := day(wsB); !strings.Contains(got, "started on a") {
		t.Fatalf("b's mounted day: %q", got)
	}
	if got, err := os.ReadFile(filepath.Join(wsB, "MEMORY.md")); err != nil || string(got) != "# Memory\n\nLessons so far.\n" {
		t.Fatalf("b's mounted MEMORY.md: %q %v", got, err)
	}
	for _, p := range []string{filepath.Join(wsB, "AGENTS.md"), filepath.Join(b.data, "memory", "agent", "larry", "journal")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}

	// Each machine appends; b's host writes the file itself.
	a.appendDaily(engine.Agent, "larry", "journal/2026-12-01.md", "- 10:00 more on a")
	f, err := os.OpenFile(filepath.Join(wsB, "memory", "2026-12-01.md"), os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteString("\n- 11:00 the host on b\n")
	must(t, err)
	must(t, f.Close())
	syncUntilQuiet(t, remote, a, b)
	for _, ws := range []string{wsA, wsB} {
		got := day(ws)
		for _, want := range []string{"started on a", "more on a", "the host on b"} {
			if strings.Count(got, want) != 1 {
				t.Errorf("%s: %q once in %q", ws, want, got)
			}
		}
		if strings.HasPrefix(got, "---") {
			t.Errorf("%s: the merged day got frontmatter the host never wrote: %q", ws, got)
		}
	}
	if day(wsA) != day(wsB) {
		t.Errorf("the days differ:\n%q\n%q", day(wsA), day(wsB))
	}
	sameChains(t, a, b)
}

// The editor finds a note's sync conflict by its file: the reverse of the
// mapping names the same portable paths sync does.
func TestPortableOfFiles(t *testing.T) {
	dir := t.TempDir()
	a := newMachine(t, dir, "a").withJournal()
	ws := filepath.Join(dir, "a", "clawd")
	a.mountJournal(ws)
	task := filepath.Join(a.proj, ".magicfrog", "memory")
	for file, want := range map[string]string{
		filepath.Join(task, "notes", "progress.md"):                                   "task/notes/progress.md",
		filepath.Join(task, "T-1", "notes", "own.md"):                                 "task/T-1/notes/own.md",
		filepath.Join(task, "T-9", "x.md"):                                            "",
		filepath.Join(ws, "memory", "2026-12-01.md"):                                  "agent/larry/journal/2026-12-01.md",
		filepath.Join(ws, "MEMORY.md"):                                                "agent/larry/journal/MEMORY.md",
		filepath.Join(ws, "memory", "MEMORY.md"):                                      "",
		filepath.Join(ws, "AGENTS.md"):                                                "",
		filepath.Join(a.data, "memory", "agent", "larry", "x.md"):                     "agent/larry/x.md",
		filepath.Join(a.data, "memory", "agent", "larry", "journal", "2026-12-01.md"): "",
	} {
		got, ok := portableOf(a.m, file)
		if got != want || ok != (want != "") {
			t.Errorf("portableOf(%s) = %q, %v; want %q", file, got, ok, want)
		}
		if want == "" {
			continue
		}
		if back, _, ok := newMapping(a.m).local(want); !ok || back != file {
			t.Errorf("local(%s) = %s, %v; want %s", want, back, ok, file)
		}
	}
}
