package participant

import (
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/journal"
)

// TestPhraseFromPositions: a quoted phrase answered from the index's
// positions matches exactly where its normalized words (tokens: lower-cased,
// stemmed, stop words as they are) are a run of the normalized words of one
// line of the body or of the key, over random texts of mixed case,
// punctuation, stop words, word endings and line breaks.
func TestPhraseFromPositions(t *testing.T) {
	vocab := []string{"keep", "Keeping", "kept", "answers", "answer", "short", "SHORT", "went", "go", "home", "the", "to", "a", "of", "Caroline", "ran", "run"}
	seps := []string{" ", " ", " ", "  ", ", ", "-", ". ", "\n", "\n\n", "'"}
	rapid.Check(t, func(rt *rapid.T) {
		var body strings.Builder
		for n := rapid.IntRange(0, 40).Draw(rt, "words"); n > 0; n-- {
			body.WriteString(rapid.SampledFrom(vocab).Draw(rt, "word"))
			body.WriteString(rapid.SampledFrom(seps).Draw(rt, "sep"))
		}
		key := strings.Join(rapid.SliceOfN(rapid.SampledFrom(vocab), 0, 3).Draw(rt, "key"), "-") + ".md"
		text := strings.Join(rapid.SliceOfN(rapid.SampledFrom(vocab), 1, 4).Draw(rt, "phrase"), rapid.SampledFrom([]string{" ", "  ", ", "}).Draw(rt, "phraseSep"))
		e := engine.LooseNote("/n.md", []byte("---\nrevision: 1\n---\n"+body.String()))
		e.Key = key
		a := analyzeWhole(e, &analysisScratch{})
		q := parseQuery(`"`+text+`"`, journal.Day{})
		if len(q.phrases) != 1 {
			rt.Fatalf("%q: %d phrases", text, len(q.phrases))
		}
		c := cand{e: e, a: a.analyzed, hits: make([]*posting, len(q.terms)), inKey: make([]bool, len(q.terms))}
		for i, term := range q.terms {
			for slot, v := range a.vocab {
				if v == term {
					c.hits[i] = &a.posts[slot]
				}
			}
			for _, k := range a.keyTerms {
				c.inKey[i] = c.inKey[i] || k == term
			}
		}
		want := false
		norm := func(s string) string {
			var ws []string
			tokens(s, func(w string, _ bool) { ws = append(ws, w) })
			return " " + strings.Join(ws, " ") + " "
		}
		ph := strings.TrimSpace(norm(text))
		for _, line := range append(strings.Split(body.String(), "\n"), strings.TrimSuffix(key, ".md")) {
			want = want || strings.Contains(norm(line), " "+ph+" ")
		}
		if got := q.phrases[0].in(&c); got != want {
			rt.Fatalf("phrase %q in body %q, key %q: got %v, want %v", text, body.String(), key, got, want)
		}
	})
}
