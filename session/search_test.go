package session

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
)

// TestSearchPlacesThePassageInTheFile: a hit's body lines become the file's
// lines (after the frontmatter, whatever its length; CRLF files; a note with
// no frontmatter), its range ending at the end of its last line in UTF-16
// code units; another agent's note is no hit; an undecided participant is
// refused.
func TestSearchPlacesThePassageInTheFile(t *testing.T) {
	tr := openTestTree(t)
	mem := func(rel, src string) string {
		p := filepath.Join(tr.data, "memory", rel)
		writeFile(t, p, src)
		tr.m.Refresh(p)
		return p
	}
	cases := []struct {
		name, rel, src  string
		start, end, chr int // file lines from 0; end character in UTF-16
	}{
		{"four frontmatter lines", "agent/larry/a.md",
			"---\nrevision: 1\nupdated: 2026-11-01T00:00:00.000Z\n---\nintro\n\n\nzebra crossing 🐸 here\n", 7, 7, 22},
		{"CRLF", "agent/larry/b.md",
			"---\r\nrevision: 1\r\n---\r\n\r\n\r\nwombat burrow\r\nwombat den\r\n", 5, 6, 10},
		{"no frontmatter", "agent/larry/c.md",
			"\n\nquokka smile\n", 2, 2, 12},
	}
	mem("agent/moe/z.md", "---\nrevision: 1\n---\nzebra crossing wombat burrow quokka\n")
	snap := &Snapshot{Memory: tr.m, Participant: engine.Scope{Task: "T-7", Agents: []string{"larry"}}}
	for _, c := range cases {
		p := mem(c.rel, c.src)
		query := map[string]string{"agent/larry/a.md": "zebra crossing", "agent/larry/b.md": "wombat", "agent/larry/c.md": "quokka smile"}[c.rel]
		res, err := Search(snap, SearchArgs{Query: query})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(res.Hits) != 1 {
			t.Fatalf("%s: %d hits %+v; want larry's note alone", c.name, len(res.Hits), res.Hits)
		}
		h := res.Hits[0]
		want := LineRange{Start: LinePos{Line: c.start}, End: LinePos{Line: c.end, Character: c.chr}}
		if h.Path != p || h.Location.URI != PathToURI(p) || h.Location.Range != want {
			t.Errorf("%s: %s %s %+v; want %s %+v", c.name, h.Path, h.Location.URI, h.Location.Range, p, want)
		}
	}
	refused := errors.New("several agents")
	if _, err := Search(&Snapshot{Memory: tr.m, Refused: refused}, SearchArgs{Query: "zebra"}); err != refused {
		t.Errorf("an undecided participant: %v; want its refusal", err)
	}
}

// TestSearcherKeptWhileItsScopeIs: a tree keeps one search participant (and
// its index) while the scope, today and memory stay; any change makes another.
func TestSearcherKeptWhileItsScopeIs(t *testing.T) {
	tr := openTestTree(t)
	var c searcherCache
	larry := engine.Scope{Task: "T-7", Agents: []string{"larry"}}
	a, err := c.get(tr.m, larry, "2026-11-30")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := c.get(tr.m, larry, "2026-11-30"); b != a {
		t.Error("the same scope and today made a second participant")
	}
	for name, s := range map[string]engine.Scope{"another agent": {Task: "T-7", Agents: []string{"moe"}}, "no task": {Agents: []string{"larry"}}} {
		if b, _ := c.get(tr.m, s, "2026-11-30"); b == a || b.Agent() != s.Agents[0] {
			t.Errorf("%s: answered by the participant of %v", name, b.Scope())
		}
	}
	if b, _ := c.get(tr.m, larry, "2026-12-01"); b == a {
		t.Error("another today kept the participant")
	}
	if _, err := c.get(tr.m, engine.Scope{Agents: []string{"larry", "moe"}}, ""); err == nil {
		t.Error("two agents made a participant")
	}
}
