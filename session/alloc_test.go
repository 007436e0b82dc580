package session

import "testing"

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
