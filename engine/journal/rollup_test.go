package journal

import (
	"strings"
	"testing"
)

func files(rels ...string) []File {
	var out []File
	for _, r := range rels {
		f, p := Classify(r)
		if p != nil {
			panic(p)
		}
		out = append(out, f)
	}
	return out
}

func dueString(rs []Rollup) string {
	var s []string
	for _, r := range rs {
		s = append(s, r.String())
	}
	return strings.Join(s, ", ")
}

func TestDue(t *testing.T) {
	for _, tc := range []struct {
		name  string
		today string
		files []File
		want  string
	}{
		{"nothing", "2026-11-30", nil, ""},
		{"today is not over", "2026-11-30", files("2026-11-30.md"), ""},
		{"yesterday is", "2026-11-30", files("2026-11-29.md", "2026-11-30.md"), "day 2026-11-29, week 2026-W48"},
		{"already refined", "2026-11-30", files("2026-11-29.md", "refined/2026-11-29.md"), "week 2026-W48"},
		{"refined without raw still feeds the week", "2026-11-30", files("refined/2026-11-24.md"), "week 2026-W48"},
		{"and the month", "2026-12-01", files("refined/2026-11-24.md"), "week 2026-W48, month 2026-11"},
		{"week not over on its Sunday", "2026-11-29", files("2026-11-23.md", "2026-11-28.md"), "day 2026-11-23, day 2026-11-28"},
		{"catch-up in dependency order", "2026-11-30",
			files("2026-11-23.md", "2026-11-25.md", "2026-11-29.md", "2026-11-30.md"),
			"day 2026-11-23, day 2026-11-25, day 2026-11-29, week 2026-W48"},
		{"weekly exists", "2026-11-30", files("2026-11-23.md", "refined/2026-11-23.md", "weekly/2026-W48.md"), ""},
		// November 2026's last week is W48 (Sunday Nov 29): the month is due on Dec 1.
		{"month on its first complete day", "2026-12-01",
			files("2026-11-30.md", "weekly/2026-W45.md"),
			"day 2026-11-30, month 2026-11"},
		{"month not before its last day is over", "2026-11-30", files("weekly/2026-W45.md"), ""},
		// October 2026: last week W44 has Thursday Oct 29 and Sunday Nov 1; the
		// month waits until that week is over.
		{"month waits for its last week", "2026-11-01", files("weekly/2026-W43.md"), ""},
		{"month after its last week", "2026-11-02", files("weekly/2026-W43.md"), "month 2026-10"},
		{"planned weekly feeds the month", "2026-11-02", files("refined/2026-10-29.md"), "week 2026-W44, month 2026-10"},
		{"monthly exists", "2026-12-05", files("weekly/2026-W45.md", "monthly/2026-11.md"), ""},
		// Year end: 2026-W53 runs Dec 28 – Jan 3 and belongs to December (Thursday Dec 31).
		{"week 53 and December", "2027-01-04", files("2026-12-31.md", "2027-01-02.md"),
			"day 2026-12-31, day 2027-01-02, week 2026-W53, month 2026-12"},
		{"December waits for week 53", "2027-01-03", files("2026-12-31.md", "2027-01-02.md"),
			"day 2026-12-31, day 2027-01-02"},
		{"ignores other files", "2026-12-01", files("notes.md", "MEMORY.md", "sticky-notes/a.md"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Due(tc.files, d(tc.today))
			if s := dueString(got); s != tc.want {
				t.Errorf("Due = %q\nwant  %q", s, tc.want)
			}
			for _, r := range got {
				if !r.Complete(d(tc.today)) {
					t.Errorf("%v is due but not complete", r)
				}
			}
		})
	}
}

func TestDueOrderOverLongHistory(t *testing.T) {
	var fs []File
	start := d("2026-01-01")
	for i := 0; i < 400; i++ {
		fs = append(fs, files(Path(Daily, start.AddDays(i), Week{}, Month{}))...)
	}
	today := start.AddDays(400)
	due := Due(fs, today)
	done := map[string]bool{}
	have := append([]File(nil), fs...)
	var days, weeks, months int
	for _, r := range due {
		srcs := Sources(r, have)
		if len(srcs) == 0 {
			t.Fatalf("%v has no sources when its turn comes", r)
		}
		for _, s := range srcs {
			if s.Kind != Daily && !done[s.Rel] {
				t.Fatalf("%v reads %s before it is written", r, s.Rel)
			}
		}
		if done[r.Output()] {
			t.Fatalf("%v twice", r)
		}
		done[r.Output()] = true
		have = append(have, files(r.Output())...)
		switch r.Kind {
		case RefineDay:
			days++
		case RollupWeek:
			weeks++
		case RollupMonth:
			months++
		}
	}
	// 2026-01-01 … 2027-02-04: 400 days; weeks 2026-W01 … 2027-W05 minus the
	// incomplete one; months Jan 2026 … Jan 2027 (13).
	if days != 400 || weeks != 57 || months != 13 {
		t.Errorf("due %d days, %d weeks, %d months", days, weeks, months)
	}
	if again := Due(have, today); len(again) != 0 {
		t.Errorf("after running everything, still due: %s", dueString(again))
	}
}

