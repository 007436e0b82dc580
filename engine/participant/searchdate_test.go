package participant

import (
	"testing"

	"github.com/magicfrog/mf-lsp/engine/journal"
)

func TestQueryDates(t *testing.T) {
	today, _ := journal.ParseDay("2026-07-01") // a Wednesday
	for _, c := range []struct{ q, rest, from, to string }{
		{"What did Jon cook on 8 May 2023?", "what did jon cook  ?", "2023-05-08", "2023-05-08"},
		{"dinner in May", "dinner  ", "2026-05-01", "2026-05-31"},
		{"dinner in December", "dinner  ", "2025-12-01", "2025-12-31"},
		{"what happened last week", "what happened  ", "2026-06-22", "2026-06-28"},
		{"notes from 2026-06-30", "notes from  ", "2026-06-30", "2026-06-30"},
		{"yesterday's decision", " 's decision", "2026-06-30", "2026-06-30"},
		{"May 3rd party", "  party", "2026-05-03", "2026-05-03"},
		{"two weeks ago", " ", "2026-06-14", "2026-06-20"},
		{"may I ask", "may i ask", "", ""},
		{"on 31 February", "on 31 february", "", ""},
	} {
		rest, got := queryDates(c.q, today)
		if rest != c.rest {
			t.Errorf("%q: rest %q, want %q", c.q, rest, c.rest)
		}
		if c.from == "" {
			if len(got) != 0 {
				t.Errorf("%q: dates %v, want none", c.q, got)
			}
			continue
		}
		if len(got) != 1 || got[0].from.String() != c.from || got[0].to.String() != c.to {
			t.Errorf("%q: dates %v, want %s..%s", c.q, got, c.from, c.to)
		}
	}
}
