package journal

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestRefineKeepsItsItems: whatever lines a raw day is made of (markers,
// asides in parentheses, quotes, paths, commits, speakers, continuation
// lines), the refine does not panic and holds every commit id and path that
// the refine's detector finds in the day's lines.
func TestRefineKeepsItsItems(t *testing.T) {
	frags := []string{
		"- ", "  ", "Decision: ", "Error: ", "Fixed ", "TODO: ", "[x] ", "[ ] ", "BLOCKED: ", "09:14 ", "Larry: ", "user: ",
		"(", ")", "((", "\"", "`", "; ", ", ", ". ", " — ", " because ", ", so ", " while ", "…", "ünï ",
		"hooks/retry.go", "./run.sh", "config.yaml", "3f2a9c1", "deadbeef0", "(scheduler/send.go)", "\"database is locked\"",
		"the build broke", "decided to keep it", "nothing blocked", "a fixed 1 s", "built in", "x", "wait", "\n", "\n\n",
	}
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(t, "n")
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(rapid.SampledFrom(frags).Draw(t, "frag"))
		}
		raw := b.String()
		out := Summarize(RefineDay, "2026-12-03", []Source{{Key: "2026-12-03.md", Body: []byte(raw)}})
		cands, named := refineCandidates([]Source{{Key: "2026-12-03.md", Body: []byte(raw)}})
		for _, c := range cands {
			if c.must() {
				named = append(named, c.tokens...)
			}
		}
		for _, tok := range named {
			if !strings.Contains(out, tok) {
				t.Fatalf("%s dropped from %q:\n%s", tok, raw, out)
			}
		}
	})
}
