package journal

import (
	"testing"
	"time"
)

func d(s string) Day {
	day, err := ParseDay(s)
	if err != nil {
		panic(err)
	}
	return day
}

func TestParseDay(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"2026-11-30", true},
		{"2024-02-29", true}, // leap year
		{"2000-02-29", true}, // divisible by 400
		{"1900-02-29", false},
		{"2026-02-29", false},
		{"2026-02-30", false},
		{"2026-04-31", false},
		{"2026-13-01", false},
		{"2026-00-10", false},
		{"2026-01-00", false},
		{"0000-01-01", false},
		{"9999-12-31", true},
		{"2026-1-05", false},
		{"2026/11/30", false},
		{"2026-11-3a", false},
		{" 2026-11-30", false},
		{"", false},
	} {
		got, err := ParseDay(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("ParseDay(%q) error = %v, want ok=%v", tc.in, err, tc.ok)
			continue
		}
		if tc.ok && got.String() != tc.in {
			t.Errorf("ParseDay(%q).String() = %q", tc.in, got)
		}
	}
}

// TestDayAgainstTime checks ordinals, weekdays, AddDays and ISO weeks against the
// time package for every day of 1899–2101.
func TestDayAgainstTime(t *testing.T) {
	epoch := time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	prev := Day{}
	for tm := time.Date(1899, 1, 1, 0, 0, 0, 0, time.UTC); tm.Year() < 2102; tm = tm.AddDate(0, 0, 1) {
		day := DayOf(tm)
		if !day.Valid() {
			t.Fatalf("%v not valid", day)
		}
		if got, want := day.ordinal(), int(tm.Sub(epoch).Hours()/24); got != want {
			t.Fatalf("%v ordinal %d, want %d", day, got, want)
		}
		if fromOrdinal(day.ordinal()) != day {
			t.Fatalf("%v does not round-trip", day)
		}
		if day.Weekday() != tm.Weekday() {
			t.Fatalf("%v weekday %v, want %v", day, day.Weekday(), tm.Weekday())
		}
		y, w := tm.ISOWeek()
		if got := WeekOf(day); got != (Week{y, w}) {
			t.Fatalf("WeekOf(%v) = %v, want %d-W%02d", day, got, y, w)
		}
		wk := WeekOf(day)
		if day.Before(wk.Monday()) || day.After(wk.Sunday()) || wk.Monday().Weekday() != time.Monday {
			t.Fatalf("%v outside its week %v (%v–%v)", day, wk, wk.Monday(), wk.Sunday())
		}
		if !prev.IsZero() && (prev.AddDays(1) != day || day.AddDays(-1) != prev || day.Sub(prev) != 1 || !prev.Before(day)) {
			t.Fatalf("AddDays/Sub/Before wrong between %v and %v", prev, day)
		}
		prev = day
	}
}

func TestWeeksInYear(t *testing.T) {
	long := map[int]bool{2004: true, 2009: true, 2015: true, 2020: true, 2026: true, 2032: true, 2037: true}
	for y := 2000; y <= 2040; y++ {
		want := 52
		if long[y] {
			want = 53
		}
		if got := WeeksInYear(y); got != want {
			t.Errorf("WeeksInYear(%d) = %d, want %d", y, got, want)
		}
	}
}

func TestParseWeek(t *testing.T) {
	for _, tc := range []struct {
		in     string
		ok     bool
		monday string
	}{
		{"2026-W48", true, "2026-11-23"},
		{"2026-W01", true, "2025-12-29"},
		{"2026-W53", true, "2026-12-28"}, // 2026 starts on a Thursday: long year
		{"2027-W53", false, ""},
		{"2025-W53", false, ""},
		{"2020-W53", true, "2020-12-28"}, // leap year starting on Wednesday
		{"2025-W01", true, "2024-12-30"},
		{"2026-W00", false, ""},
		{"2026-W54", false, ""},
		{"2026-w48", false, ""},
		{"2026-W4", false, ""},
		{"2026W48", false, ""},
	} {
		w, err := ParseWeek(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("ParseWeek(%q) error = %v, want ok=%v", tc.in, err, tc.ok)
			continue
		}
		if !tc.ok {
			continue
		}
		if w.String() != tc.in || w.Monday().String() != tc.monday {
			t.Errorf("ParseWeek(%q) = %v Monday %v, want Monday %s", tc.in, w, w.Monday(), tc.monday)
		}
		days := w.Days()
		if days[0] != w.Monday() || days[6] != w.Sunday() || days[3] != w.Thursday() {
			t.Errorf("%v: Days %v", w, days)
		}
		for _, day := range days {
			if WeekOf(day) != w {
				t.Errorf("%v: day %v is in %v", w, day, WeekOf(day))
			}
		}
	}
}

