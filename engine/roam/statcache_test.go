package roam

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The stat cache never hides an edit: a same-size edit of a cached file (old
// modification time) and of a fresh one (inside the racy window) are sent.
func TestStatCacheSeesEdits(t *testing.T) {
	dir := t.TempDir()
	remote := bareRemote(t, dir)
	a := newMachine(t, dir, "a")
	old := filepath.Join(a.data, "memory", "user", "old.md")
	fresh := filepath.Join(a.data, "memory", "user", "fresh.md")
	for _, p := range []string{old, fresh} {
		must(t, os.WriteFile(p, []byte("---\nrevision: 1\n---\naaaa\n"), 0o644))
	}
	hourAgo := time.Now().Add(-time.Hour)
	must(t, os.Chtimes(old, hourAgo, hourAgo))
	a.sync(remote)
	a.sync(remote) // now old.md is in the stat cache
	st, err := LoadState(a.data)
	must(t, err)
	if _, ok := st.Stat["user/old.md"]; !ok {
		t.Fatalf("old.md is not cached: %v", st.Stat)
	}
	if _, ok := st.Stat["user/fresh.md"]; ok {
		t.Fatal("a file modified within the racy window was cached")
	}
	for _, p := range []string{old, fresh} {
		must(t, os.WriteFile(p, []byte("---\nrevision: 2\n---\nbbbb\n"), 0o644))
	}
	rep := a.sync(remote)
	if len(rep.Pushed) != 2 {
		t.Fatalf("pushed %+v", rep.Pushed)
	}
}
