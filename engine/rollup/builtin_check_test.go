package rollup

import (
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/engine/journal"
	"pgregory.net/rapid"
)

// TestBuiltinPassesItsOwnCheck: whatever a day, week or month holds, the
// built-in summarizer's output passes CheckOutput, the check every rollup's
// output must pass before it is written. A day of plain bullets once came out
// as a title alone, failed the check, and stayed due every night.
func TestBuiltinPassesItsOwnCheck(t *testing.T) {
	lines := []string{
		"- seed line", "seed line", "", "# Heading", "## Decisions Made", "## Random",
		"- decided to use go-git", "- [x] shipped the parser", "- [ ] write the docs",
		"- error: build failed at commit 3f2a9c1", "- blocked on review", "```", "> quote",
		"---", "revision: 2", "- ok", "* star bullet", "1. numbered", "  - nested", "- ünïcödé ☃",
		"Lesson: keep the tests small", "TODO: ship it",
	}
	kinds := []journal.RollupKind{journal.RefineDay, journal.RollupWeek, journal.RollupMonth}
	rapid.Check(t, func(t *rapid.T) {
		kind := kinds[rapid.IntRange(0, len(kinds)-1).Draw(t, "kind")]
		n := rapid.IntRange(1, 3).Draw(t, "sources")
		srcs := make([]journal.Source, n)
		for i := range srcs {
			ls := rapid.SliceOfN(rapid.SampledFrom(lines), 0, 12).Draw(t, "lines")
			srcs[i] = journal.Source{Key: "memory/2026-12-0" + string(rune('1'+i)) + ".md", Body: []byte(strings.Join(ls, "\n") + "\n")}
		}
		out := journal.Summarize(kind, "2026-12-03", srcs)
		if _, _, err := CheckOutput(kind, out); err != nil {
			t.Fatalf("%v of %q: %v\noutput:\n%s", kind, srcs, err, out)
		}
	})
}
