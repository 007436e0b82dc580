package journal

import (
	"strings"
	"testing"
)

func TestParseSections(t *testing.T) {
	body := "# 2026-11-30\r\n" +
		"intro line\r\n" +
		"## Decisions Made\r\n" +
		"\r\n" +
		"- use SQLite\r\n" +
		"* keep flock\r\n" +
		"12. numbered\r\n" +
		"plain line  \r\n" +
		"  - [ ] nested box\r\n" +
		"### detail\r\n" +
		"```go\r\n" +
		"- not an item\r\n" +
		"```\r\n" +
		"<!-- comment -->\r\n" +
		"## Things Built ##\r\n" +
		"-\r\n" +
		"+ plus item\r\n" +
		"# Title ends it\r\n" +
		"orphan\r\n" +
		"##NotAHeading\r\n" +
		"## Next Steps\n" +
		"- last without newline"
	secs := ParseSections([]byte(body))
	type it struct{ marker, text string }
	want := []struct {
		title string
		items []it
	}{
		{"Decisions Made", []it{{"-", "use SQLite"}, {"*", "keep flock"}, {"12.", "numbered"}, {"", "plain line"}, {"-", "[ ] nested box"}}},
		{"Things Built", []it{{"+", "plus item"}}},
		{"Next Steps", []it{{"-", "last without newline"}}},
	}
	if len(secs) != len(want) {
		t.Fatalf("got %d sections: %+v", len(secs), secs)
	}
	for i, w := range want {
		s := secs[i]
		if s.Title != w.title {
			t.Errorf("section %d title %q, want %q", i, s.Title, w.title)
		}
		if !strings.HasPrefix(body[s.Start:s.HeadingEnd], "## ") || strings.ContainsAny(body[s.Start:s.HeadingEnd], "\r\n") {
			t.Errorf("section %q heading range %q", s.Title, body[s.Start:s.HeadingEnd])
		}
		if len(s.Items) != len(w.items) {
			t.Errorf("section %q items %+v", s.Title, s.Items)
			continue
		}
		for j, wi := range w.items {
			got := s.Items[j]
			if got.Marker != wi.marker || got.Text != wi.text {
				t.Errorf("section %q item %d = %q %q, want %q %q", s.Title, j, got.Marker, got.Text, wi.marker, wi.text)
			}
			line := body[got.Start:got.End]
			if strings.ContainsAny(line, "\r\n") || !strings.Contains(line, wi.text) || (got.Start > 0 && body[got.Start-1] != '\n') {
				t.Errorf("item %q has range %d:%d = %q", wi.text, got.Start, got.End, line)
			}
		}
	}
	// Section ends: Decisions ends where "## Things Built" starts; Things Built ends at the "# Title".
	if secs[0].End != secs[1].Start {
		t.Errorf("Decisions ends at %d, next starts at %d", secs[0].End, secs[1].Start)
	}
	if !strings.HasPrefix(body[secs[1].End:], "# Title") {
		t.Errorf("Things Built ends before %q", body[secs[1].End:])
	}
	if secs[2].End != len(body) {
		t.Errorf("last section ends at %d, want %d", secs[2].End, len(body))
	}
	if FindSection(secs, "next steps") != &secs[2] || FindSection(secs, "Blockers") != nil {
		t.Error("FindSection")
	}
}

func TestParseSectionsEmpty(t *testing.T) {
	for _, b := range []string{"", "\n\n", "no headings\n- item\n", "# only a title\n"} {
		if s := ParseSections([]byte(b)); len(s) != 0 {
			t.Errorf("ParseSections(%q) = %+v", b, s)
		}
	}
	s := ParseSections([]byte("## A\n## B\n"))
	if len(s) != 2 || len(s[0].Items) != 0 || s[0].End != 5 {
		t.Errorf("empty sections: %+v", s)
	}
}

func TestParseSectionsRoundTripsSummaries(t *testing.T) {
	// Every rollup the summarizer writes parses back into its sections.
	for _, k := range []RollupKind{RefineDay, RollupWeek, RollupMonth} {
		out := Summarize(k, "2026-11-30", nil)
		secs := ParseSections([]byte(out))
		if len(secs) != len(SectionsFor(k)) {
			t.Fatalf("%v: %d sections", k, len(secs))
		}
		for i, s := range secs {
			if s.Title != SectionsFor(k)[i] || len(s.Items) != 1 || s.Items[0].Text != "(none)" {
				t.Errorf("%v section %d: %+v", k, i, s)
			}
		}
	}
}
