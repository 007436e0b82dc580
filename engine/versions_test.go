package engine

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestVersionsKeepTheirOrderAcrossRefresh: a key's versions are listed in the
// order they were loaded; a version that goes away leaves the others in order,
// wherever it stood, and one that comes back comes last.
func TestVersionsKeepTheirOrderAcrossRefresh(t *testing.T) {
	note := "---\nrevision: 1\n---\nbody\n"
	m, dir := newTree(t, map[string]string{
		"data/memory/account/style.md": note,
		"data/memory/user/style.md":    note,
		"data/memory/agent/style.md":   note,
	})
	mem := filepath.Join(dir, "data", "memory")
	account, user, agent := filepath.Join(mem, "account", "style.md"), filepath.Join(mem, "user", "style.md"), filepath.Join(mem, "agent", "style.md")
	versions := func() []string {
		var out []string
		for _, e := range m.Versions("style.md") {
			out = append(out, e.Path)
		}
		return out
	}
	loaded := versions()
	if len(loaded) != 3 {
		t.Fatalf("versions %v; want the three notes of the key", loaded)
	}
	for i := range 3 { // the first, then the middle, then the last
		gone := loaded[i]
		src := read(t, gone)
		if err := os.Remove(gone); err != nil {
			t.Fatal(err)
		}
		m.Refresh(gone)
		var want []string
		for _, p := range loaded {
			if p != gone {
				want = append(want, p)
			}
		}
		if got := versions(); !reflect.DeepEqual(got, want) {
			t.Errorf("without %s: versions %v; want %v", gone, got, want)
		}
		if err := os.WriteFile(gone, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		m.Refresh(gone)
		if got := versions(); !reflect.DeepEqual(got, append(want, gone)) {
			t.Errorf("%s back: versions %v; want %v", gone, got, append(want, gone))
		}
		loaded = versions()
	}
	for _, p := range []string{account, user, agent} {
		os.Remove(p)
		m.Refresh(p)
	}
	if got := m.Versions("style.md"); len(got) != 0 {
		t.Errorf("every version removed: versions %v", got)
	}
	if len(m.byKey) != 0 || len(m.moreByKey) != 0 {
		t.Errorf("every version removed: the key is still indexed (%d, %d)", len(m.byKey), len(m.moreByKey))
	}
}
