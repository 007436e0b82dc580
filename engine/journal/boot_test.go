package journal

import "testing"

func TestInBootSet(t *testing.T) {
	type row struct {
		today string
		rel   string
		in    bool
	}
	rows := []row{
		// The seed's example: Tuesday 2026-02-17 (2026-W08).
		{"2026-02-17", "2026-02-17.md", true},
		{"2026-02-17", "2026-02-16.md", true},
		{"2026-02-17", "refined/2026-02-16.md", false},
		{"2026-02-17", "weekly/2026-W07.md", true},
		{"2026-02-17", "weekly/2026-W08.md", false}, // this week is not over
		{"2026-02-17", "weekly/2026-W06.md", false}, // older than the previous week
		{"2026-02-17", "monthly/2026-02.md", false},
		{"2026-02-17", "MEMORY.md", true},

		// An ordinary Monday, 2026-11-30 (2026-W49).
		{"2026-11-30", "2026-11-30.md", true},
		{"2026-11-30", "2026-11-29.md", true},
		{"2026-11-30", "2026-11-28.md", false},
		{"2026-11-30", "2026-12-01.md", false}, // tomorrow's (clock skew) is not today's
		{"2026-11-30", "refined/2026-11-30.md", false},
		{"2026-11-30", "refined/2026-11-29.md", false},
		{"2026-11-30", "weekly/2026-W48.md", true},
		{"2026-11-30", "weekly/2026-W49.md", false},
		{"2026-11-30", "weekly/2026-W47.md", false},
		{"2026-11-30", "monthly/2026-11.md", false},
		{"2026-11-30", "monthly/2026-10.md", false},
		{"2026-11-30", "MEMORY.md", true},
		{"2026-11-30", "sticky-notes/devices.md", true},
		{"2026-11-30", "sticky-notes/infra/servers.md", true},
		{"2026-11-30", "notes.md", false},
		{"2026-11-30", "memory.md", false},
		{"2026-11-30", "weekly/2027-W53.md", false},

		// Sunday 2026-11-29 is still in W48: the previous week is W47.
		{"2026-11-29", "weekly/2026-W47.md", true},
		{"2026-11-29", "weekly/2026-W48.md", false},

		// Month boundary: 2026-12-01, yesterday is in November.
		{"2026-12-01", "2026-11-30.md", true},
		{"2026-12-01", "monthly/2026-12.md", false},
		{"2026-12-01", "weekly/2026-W48.md", true},

		// Leap day and the day after.
		{"2028-03-01", "2028-02-29.md", true},
		{"2028-03-01", "2028-02-28.md", false},
		{"2027-03-01", "2027-02-28.md", true},

		// Year boundary, 2026 is a long ISO year: 2027-01-01 is a Friday in 2026-W53.
		{"2027-01-01", "2027-01-01.md", true},
		{"2027-01-01", "2026-12-31.md", true},
		{"2027-01-01", "2026-12-30.md", false},
		{"2027-01-01", "weekly/2026-W52.md", true},
		{"2027-01-01", "weekly/2026-W53.md", false},
		{"2027-01-04", "weekly/2026-W53.md", true}, // Monday of 2027-W01
		{"2027-01-04", "weekly/2027-W01.md", false},
		{"2027-01-10", "weekly/2026-W53.md", true}, // Sunday, still 2027-W01
		{"2027-01-11", "weekly/2026-W53.md", false},
		{"2027-01-11", "weekly/2027-W01.md", true},

		// 2027 is short, so Jan 1 2028 (a Saturday) is in 2027-W52.
		{"2028-01-01", "weekly/2027-W51.md", true},
		{"2028-01-03", "weekly/2027-W52.md", true}, // Monday of 2028-W01
		{"2028-01-01", "2027-12-31.md", true},

		// Dec 30 2024 is a Monday in 2025-W01: the previous week is 2024-W52.
		{"2024-12-30", "weekly/2024-W52.md", true},
		{"2024-12-30", "weekly/2025-W01.md", false},
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
// one), one weekly (none in the first week), no monthly and no refined day.
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
		want := map[Kind]int{Daily: 2, Weekly: 1}
		if i == 0 {
			want[Daily] = 1
		}
		if WeekOf(today) == WeekOf(start) {
			delete(want, Weekly) // no week before the first
		}
		if len(count) != len(want) || count[Daily] != want[Daily] || count[Weekly] != want[Weekly] {
			t.Fatalf("day %v: boot set %v, want %v", today, count, want)
		}
	}
}

// TestBootRank checks the seed's order and the refined days of --earlier.
func TestBootRank(t *testing.T) {
	today := d("2026-02-17")
	rows := []struct {
		rel     string
		earlier int
		rank    int
		in      bool
	}{
		{"2026-02-17.md", 0, BootToday, true},
		{"2026-02-16.md", 0, BootYesterday, true},
		{"weekly/2026-W07.md", 0, BootWeekly, true},
		{"MEMORY.md", 0, BootMemory, true},
		{"sticky-notes/devices.md", 0, BootSticky, true},
		{"refined/2026-02-15.md", 0, 0, false},
		{"refined/2026-02-16.md", 3, 0, false}, // yesterday is there raw
		{"refined/2026-02-15.md", 3, BootEarlier, true},
		{"refined/2026-02-14.md", 3, BootEarlier, true},
		{"refined/2026-02-13.md", 3, BootEarlier, true},
		{"refined/2026-02-12.md", 3, 0, false},
		{"2026-02-15.md", 3, 0, false}, // earlier days come refined, not raw
	}
	for _, r := range rows {
		f, _ := Classify(r.rel)
		rank, in := BootRank(f, today, r.earlier)
		if in != r.in || (in && rank != r.rank) {
			t.Errorf("BootRank(%s, earlier %d) = %d, %v; want %d, %v", r.rel, r.earlier, rank, in, r.rank, r.in)
		}
	}
	if !(BootToday < BootYesterday && BootYesterday < BootEarlier && BootEarlier < BootWeekly && BootWeekly < BootMemory && BootMemory < BootSticky) {
		t.Error("boot ranks are not in the seed's order")
	}
}