func TestSources(t *testing.T) {
	all := files("2026-11-22.md", "2026-11-23.md", "refined/2026-11-22.md", "refined/2026-11-23.md",
		"refined/2026-11-29.md", "refined/2026-11-30.md", "weekly/2026-W44.md", "weekly/2026-W45.md",
		"weekly/2026-W48.md", "weekly/2026-W49.md", "MEMORY.md")
	rel := func(fs []File) string {
		var s []string
		for _, f := range fs {
			s = append(s, f.Rel)
		}
		return strings.Join(s, " ")
	}
	for _, tc := range []struct {
		r    Rollup
		want string
	}{
		{Rollup{Kind: RefineDay, Day: d("2026-11-23")}, "2026-11-23.md"},
		{Rollup{Kind: RefineDay, Day: d("2026-11-24")}, ""},
		{Rollup{Kind: RollupWeek, Week: Week{2026, 48}}, "refined/2026-11-23.md refined/2026-11-29.md"},
		{Rollup{Kind: RollupWeek, Week: Week{2026, 47}}, "refined/2026-11-22.md"},
		{Rollup{Kind: RollupMonth, Month: Month{2026, 11}}, "weekly/2026-W45.md weekly/2026-W48.md"},
		{Rollup{Kind: RollupMonth, Month: Month{2026, 10}}, "weekly/2026-W44.md"},
		{Rollup{Kind: RollupMonth, Month: Month{2026, 12}}, "weekly/2026-W49.md"},
	} {
		if got := rel(Sources(tc.r, all)); got != tc.want {
			t.Errorf("Sources(%v) = %q, want %q", tc.r, got, tc.want)
		}
	}
}

func TestSourcePaths(t *testing.T) {
	for _, tc := range []struct {
		r     Rollup
		first string
		n     int
	}{
		{Rollup{Kind: RefineDay, Day: d("2026-11-23")}, "2026-11-23.md", 1},
		{Rollup{Kind: RollupWeek, Week: Week{2026, 48}}, "refined/2026-11-23.md", 7},
		{Rollup{Kind: RollupMonth, Month: Month{2026, 11}}, "weekly/2026-W45.md", 4},
	} {
		paths := tc.r.SourcePaths()
		if len(paths) != tc.n || paths[0] != tc.first {
			t.Errorf("SourcePaths(%v) = %v, want %d paths from %s", tc.r, paths, tc.n, tc.first)
		}
		// Sources, given every one of them, picks them all in the same order.
		var picked []string
		for _, f := range Sources(tc.r, files(paths...)) {
			picked = append(picked, f.Rel)
		}
		if strings.Join(picked, " ") != strings.Join(paths, " ") {
			t.Errorf("Sources(%v) of its SourcePaths = %v, want %v", tc.r, picked, paths)
		}
	}
}

func TestRollupNames(t *testing.T) {
	for _, tc := range []struct {
		k      RollupKind
		period string
		out    string
	}{
		{RefineDay, "2026-11-30", "refined/2026-11-30.md"},
		{RollupWeek, "2026-W48", "weekly/2026-W48.md"},
		{RollupMonth, "2026-11", "monthly/2026-11.md"},
	} {
		r, err := ParseRollup(tc.k, tc.period)
		if err != nil || r.Period() != tc.period || r.Output() != tc.out {
			t.Errorf("ParseRollup(%v, %s) = %v %v, output %s", tc.k, tc.period, r, err, r.Output())
		}
	}
	if _, err := ParseRollup(RollupWeek, "2027-W53"); err == nil {
		t.Error("ParseRollup accepted 2027-W53")
	}
}

func TestZeroRollupsDoNotPanic(t *testing.T) {
	for _, k := range []RollupKind{RefineDay, RollupWeek, RollupMonth, 0} {
		r := Rollup{Kind: k}
		_ = r.CompleteAfter()
		_ = r.Complete(d("2026-11-30"))
		_ = r.Output()
		_ = Sources(r, files("2026-11-30.md"))
	}
}
