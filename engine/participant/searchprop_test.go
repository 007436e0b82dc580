package participant_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/participant"
)

// TestSearchIndexAgrees: the search index of a long-lived participant agrees
// with the Markdown on disk after edits, deletes and renames made behind the
// engine's back (a text editor, mv, rm; then the watcher's Refresh), of its
// own notes and of shared ones they shadow: every search answers as one over a
// freshly opened tree and as a fresh index over the same tree, every hit's
// lines are its snippet on disk, and the incremental index (its term lists,
// ids and running totals, compacted at every change or only when the dead ids
// pile up) holds what counting its notes again gives.
func TestSearchIndexAgrees(t *testing.T) {
	words := []string{"pottery", "class", "Caroline", "went", "support", "group", "dinner", "cooked", "ramen", "May"}
	rapid.Check(t, func(rt *rapid.T) {
		data, project, dir, shared := journalTree(rt, t.TempDir())
		open := func() (*engine.Memory, *participant.Participant) { return openJournal(rt, data, project) }
		m, p := open()
		if rapid.Bool().Draw(rt, "eager") {
			participant.CompactEagerly(p)
		}
		name, text := journalEdits(rt, dir, shared, "- ", words)
		for step := rapid.IntRange(1, 12).Draw(rt, "steps"); step > 0; step-- {
			switch rapid.IntRange(0, 2).Draw(rt, "op") {
			case 0: // an edit or a new note
				path := name()
				if err := os.WriteFile(path, []byte(text()), 0o644); err != nil {
					rt.Fatal(err)
				}
				m.Refresh(path)
			case 1: // a delete
				path := name()
				os.Remove(path)
				m.Refresh(path)
			case 2: // a rename
				from, to := name(), name()
				if os.Rename(from, to) == nil {
					m.Refresh(from)
					m.Refresh(to)
				}
			}
			q := strings.Join(rapid.SliceOfN(rapid.SampledFrom(words), 1, 3).Draw(rt, "query"), " ")
			got, err := p.Search(q, 10)
			if err != nil {
				rt.Fatal(err)
			}
			_, fresh := open()
			want, _ := fresh.Search(q, 10)
			if !reflect.DeepEqual(got, want) {
				rt.Fatalf("%q: the kept index says\n%+v\na fresh one\n%+v", q, got, want)
			}
			rebuilt, err := participant.New(m, participant.Options{Scope: engine.Scope{Agents: []string{"larry"}}, Today: "2026-06-01"})
			if err != nil {
				rt.Fatal(err)
			}
			if again, _ := rebuilt.Search(q, 10); !reflect.DeepEqual(got, again) {
				rt.Fatalf("%q: the kept index says\n%+v\none built now over the same tree\n%+v", q, got, again)
			}
			if msg := participant.IndexCheck(p); msg != "" {
				rt.Fatalf("the kept index: %s", msg)
			}
			for _, h := range got.Hits {
				r, err := fresh.ReadLines(h.Dimension, h.Key, h.StartLine, h.EndLine)
				if err != nil || strings.TrimRight(r.Body, "\n") != h.Snippet {
					rt.Fatalf("%s:%d-%d reads %+v %v, snippet %q", h.Key, h.StartLine, h.EndLine, r, err, h.Snippet)
				}
			}
		}
	})
}

type fataler interface{ Fatal(args ...any) }

// journalEdits draws the daily notes a test edits (one of six days, in dir
// or, one time in four, in shared) and their texts: lines of words, each
// line starting with prefix.
func journalEdits(rt *rapid.T, dir, shared, prefix string, words []string) (name, text func() string) {
	name = func() string {
		d := dir
		if rapid.IntRange(0, 3).Draw(rt, "shared") == 0 {
			d = shared
		}
		return filepath.Join(d, fmt.Sprintf("2026-05-%02d.md", rapid.IntRange(1, 6).Draw(rt, "day")))
	}
	text = func() string {
		var lines []string
		for n := rapid.IntRange(0, 6).Draw(rt, "lines"); n > 0; n-- {
			lines = append(lines, prefix+strings.Join(rapid.SliceOfN(rapid.SampledFrom(words), 0, 5).Draw(rt, "line"), " "))
		}
		return "---\nrevision: 1\n---\n" + strings.Join(lines, "\n") + "\n"
	}
	return name, text
}

