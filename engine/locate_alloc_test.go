package engine

import (
	"path/filepath"
	"testing"
)

// cleanRel answers as filepath.Rel and the check it made (within) answer, for
// the clean absolute paths it takes, and leaves every other pair to them.
func TestCleanRelIsFilepathRel(t *testing.T) {
	dirs := []string{"/", "/m", "/m/memory/user", "/m/memory/use", "rel/dir", "/m/./x", "/m/x/"}
	paths := []string{"/", "/m", "/m/memory/user", "/m/memory/user/a.md", "/m/memory/users/a.md",
		"/m/memory/use/a.md", "/m/memory", "/other/a.md", "rel/dir/a.md", "/m/../m/memory/user/a.md", "/m/memory/user/"}
	for _, d := range dirs {
		for _, p := range paths {
			rel, in, sure := cleanRel(d, p)
			if !sure {
				if filepath.IsAbs(d) && filepath.IsAbs(p) && filepath.Clean(d) == d && filepath.Clean(p) == p {
					t.Errorf("cleanRel(%q, %q) not sure of a clean absolute pair", d, p)
				}
				continue
			}
			want, err := filepath.Rel(d, p)
			wantIn := err == nil && want != ".." && !filepath.IsAbs(want) && !startsWithDotDot(want)
			if in != wantIn || in && rel != want {
				t.Errorf("cleanRel(%q, %q) = %q, %v; filepath.Rel: %q, within %v", d, p, rel, in, want, wantIn)
			}
		}
	}
}

// Locating a path allocates nothing per root (it ran filepath.Rel twice on
// each root tried, for every request an editor sends).
func TestRootRelAllocatesNothing(t *testing.T) {
	roots := Paths{DataDir: "/data", ProjectDir: "/p"}.Roots()
	p := "/p/.magicfrog/memory/T-0000/topics/t04/topic-000776.md"
	allocs := testing.AllocsPerRun(100, func() {
		for _, r := range roots {
			if _, ok := r.rel(p); ok {
				return
			}
		}
	})
	if allocs != 0 {
		t.Errorf("Root.rel over every root allocates %v times; want 0", allocs)
	}
}

// A Memory's roots are made once for its mounts: Locate reads them for every
// request. New mounts make new roots.
func TestLocateAllocatesNothing(t *testing.T) {
	p := Paths{DataDir: "/data", ProjectDir: "/p", mounts: &mountTable{}}
	path := "/p/.magicfrog/memory/T-0000/topics/t04/topic-000776.md"
	m := &Memory{Paths: p}
	if _, ok := m.Locate(path); !ok {
		t.Fatalf("%s is not located", path)
	}
	if allocs := testing.AllocsPerRun(100, func() { m.Locate(path) }); allocs != 0 {
		t.Errorf("Locate allocates %v times; want 0", allocs)
	}
	before := len(p.Roots())
	p.setMounts([]Mount{{Dir: "/p/journal", Dimension: Task}})
	roots := p.Roots()
	if len(roots) != before+1 || roots[0].Dir != "/p/journal" {
		t.Errorf("after new mounts the roots are %v; want the mount first, then the %d others", roots, before)
	}
}
