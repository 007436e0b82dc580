package participant_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/internal/ondemandtrace"
	"github.com/magicfrog/mf-lsp/engine/participant"
)

// TestSearchOverUnhashedNotes: an agent's server loads its scope as render
// does, taking no hash of a large note whose stamp it trusts
// (engine.Options.SumsOnDemand). Its first search reads each such note once
// (the text it analyzes is the one it hashes); a first search of a process
// that finds the stored index reads none (each note is known by the stamp
// the stored copy was written under); a note changed since is read and
// found. Besides, each hit is read once for its snippet, which gives its
// hash too. The answers are those of a tree loaded with every hash.
func TestSearchOverUnhashedNotes(t *testing.T) {
	was := ondemandtrace.LoadClock
	ondemandtrace.LoadClock = func() time.Time { return time.Now().Add(time.Hour) } // every file's stamp trusted
	t.Cleanup(func() { ondemandtrace.LoadClock = was })
	dir := t.TempDir()
	data, project := filepath.Join(dir, "data"), filepath.Join(dir, "project")
	const n = 20
	for i := range n {
		body := strings.Repeat(fmt.Sprintf("line %d of note %d about kestrels and owls\n", i, i), 200) // 8 KB: read on demand
		if i == 7 {
			body += "a word only note seven has: merganser\n"
		}
		writeNote(t, filepath.Join(data, "memory", "user", "notes", fmt.Sprintf("n%d.md", i)), body)
	}
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	search := func(sums bool, q string) (*participant.SearchResult, int64) {
		t.Helper()
		m, err := engine.Open(engine.Options{DataDir: data, ProjectDir: project, BodiesOnDemand: true, SumsOnDemand: sums})
		if err != nil {
			t.Fatal(err)
		}
		p, err := participant.New(m, participant.Options{SearchCacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		reads := ondemandtrace.Reads.Load()
		res, err := p.Search(q, 5)
		if err != nil {
			t.Fatal(err)
		}
		return res, ondemandtrace.Reads.Load() - reads
	}
	keys := func(r *participant.SearchResult) string {
		var ks []string
		for _, h := range r.Hits {
			ks = append(ks, h.Key)
		}
		return strings.Join(ks, " ")
	}

	first, reads := search(true, "merganser")
	if reads != n+1 {
		t.Errorf("a first build with no stored copy read %d texts, want %d (each note once, the hit again)", reads, n+1)
	}
	if keys(first) != "notes/n7.md" {
		t.Errorf("first build: hits %q, want notes/n7.md", keys(first))
	}
	for _, sums := range []bool{true, false} {
		res, reads := search(sums, "merganser")
		if reads != 1 {
			t.Errorf("SumsOnDemand %v: a first search from the stored copy read %d texts, want the hit's alone", sums, reads)
		}
		if keys(res) != keys(first) {
			t.Errorf("SumsOnDemand %v: from the stored copy: hits %q, want %q", sums, keys(res), keys(first))
		}
	}

	// A note changed since the copy was written: a new stamp, new words.
	p7 := filepath.Join(data, "memory", "user", "notes", "n7.md")
	writeNote(t, p7, strings.Repeat("a rewritten note seven about grebes\n", 200))
	res, reads := search(true, "grebes")
	if keys(res) != "notes/n7.md" {
		t.Errorf("after n7 changed: hits %q, want notes/n7.md", keys(res))
	}
	if reads != 2 {
		t.Errorf("after n7 changed: %d texts read, want n7 for its analysis and again as the hit", reads)
	}
	if res, _ := search(true, "merganser"); len(res.Hits) != 0 {
		t.Errorf("after n7 changed: its old word still found in %q", keys(res))
	}
}

func writeNote(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("---\nrevision: 1\nupdated: 2026-11-30T09:00:00.000Z\n---\n"+body), 0o644); err != nil {
		t.Fatal(err)
	}
}