func TestWeekNext(t *testing.T) {
	for _, tc := range [][2]string{{"2026-W52", "2026-W53"}, {"2026-W53", "2027-W01"}, {"2027-W52", "2028-W01"}, {"2026-W09", "2026-W10"}} {
		w, _ := ParseWeek(tc[0])
		if got := w.Next().String(); got != tc[1] {
			t.Errorf("%s.Next() = %s, want %s", tc[0], got, tc[1])
		}
	}
}

func TestParseMonth(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"2026-11", true}, {"2026-01", true}, {"2026-12", true},
		{"2026-13", false}, {"2026-00", false}, {"2026-1", false}, {"202611", false}, {"0000-05", false},
	} {
		m, err := ParseMonth(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("ParseMonth(%q) error = %v, want ok=%v", tc.in, err, tc.ok)
		}
		if tc.ok && m.String() != tc.in {
			t.Errorf("ParseMonth(%q) = %v", tc.in, m)
		}
	}
}

func TestMonthDaysAndWeeks(t *testing.T) {
	for _, tc := range []struct {
		month string
		days  int
		weeks string
	}{
		// November 2026: 1st is a Sunday; Thursdays 5, 12, 19, 26.
		{"2026-11", 30, "2026-W45 2026-W46 2026-W47 2026-W48"},
		// December 2026: Thursdays 3…31; W53 (Dec 28 – Jan 3) belongs to December.
		{"2026-12", 31, "2026-W49 2026-W50 2026-W51 2026-W52 2026-W53"},
		// January 2027: first Thursday is the 7th, so W01 starts on Jan 4.
		{"2027-01", 31, "2027-W01 2027-W02 2027-W03 2027-W04"},
		// January 2026: Thursday Jan 1 → 2026-W01 (Mon Dec 29 2025) is January's.
		{"2026-01", 31, "2026-W01 2026-W02 2026-W03 2026-W04 2026-W05"},
		{"2024-02", 29, "2024-W05 2024-W06 2024-W07 2024-W08 2024-W09"}, // Thursdays 1…29
		{"2026-02", 28, "2026-W06 2026-W07 2026-W08 2026-W09"},
	} {
		m, _ := ParseMonth(tc.month)
		days := m.Days()
		if len(days) != tc.days || days[0] != m.First() || days[len(days)-1] != m.Last() {
			t.Errorf("%s: %d days, first %v last %v", tc.month, len(days), days[0], days[len(days)-1])
		}
		var ws []string
		for _, w := range m.Weeks() {
			ws = append(ws, w.String())
			if w.Month() != m {
				t.Errorf("%v.Month() = %v, want %v", w, w.Month(), m)
			}
		}
		if got := join(ws); got != tc.weeks {
			t.Errorf("%s.Weeks() = %s, want %s", tc.month, got, tc.weeks)
		}
	}
}

// TestEveryWeekInOneMonth checks that, over 40 years, every ISO week belongs to
// exactly one month's Weeks.
func TestEveryWeekInOneMonth(t *testing.T) {
	count := map[Week]int{}
	for y := 2000; y < 2040; y++ {
		for mo := time.January; mo <= time.December; mo++ {
			ws := Month{y, mo}.Weeks()
			if len(ws) < 4 || len(ws) > 5 {
				t.Errorf("%v has %d weeks", Month{y, mo}, len(ws))
			}
			for _, w := range ws {
				count[w]++
			}
		}
	}
	for w := WeekOf(d("2000-01-06")); w.Year < 2040; w = w.Next() {
		if count[w] != 1 {
			t.Fatalf("%v is in %d months", w, count[w])
		}
	}
}

func join(ss []string) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += " "
		}
		out += s
	}
	return out
}
