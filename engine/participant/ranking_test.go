package participant_test

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/magicfrog/mf-lsp/engine/participant"
)

// TestRanking runs the cases of testdata/ranking/*.txtar: each is a few of
// agent larry's notes (the archive's files, keys as named) and, in its
// comment, queries with the note that must rank first and a text its
// snippet must hold:
//
//	today: 2026-07-01
//	Who took Melanie to the airport? => journal/2026-06-02.md | I drove Melanie
//
// A case is a way ranking went wrong once, kept small enough to read.
func TestRanking(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "ranking", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			c := &recallCorpus{today: "2026-07-01", notes: map[string]string{}}
			for _, f := range ar.Files {
				c.notes[f.Name] = string(f.Data)
			}
			type want struct{ q, key, snippet string }
			var wants []want
			for _, line := range strings.Split(string(ar.Comment), "\n") {
				if d, ok := strings.CutPrefix(line, "today: "); ok {
					c.today = strings.TrimSpace(d)
					continue
				}
				q, rest, ok := strings.Cut(line, " => ")
				if !ok {
					continue
				}
				key, snip, _ := strings.Cut(rest, " | ")
				wants = append(wants, want{strings.TrimSpace(q), strings.TrimSpace(key), strings.TrimSpace(snip)})
			}
			if len(wants) == 0 {
				t.Fatal("no queries")
			}
			p := recallParticipant(t, c, recallMemory(t, c), participant.Options{})
			for _, w := range wants {
				r, err := p.Search(w.q, 5)
				if err != nil {
					t.Fatalf("%s: %v", w.q, err)
				}
				if len(r.Hits) == 0 || r.Hits[0].Key != w.key || !strings.Contains(r.Hits[0].Snippet, w.snippet) {
					var got []string
					for _, h := range r.Hits {
						got = append(got, h.Key+": "+h.Snippet)
					}
					t.Errorf("%s: want %s with %q first; got\n%s", w.q, w.key, w.snippet, strings.Join(got, "\n"))
				}
			}
		})
	}
}

// TestStopWordInNoLine: a query's stop word that no line in scope holds
// ("the" in notes that never say it) ranks as if the query did not have it:
// the same hits, scores and passages, no score undefined (every passage
// scored NaN and every note -1 once).
func TestStopWordInNoLine(t *testing.T) {
	data, project, dir, _ := journalTree(t, t.TempDir())
	for name, text := range map[string]string{
		"2026-05-01.md": "# May 1\n\n- Caroline went to a pottery class.\n- dinner was ramen\n",
		"2026-05-02.md": "# May 2\n\n- pottery again, a class of six\n",
		"2026-05-03.md": "# May 3\n\n- support group in town\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("---\nrevision: 1\n---\n"+text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, p := openJournal(t, data, project)
	want, err := p.Search("pottery class", 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"the pottery class", "pottery class with the", "the pottery"} {
		got, err := p.Search(q, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range got.Hits {
			if h.Score <= 0 || math.IsNaN(h.Score) {
				t.Errorf("%q: %s scores %v", q, h.Key, h.Score)
			}
		}
		if q == "the pottery" {
			continue // its other terms are not the same
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\n%+v\nwithout its stop words:\n%+v", q, got, want)
		}
	}
}