// journalTree makes, under root, a data directory whose agent larry has a
// journal layer, and a project; dir is larry's journal folder, shared the
// shared agent notes' one (larry's notes of the same key shadow them).
func journalTree(t fataler, root string) (data, project, dir, shared string) {
	data, project = filepath.Join(root, "data"), filepath.Join(root, "project")
	dir = filepath.Join(data, "memory", "agent", "larry", "journal")
	shared = filepath.Join(data, "memory", "agent", "journal")
	for _, d := range []string{dir, shared, project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range map[string]string{
		filepath.Join(data, "magicfrog.json"):        `{"agents": ["larry"]}`,
		filepath.Join(data, "memory", "layers.json"): `{"layers": [{"name": "core", "prefix": ""}, {"name": "journal", "prefix": "journal/", "kind": "fractal"}]}`,
	} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return data, project, dir, shared
}

// openJournal opens journalTree's tree and agent larry in it.
func openJournal(t fataler, data, project string) (*engine.Memory, *participant.Participant) {
	m, err := engine.Open(engine.Options{DataDir: data, ProjectDir: project})
	if err != nil {
		t.Fatal(err)
	}
	p, err := participant.New(m, participant.Options{Scope: engine.Scope{Agents: []string{"larry"}}, Today: "2026-06-01"})
	if err != nil {
		t.Fatal(err)
	}
	return m, p
}

// TestSearchConcurrent: searches beside each other and beside changes of
// the tree (notes written, edited and removed, the index compacting at every
// change) neither fail nor race (go test -race: a compaction that rewrote the
// position arrays in place, under a search still reading them, is caught),
// and once the tree is still the kept index answers as a fresh one.
func TestSearchConcurrent(t *testing.T) {
	data, project, dir, shared := journalTree(t, t.TempDir())
	m, p := openJournal(t, data, project)
	participant.CompactEagerly(p)
	queries := []string{"pottery class", "support group dinner", `"cooked ramen"`, "went in May"}
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 300; i++ {
				if _, err := p.Search(queries[(i+w)%len(queries)], 5); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for i := 0; i < 300; i++ {
		path := filepath.Join([]string{dir, shared}[i%2], fmt.Sprintf("2026-05-%02d.md", 1+i%7))
		if i%5 == 4 {
			os.Remove(path)
		} else if err := os.WriteFile(path, []byte(fmt.Sprintf("---\nrevision: 1\n---\n- pottery class %d\n- cooked ramen for the support group\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		m.Refresh(path)
	}
	wg.Wait()
	_, fresh := openJournal(t, data, project)
	for _, q := range queries {
		got, err := p.Search(q, 10)
		want, _ := fresh.Search(q, 10)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: the kept index says\n%+v %v\na fresh one\n%+v", q, got, err, want)
		}
	}
	if msg := participant.IndexCheck(p); msg != "" {
		t.Errorf("the kept index: %s", msg)
	}
}

// TestSearchLimitAgrees: a search told a small limit, which looks for the
// query's word pairs only in the notes that could still reach its best, answers
// as the first hits of one that scores every note in full (more notes than
// match, under the limit): the same notes, scores, passages and count.
func TestSearchLimitAgrees(t *testing.T) {
	words := []string{"moving", "to", "the", "airport", "visiting", "from", "Caroline", "pottery", "class", "of", "went"}
	rapid.Check(t, func(rt *rapid.T) {
		data, project, dir, _ := journalTree(rt, t.TempDir())
		for day := rapid.IntRange(1, 28).Draw(rt, "notes"); day > 0; day-- {
			text := drawNote(rt, words, 6, 0, 8)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("2026-05-%02d.md", day)), []byte(text), 0o644); err != nil {
				rt.Fatal(err)
			}
		}
		_, p := openJournal(rt, data, project)
		q := strings.Join(rapid.SliceOfN(rapid.SampledFrom(words), 2, 5).Draw(rt, "query"), " ")
		want, err := p.Search(q, participant.MaxSearchLimit)
		if err != nil {
			return // stop words only
		}
		limit := rapid.IntRange(1, 5).Draw(rt, "limit")
		got, err := p.Search(q, limit)
		if err != nil {
			rt.Fatal(err)
		}
		want.Hits = want.Hits[:min(limit, len(want.Hits))]
		if !reflect.DeepEqual(got, want) {
			rt.Fatalf("%q limit %d:\n%+v\nevery note scored in full:\n%+v", q, limit, got, want)
		}
	})
}

// TestSearchPruneAgrees: a search told a limit, which scores only the notes
// whose bound can reach its best limit, answers as one that scores every
// match (the same notes in the same order, scores, passages and count), over
// random notes (journal days and notes keyed by words, headings, words said
// again on a line, stop words) and queries (words, stop words, a quoted
// phrase, a date).
func TestSearchPruneAgrees(t *testing.T) {
	words := []string{"moving", "to", "the", "airport", "visiting", "from", "Caroline", "pottery", "class", "of", "went", "ramen", "class", "pottery"}
	rapid.Check(t, func(rt *rapid.T) {
		data, project, dir, _ := journalTree(rt, t.TempDir())
		note := func() string {
			var lines []string
			for n := rapid.IntRange(1, 8).Draw(rt, "lines"); n > 0; n-- {
				line := strings.Join(rapid.SliceOfN(rapid.SampledFrom(words), 0, 10).Draw(rt, "line"), " ")
				if rapid.IntRange(0, 4).Draw(rt, "heading") == 0 {
					line = "# " + line
				}
				lines = append(lines, line)
			}
			return "---\nrevision: 1\n---\n" + strings.Join(lines, "\n") + "\n"
		}
		for day := rapid.IntRange(0, 20).Draw(rt, "days"); day > 0; day-- {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("2026-05-%02d.md", day)), []byte(note()), 0o644); err != nil {
				rt.Fatal(err)
			}
		}
		for n := rapid.IntRange(0, 20).Draw(rt, "keyed"); n > 0; n-- {
			key := strings.Join(rapid.SliceOfN(rapid.SampledFrom(words), 1, 2).Draw(rt, "key"), "-")
			if err := os.WriteFile(filepath.Join(filepath.Dir(dir), fmt.Sprintf("%s-%d.md", key, n)), []byte(note()), 0o644); err != nil {
				rt.Fatal(err)
			}
		}
		m, p := openJournal(rt, data, project)
		every, err := participant.New(m, participant.Options{Scope: engine.Scope{Agents: []string{"larry"}}, Today: "2026-06-01"})
		if err != nil {
			rt.Fatal(err)
		}
		participant.Exhaustive(every)
		q := strings.Join(rapid.SliceOfN(rapid.SampledFrom(words), 1, 4).Draw(rt, "query"), " ")
		switch rapid.IntRange(0, 5).Draw(rt, "extra") {
		case 0:
			q += ` "` + strings.Join(rapid.SliceOfN(rapid.SampledFrom(words), 1, 2).Draw(rt, "phrase"), " ") + `"`
		case 1:
			q += " in May"
		}
		limit := rapid.IntRange(1, 5).Draw(rt, "limit")
		want, err := every.Search(q, limit)
		if err != nil {
			return // stop words only
		}
		got, err := p.Search(q, limit)
		if err != nil {
			rt.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			rt.Fatalf("%q limit %d:\n%+v\nevery match scored:\n%+v", q, limit, got, want)
		}
	})
}

