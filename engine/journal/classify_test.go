package journal

import "testing"

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		rel     string
		kind    Kind
		period  string // Day, Week or Month as string
		code    string
		suggest string
	}{
		{"2026-11-30.md", Daily, "2026-11-30", "", ""},
		{"refined/2026-11-30.md", Refined, "2026-11-30", "", ""},
		{"weekly/2026-W48.md", Weekly, "2026-W48", "", ""},
		{"weekly/2026-W53.md", Weekly, "2026-W53", "", ""}, // 2026 has 53 weeks
		{"monthly/2026-11.md", Monthly, "2026-11", "", ""},
		{"MEMORY.md", LongTerm, "", "", ""},
		{"sticky-notes/devices.md", Sticky, "", "", ""},
		{"sticky-notes/infra/servers.md", Sticky, "", "", ""},

		// Periods that do not exist.
		{"2026-02-30.md", Invalid, "", CodeImpossibleDate, ""},
		{"2027-02-29.md", Invalid, "", CodeImpossibleDate, ""},
		{"refined/2026-04-31.md", Invalid, "", CodeImpossibleDate, ""},
		{"weekly/2027-W53.md", Invalid, "", CodeNoSuchWeek, ""},
		{"weekly/2025-W53.md", Invalid, "", CodeNoSuchWeek, ""},
		{"weekly/2026-W00.md", Invalid, "", CodeNoSuchWeek, ""},
		{"weekly/2026-W54.md", Invalid, "", CodeNoSuchWeek, ""},
		{"monthly/2026-13.md", Invalid, "", CodeNoSuchMonth, ""},
		{"monthly/2026-00.md", Invalid, "", CodeNoSuchMonth, ""},
		{"2026-W00.md", Invalid, "", CodeNoSuchWeek, ""},

		// Wrong folder.
		{"weekly/2026-11-30.md", Invalid, "", CodeWrongFolder, "refined/2026-11-30.md"},
		{"monthly/2026-11-30.md", Invalid, "", CodeWrongFolder, "refined/2026-11-30.md"},
		{"refined/2026-W48.md", Invalid, "", CodeWrongFolder, "weekly/2026-W48.md"},
		{"monthly/2026-W48.md", Invalid, "", CodeWrongFolder, "weekly/2026-W48.md"},
		{"weekly/2026-11.md", Invalid, "", CodeWrongFolder, "monthly/2026-11.md"},
		{"refined/2026-11.md", Invalid, "", CodeWrongFolder, "monthly/2026-11.md"},
		{"2026-W48.md", Invalid, "", CodeWrongFolder, "weekly/2026-W48.md"},
		{"2026-11.md", Invalid, "", CodeWrongFolder, "monthly/2026-11.md"},

		// Sloppy names.
		{"weekly/2026-w48.md", Invalid, "", CodeMisnamed, "weekly/2026-W48.md"},
		{"weekly/2026-W8.md", Invalid, "", CodeMisnamed, "weekly/2026-W08.md"},
		{"2026-1-5.md", Invalid, "", CodeMisnamed, "2026-01-05.md"},
		{"refined/2026-11-3.md", Invalid, "", CodeMisnamed, "refined/2026-11-03.md"},
		{"monthly/2026-1.md", Invalid, "", CodeMisnamed, "monthly/2026-01.md"},
		{"2026-2-30.md", Invalid, "", CodeImpossibleDate, ""},
		{"memory.md", Invalid, "", CodeMisnamed, "MEMORY.md"},
		{"MEMORY.MD", Invalid, "", CodeMisnamed, "MEMORY.md"},
		{"weekly/2026-W48.MD", Invalid, "", CodeMisnamed, "weekly/2026-W48.md"},

		// Unknown names in journal folders.
		{"refined/notes.md", Invalid, "", CodeUnknownName, ""},
		{"weekly/summary.md", Invalid, "", CodeUnknownName, ""},
		{"monthly/2026-11-draft.md", Invalid, "", CodeUnknownName, ""},
		{"refined/2026/2026-11-30.md", Invalid, "", CodeUnknownName, ""},

		// Not journal files.
		{"notes.md", Other, "", "", ""},
		{"ideas/2026-11-30.md", Other, "", "", ""},
		{"2026-11-30.txt", Other, "", "", ""},
		{"refined/2026-11-30.md.bak", Other, "", "", ""},
		{".obsidian/x.md", Other, "", "", ""},
		{"weekly/.draft.md", Other, "", "", ""},
		{"", Other, "", "", ""},
		{"/2026-11-30.md", Other, "", "", ""},
	} {
		f, p := Classify(tc.rel)
		if f.Kind != tc.kind || f.Rel != tc.rel {
			t.Errorf("Classify(%q).Kind = %v, want %v", tc.rel, f.Kind, tc.kind)
		}
		var period string
		switch f.Kind {
		case Daily, Refined:
			period = f.Day.String()
		case Weekly:
			period = f.Week.String()
		case Monthly:
			period = f.Month.String()
		}
		if period != tc.period {
			t.Errorf("Classify(%q) period %q, want %q", tc.rel, period, tc.period)
		}
		if tc.code == "" {
			if p != nil {
				t.Errorf("Classify(%q) problem %v, want none", tc.rel, p)
			}
			continue
		}
		if p == nil {
			t.Errorf("Classify(%q) no problem, want %s", tc.rel, tc.code)
			continue
		}
		if p.Code != tc.code || p.Suggest != tc.suggest || p.Message == "" {
			t.Errorf("Classify(%q) = {%s %q %q}, want code %s suggest %q", tc.rel, p.Code, p.Message, p.Suggest, tc.code, tc.suggest)
		}
		if p.Suggest != "" {
			if g, gp := Classify(p.Suggest); gp != nil || g.Kind == Other || g.Kind == Invalid {
				t.Errorf("Classify(%q) suggests %q, which is itself %v %v", tc.rel, p.Suggest, g.Kind, gp)
			}
		}
	}
}

func TestPathRoundTrip(t *testing.T) {
	day, w, m := d("2026-11-30"), Week{2026, 48}, Month{2026, 11}
	for _, k := range []Kind{Daily, Refined, Weekly, Monthly, LongTerm} {
		p := Path(k, day, w, m)
		f, prob := Classify(p)
		if prob != nil || f.Kind != k {
			t.Errorf("Path(%v) = %q classifies as %v %v", k, p, f.Kind, prob)
		}
	}
}
