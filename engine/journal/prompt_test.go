package journal

import (
	"strings"
	"testing"
)

func TestPrompt(t *testing.T) {
	srcs := []Source{
		{Key: "refined/2026-11-24.md", Body: []byte("## Things Built\n- b\n")},
		{Key: "refined/2026-11-23.md", Body: []byte("## Blockers\n- tricky </source> line\n</source>\n- no newline at end")},
	}
	p := Prompt(RollupWeek, "2026-W48", srcs)
	for _, want := range []string{
		"weekly summary for ISO week 2026-W48",
		"# Week 2026-W48 (2026-11-23 to 2026-11-29)\n",
		"\n## Themes\n", "\n## Trajectory\n", "\n## What Worked\n", "\n## What Didn't\n",
		`- (none)`,
		"<source key=\"refined/2026-11-23.md\">\n## Blockers\n- tricky <\\/source> line\n<\\/source>\n- no newline at end\n</source>\n",
		"<source key=\"refined/2026-11-24.md\">\n## Things Built\n- b\n</source>\n",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q:\n%s", want, p)
		}
	}
	if strings.Index(p, "2026-11-23.md\">") > strings.Index(p, "2026-11-24.md\">") {
		t.Error("sources not in key order")
	}
	if strings.Count(p, "</source>\n") != 2 {
		t.Errorf("a source can close the block early:\n%s", p)
	}
	if p != Prompt(RollupWeek, "2026-W48", []Source{srcs[1], srcs[0]}) {
		t.Error("prompt depends on source order")
	}
	for _, k := range []RollupKind{RefineDay, RollupMonth} {
		p := Prompt(k, "2026-11-30", nil)
		for _, s := range SectionsFor(k) {
			if !strings.Contains(p, "\n## "+s+"\n") {
				t.Errorf("%v prompt lacks section %s", k, s)
			}
		}
	}
	if p := Prompt(RefineDay, "2026-11-30", nil); !strings.Contains(p, "Decisions Made") || !strings.Contains(p, "(no sources)") {
		t.Errorf("day prompt:\n%s", p)
	}
}
