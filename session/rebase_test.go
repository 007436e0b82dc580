package session

import (
	"path/filepath"
	"testing"

	"github.com/magicfrog/mf-lsp/engine/frontmatter"
)

// A late didSave of bytes the disk no longer holds keeps the buffer on the
// later version the disk holds: Keep mine, answered while the editor wrote
// anyway, put revision 6 on disk and based the buffer on it; the editor's
// didSave of its first write (revision 1's bytes) came after. The next save,
// of the buffer at revision 6, is no conflict (Neovim 0.12's 10_conflict was
// asked a second question).
func TestLateSaveKeepsTheBaseKeepMineWrote(t *testing.T) {
	s, data := loaded(t, Options{})
	path := filepath.Join(data, "memory", "user", "conflict.md")
	mine := "---\nrevision: 1\n---\nmy edit\n"
	writeNote(t, path, "---\nrevision: 1\n---\noriginal\n")
	s.Refresh([]string{path})
	uri := string(PathToURI(path))
	if _, err := s.Open(uri, "markdown", 1, []byte("---\nrevision: 1\n---\noriginal\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Change(uri, 2, []byte(mine), true); err != nil {
		t.Fatal(err)
	}
	writeNote(t, path, "---\nrevision: 5\n---\nagent body\n") // the agent
	s.Refresh([]string{path})
	if d, err := s.WillSave(path); err != nil || d.Conflict == nil {
		t.Fatalf("the save over revision 5 is no conflict: %+v, %v", d, err)
	}
	writeNote(t, path, mine) // the editor writes anyway
	r, ok := s.KeepMine(uri)
	if !ok || !r.OnDisk || r.Revision != 6 {
		t.Fatalf("Keep mine: %+v, %v; want revision 6 written to disk", r, ok)
	}
	s.Saved(uri) // the editor's didSave of its write, after Keep mine
	if _, err := s.Change(uri, 3, frontmatter.Apply([]byte(mine), r.Edits), true); err != nil {
		t.Fatal(err)
	}
	if d, err := s.WillSave(path); err != nil || d.Conflict != nil {
		t.Fatalf("the next save, of revision 6, is a conflict again: %+v, %v", d.Conflict, err)
	}
}
