package session

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A completion's items are taken from a pool and given back by Release (the
// language server's handler, once it converted them): a keystroke's answer of
// MaxCompletions items then allocates no array of them.
func TestCompletionReleaseReusesItsItems(t *testing.T) {
	fill := func() *Completion {
		c := new(Completion)
		for range MaxCompletions {
			c.add(CompletionItem{Label: "topics/a", Sort: "topics/a\x000"})
		}
		return c
	}
	kept := Completion{Items: []CompletionItem{{Label: "revision"}}}
	kept.Release()
	if len(kept.Items) != 1 {
		t.Error("Release dropped items add did not take")
	}
	fill().Release()
	if raceEnabled {
		return
	}
	allocs := testing.AllocsPerRun(100, func() {
		c := fill()
		if len(c.Items) != MaxCompletions {
			t.Fatalf("%d items; want %d", len(c.Items), MaxCompletions)
		}
		c.Release()
		if c.Items != nil {
			t.Fatal("items kept after Release")
		}
	})
	if allocs > 1 { // the Completion itself
		t.Errorf("a completion of %d items released allocates %v times; want its items reused", MaxCompletions, allocs)
	}
}

// A hover's links to the notes of its chain build no escaping tables each.
func TestFileLinkBuildsNoReplacer(t *testing.T) {
	path := "/data/memory/user/topics/a (draft).md"
	if got := fileLink("a", path); got != "[a](file:///data/memory/user/topics/a%20%28draft%29.md)" {
		t.Errorf("fileLink = %s", got)
	}
	if allocs := testing.AllocsPerRun(100, func() { fileLink("a", path) }); allocs > 4 {
		t.Errorf("fileLink allocates %v times; want the escaper built once", allocs)
	}
}

// The notes a references answer points into are read, when the server keeps
// only their frontmatter, into lent buffers that ReleasePlaces gives back (the
// language server's handler, once it counted their positions): a request
// over notes of 8-64 KB then allocates a fraction of their text, not all of
// it again each time (engine.Note.BorrowText). The places are the same and
// their text is the notes' own until released.
func TestReferencesReleaseReusesTheirTexts(t *testing.T) {
	s, data := loaded(t, Options{})
	user := filepath.Join(data, "memory", "user")
	filler := strings.Repeat("more of a long note that links to the target\n", 600) // 27 KB
	target := filepath.Join(user, "target.md")
	writeNote(t, target, tone+"The target.\n"+filler)
	paths := []string{target}
	for i := range 4 {
		p := filepath.Join(user, fmt.Sprintf("from%d.md", i))
		writeNote(t, p, tone+"See [[target]].\n"+filler)
		paths = append(paths, p)
	}
	s.Refresh(paths)
	snap, err := s.Snapshot(target)
	if err != nil {
		t.Fatal(err)
	}
	ps := References(snap, 0, false)
	if len(ps) != 4 {
		t.Fatalf("%d references; want the 4 backlinks", len(ps))
	}
	for _, p := range ps {
		want, err := os.ReadFile(p.Path)
		if err != nil || string(p.Src) != string(want) || snap.Memory.Note(p.Path).Resident() {
			t.Fatalf("%s: a place's text is not the note's (%v), or the note is resident", p.Path, err)
		}
	}
	ReleasePlaces(ps)
	ReleasePlaces(ps) // twice is harmless
	if ps[0].Src != nil {
		t.Error("a released place kept its text")
	}
	if raceEnabled {
		return
	}
	// The least of a few batches: the session's own background work (the
	// watcher's events for the notes just written, the keep pass) allocates
	// into the same counter now and then, and a batch it lands in says
	// nothing of the requests (CI once read 28 KB a request so).
	const runs, batches = 20, 5
	perRun := ^uint64(0)
	for range batches {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range runs {
			ReleasePlaces(References(snap, 0, false))
		}
		runtime.ReadMemStats(&after)
		perRun = min(perRun, (after.TotalAlloc-before.TotalAlloc)/runs)
	}
	t.Logf("references over 4 notes allocate %d bytes a request", perRun)
	if texts := uint64(4 * len(filler)); perRun > texts/4 {
		t.Errorf("references over 4 notes of %d KB allocate %d KB a request; want their texts reused (under %d KB)", len(filler)>>10, perRun>>10, texts>>12)
	}
}
