package session

import (
	"path/filepath"
	"testing"

	"github.com/magicfrog/mf-lsp/diagnostics"
)

// An open buffer's links are found once per version of its text: the
// diagnostics' broken links and the requests on that version share them,
// and the next version is read again.
func TestBufferLinksAreFoundOncePerVersion(t *testing.T) {
	s, data := loaded(t, Options{})
	path := filepath.Join(data, "memory", "user", "guide.md")
	text := "---\nrevision: 1\n---\nSee [gone](gone.md) and [[style]].\n"
	writeNote(t, path, text)
	s.Refresh([]string{path})
	uri := string(PathToURI(path))
	if _, err := s.Open(uri, "markdown", 1, []byte(text)); err != nil {
		t.Fatal(err)
	}
	snap := func() *Snapshot {
		t.Helper()
		sn, err := s.Snapshot(path)
		if err != nil {
			t.Fatal(err)
		}
		return sn
	}
	first := snap()
	broken := 0
	for _, f := range Findings(first) {
		if f.Code == diagnostics.CodeBrokenLink {
			broken++
		}
	}
	if broken != 1 {
		t.Fatalf("%d broken-link findings, want gone.md's", broken)
	}
	if first.links == nil || first.links.md == nil {
		t.Fatal("the diagnostics did not keep the buffer's Markdown links for its requests")
	}
	all := snap().noteLinks()
	if len(all) != 2 || all[0].Dest != "gone.md" || all[1].Dest != "style" {
		t.Fatalf("links %+v, want gone.md's then the wikilink", all)
	}
	if again := first.noteLinks(); &again[0] != &all[0] {
		t.Error("a second snapshot of the same version read the links again")
	}

	edited := "---\nrevision: 1\n---\nSee [[plan]].\n"
	if _, err := s.Change(uri, 2, []byte(edited), true); err != nil {
		t.Fatal(err)
	}
	if got := snap().noteLinks(); len(got) != 1 || got[0].Dest != "plan" {
		t.Fatalf("links after the edit %+v, want the new version's wikilink only", got)
	}
}