// TestSearchNearAgrees: a search told a limit answers as one that scores
// every match where proximity decides the ranking: many notes of a few words
// said again and again, so that every note holds the query's terms (a quoted
// phrase's, or plain words) and they differ in where the terms are next to
// each other. The bound that reads the proximity from the positions
// (nearBound) leaves out no note of the best: one a little too low fails here.
func TestSearchNearAgrees(t *testing.T) {
	words := []string{"pottery", "class", "ramen", "went", "to"}
	rapid.Check(t, func(rt *rapid.T) {
		data, project, dir, _ := journalTree(rt, t.TempDir())
		for n := rapid.IntRange(2, 40).Draw(rt, "notes"); n > 0; n-- {
			text := drawNote(rt, words, 3, 1, 12)
			if err := os.WriteFile(filepath.Join(filepath.Dir(dir), fmt.Sprintf("note-%d.md", n)), []byte(text), 0o644); err != nil {
				rt.Fatal(err)
			}
		}
		m, p := openJournal(rt, data, project)
		q := strings.Join(rapid.SliceOfN(rapid.SampledFrom(words[:4]), 2, 3).Draw(rt, "query"), " ")
		if rapid.Bool().Draw(rt, "quoted") {
			q = `"` + q + `"`
		}
		agreesExhaustive(rt, m, p, q, rapid.IntRange(1, 3).Draw(rt, "limit"))
	})
}

