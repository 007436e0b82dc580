package journal

import "testing"

func TestInBootSet(t *testing.T) {
	type row struct {
		today string
		rel   string
		in    bool
	}
	rows := []row{
		// An ordinary Monday, 2026-11-30 (2026-W49).
		{"2026-11-30", "2026-11-30.md", true},
		{"2026-11-30", "2026-11-29.md", true},
		{"2026-11-30", "2026-11-28.md", false},
		{"2026-11-30", "2026-12-01.md", false}, // tomorrow's (clock skew) is not today's
		{"2026-11-30", "refined/2026-11-30.md", false},
		{"2026-11-30", "refined/2026-11-29.md", false},
		{"2026-11-30", "weekly/2026-W49.md", true},
		{"2026-11-30", "weekly/2026-W48.md", false},
		{"2026-11-30", "monthly/2026-11.md", true},
		{"2026-11-30", "monthly/2026-10.md", false},
		{"2026-11-30", "MEMORY.md", true},
		{"2026-11-30", "sticky-notes/devices.md", true},
		{"2026-11-30", "sticky-notes/infra/servers.md", true},
		{"2026-11-30", "notes.md", false},
		{"2026-11-30", "memory.md", false},
		{"2026-11-30", "weekly/2027-W53.md", false},

		// Sunday 2026-11-29 is still in W48.
		{"2026-11-29", "weekly/2026-W48.md", true},
		{"2026-11-29", "weekly/2026-W49.md", false},

		// Month boundary: 2026-12-01, yesterday is in November.
		{"2026-12-01", "2026-11-30.md", true},
		{"2026-12-01", "monthly/2026-12.md", true},
		{"2026-12-01", "monthly/2026-11.md", false},
		{"2026-12-01", "weekly/2026-W49.md", true},

		// Leap day and the day after.
		{"2028-03-01", "2028-02-29.md", true},
		{"2028-03-01", "2028-02-28.md", false},
		{"2027-03-01", "2027-02-28.md", true},

		// Year boundary, 2026 is a long ISO year: 2027-01-01 is a Friday in 2026-W53.
		{"2027-01-01", "2027-01-01.md", true},
		{"2027-01-01", "2026-12-31.md", true},
		{"2027-01-01", "2026-12-30.md", false},
		{"2027-01-01", "weekly/2026-W53.md", true},
		{"2027-01-01", "weekly/2027-W01.md", false},
		{"2027-01-01", "weekly/2026-W52.md", false},
		{"2027-01-01", "monthly/2027-01.md", true},
		{"2027-01-01", "monthly/2026-12.md", false},
		{"2027-01-03", "weekly/2026-W53.md", true}, // Sunday, still W53
		{"2027-01-04", "weekly/2026-W53.md", false},
		{"2027-01-04", "weekly/2027-W01.md", true},
		{"2026-12-28", "weekly/2026-W53.md", true},
		{"2026-12-27", "weekly/2026-W52.md", true},

		// 2027 is short, so Jan 1 2028 (a Saturday) is in 2027-W52.
		{"2028-01-01", "weekly/2027-W52.md", true},
		{"2028-01-01", "weekly/2028-W01.md", false},
		{"2028-01-01", "2027-12-31.md", true},
		{"2028-01-01", "monthly/2028-01.md", true},

		// Dec 30 2024 is a Monday in 2025-W01: the week of the next year.
		{"2024-12-30", "weekly/2025-W01.md", true},
		{"2024-12-30", "weekly/2024-W52.md", false},
		{"2024-12-30", "monthly/2024-12.md", true},
		{"2024-12-30", "monthly/2025-01.md", false},

		// 2021-01-01 is a Friday in 2020-W53 (2020 is long).
		{"2021-01-01", "weekly/2020-W53.md", true},
		{"2021-01-01", "2020-12-31.md", true},
		{"2021-01-01", "monthly/2021-01.md", true},
	}
	for _, r := range rows {
		f, _ := Classify(r.rel)
		if got := InBootSet(f, d(r.today)); got != r.in {
			t.Errorf("today %s: InBootSet(%s) = %v, want %v", r.today, r.rel, got, r.in)
		}
	}
}

// TestBootSetFlat checks the point of the journal: on every day of a 1,000-day
// journal with every rollup written, the boot set holds two dailies (one on day
// one), one weekly, one monthly and no refined day.
func TestBootSetFlat(t *testing.T) {
	start := d("2026-01-01")
	seen := map[string]bool{}
	var files []File
	for i := 0; i < 1000; i++ {
		day := start.AddDays(i)
		for _, p := range []string{Path(Daily, day, Week{}, Month{}), Path(Refined, day, Week{}, Month{}),
			Path(Weekly, Day{}, WeekOf(day), Month{}), Path(Monthly, Day{}, Week{}, MonthOf(day))} {
			if !seen[p] {
				seen[p] = true
				f, _ := Classify(p)
				files = append(files, f)
			}
		}
	}
	for i := 0; i < 1000; i++ {
		today := start.AddDays(i)
		count := map[Kind]int{}
		for _, f := range files {
			if InBootSet(f, today) {
				count[f.Kind]++
			}
		}
		want := map[Kind]int{Daily: 2, Weekly: 1, Monthly: 1}
		if i == 0 {
			want[Daily] = 1
		}
		if len(count) != len(want) || count[Daily] != want[Daily] || count[Weekly] != 1 || count[Monthly] != 1 {
			t.Fatalf("day %v: boot set %v, want %v", today, count, want)
		}
	}
}