// agreesExhaustive fails rt when p's search of q told limit answers
// otherwise than one that scores every match, over m.
func agreesExhaustive(rt *rapid.T, m *engine.Memory, p *participant.Participant, q string, limit int) {
	all, err := participant.New(m, participant.Options{Scope: engine.Scope{Agents: []string{"larry"}}, Today: "2026-06-01"})
	if err != nil {
		rt.Fatal(err)
	}
	participant.Exhaustive(all)
	want, err := all.Search(q, limit)
	if err != nil {
		rt.Fatal(err)
	}
	got, err := p.Search(q, limit)
	if err != nil {
		rt.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		rt.Fatalf("%q limit %d:\n%+v\nevery match scored:\n%+v", q, limit, got, want)
	}
}

// TestSearchTiesAgree: a search told a limit answers as one that scores
// every match where many notes tie: a word on every line of a scope of
// thousands of lines (at least 4,800), whose idf is about 0, so that every score rounds to 0
// while the bounds differ (the lines' lengths), and shadowed notes. The notes whose bound can only tie the
// limit-th best are scored only when they would win the tie (effective
// first, then the lesser path).
func TestSearchTiesAgree(t *testing.T) {
	words := []string{"pottery", "class", "went", "the", "to"}
	rapid.Check(t, func(rt *rapid.T) {
		data, project, dir, shared := journalTree(rt, t.TempDir())
		// Every note's 400 lines hold "ramen" with the same few words, which
		// differ from note to note, so that the bounds differ too.
		body := func() string {
			line := strings.Join(append(rapid.SliceOfN(rapid.SampledFrom(words), 0, 4).Draw(rt, "line"), "ramen"), " ")
			return strings.Repeat(line+"\n", 400)
		}
		for n := rapid.IntRange(2*limitTies+2, 40).Draw(rt, "notes"); n > 0; n-- {
			d := []string{dir, shared, filepath.Dir(dir)}[rapid.IntRange(0, 2).Draw(rt, "where")]
			name := fmt.Sprintf("2026-05-%02d.md", rapid.IntRange(1, 28).Draw(rt, "day"))
			if d == filepath.Dir(dir) {
				name = fmt.Sprintf("note-%d.md", n)
			}
			if err := os.WriteFile(filepath.Join(d, name), []byte("---\nrevision: 1\n---\n"+body()), 0o644); err != nil {
				rt.Fatal(err)
			}
		}
		m, p := openJournal(rt, data, project)
		q := rapid.SampledFrom([]string{"ramen", "ramen ramen", "went ramen", "ramen in May", "to ramen"}).Draw(rt, "query")
		agreesExhaustive(rt, m, p, q, rapid.IntRange(1, limitTies).Draw(rt, "limit"))
	})
}

// drawNote draws a note's text: 1 to lines lines of least to most words.
func drawNote(rt *rapid.T, words []string, lines, least, most int) string {
	var ls []string
	for n := rapid.IntRange(1, lines).Draw(rt, "lines"); n > 0; n-- {
		ls = append(ls, strings.Join(rapid.SliceOfN(rapid.SampledFrom(words), least, most).Draw(rt, "line"), " "))
	}
	return "---\nrevision: 1\n---\n" + strings.Join(ls, "\n") + "\n"
}

// limitTies is TestSearchTiesAgree's largest limit.
const limitTies = 5
