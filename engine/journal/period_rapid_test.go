package journal

import (
	"testing"
	"time"

	"pgregory.net/rapid"
)

// The journal's calendar must be the standard library's proleptic Gregorian
// calendar over every year a file name can carry (0001–9999): these properties
// compare each operation of Day, Week and Month with time.Time in UTC.

// utc is the midnight, UTC, of a civil date.
func utc(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func drawDay(t *rapid.T, label string) Day {
	y := rapid.IntRange(minYear, maxYear).Draw(t, label+"/year")
	m := time.Month(rapid.IntRange(1, 12).Draw(t, label+"/month"))
	last := utc(y, m+1, 0).Day()
	return Day{y, m, rapid.IntRange(1, last).Draw(t, label+"/day")}
}

func timeOf(d Day) time.Time { return utc(d.Year, d.Month, d.Day) }

// civilDays is the number of days from o to d counted by time: whole days of
// Unix seconds, since a Duration cannot hold ten thousand years.
func civilDays(d, o time.Time) int { return int((d.Unix() - o.Unix()) / 86400) }

func TestDayMatchesTime(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		day := drawDay(t, "d")
		tm := timeOf(day)
		if DayOf(tm) != day {
			t.Fatalf("DayOf(%v) = %v", tm, DayOf(tm))
		}
		if !day.Valid() {
			t.Fatalf("%v not valid", day)
		}
		if got, err := ParseDay(day.String()); err != nil || got != day || day.String() != tm.Format(time.DateOnly) {
			t.Fatalf("%v: String %q, ParseDay %v %v", day, day.String(), got, err)
		}
		if got, want := day.ordinal(), civilDays(tm, utc(1970, 1, 1)); got != want {
			t.Fatalf("%v ordinal %d, want %d", day, got, want)
		}
		if fromOrdinal(day.ordinal()) != day {
			t.Fatalf("%v does not round-trip through its ordinal", day)
		}
		if day.Weekday() != tm.Weekday() {
			t.Fatalf("%v weekday %v, want %v", day, day.Weekday(), tm.Weekday())
		}
		n := rapid.IntRange(-4_000_000, 4_000_000).Draw(t, "n")
		if got, want := day.AddDays(n), DayOf(tm.AddDate(0, 0, n)); got != want {
			t.Fatalf("%v + %d days = %v, want %v", day, n, got, want)
		}
		other := drawDay(t, "o")
		if got, want := day.Sub(other), civilDays(tm, timeOf(other)); got != want {
			t.Fatalf("%v - %v = %d days, want %d", day, other, got, want)
		}
		if got, want := day.Compare(other), tm.Compare(timeOf(other)); got != want {
			t.Fatalf("%v compared with %v = %d, want %d", day, other, got, want)
		}
		if day.Before(other) != tm.Before(timeOf(other)) || day.After(other) != tm.After(timeOf(other)) {
			t.Fatalf("Before/After of %v and %v disagree with time", day, other)
		}
	})
}

func TestInvalidDaysMatchTime(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		y := rapid.IntRange(-10, maxYear+10).Draw(t, "year")
		m := time.Month(rapid.IntRange(-1, 14).Draw(t, "month"))
		dd := rapid.IntRange(-1, 33).Draw(t, "day")
		day := Day{y, m, dd}
		// A date exists when time does not have to normalise it.
		exists := y >= minYear && y <= maxYear && DayOf(utc(y, m, dd)) == day
		if day.Valid() != exists {
			t.Fatalf("%+v Valid() = %v, want %v", day, day.Valid(), exists)
		}
	})
}

func TestWeekMatchesTime(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		day := drawDay(t, "d")
		tm := timeOf(day)
		y, n := tm.ISOWeek()
		w := WeekOf(day)
		if w != (Week{y, n}) {
			t.Fatalf("WeekOf(%v) = %v, want %d-W%02d", day, w, y, n)
		}
		if w.Year < minYear || w.Year > maxYear {
			return // 0001-01-01 is in week 52 of year 0
		}
		if !w.Valid() {
			t.Fatalf("%v not valid", w)
		}
		if got, err := ParseWeek(w.String()); err != nil || got != w {
			t.Fatalf("%v: ParseWeek(%q) = %v %v", w, w.String(), got, err)
		}
		mon := w.Monday()
		if timeOf(mon).Weekday() != time.Monday || civilDays(tm, timeOf(mon)) < 0 || civilDays(tm, timeOf(mon)) > 6 {
			t.Fatalf("%v: Monday %v is not the Monday of %v's week", w, mon, day)
		}
		days := w.Days()
		for i, x := range days {
			if x != DayOf(timeOf(mon).AddDate(0, 0, i)) {
				t.Fatalf("%v: day %d is %v", w, i, x)
			}
		}
		if w.Thursday() != days[3] || w.Sunday() != days[6] {
			t.Fatalf("%v: Thursday %v, Sunday %v, days %v", w, w.Thursday(), w.Sunday(), days)
		}
		if w.Month() != MonthOf(days[3]) {
			t.Fatalf("%v: month %v, its Thursday is %v", w, w.Month(), days[3])
		}
		ny, nn := timeOf(mon).AddDate(0, 0, 7).ISOWeek()
		if w.Next() != (Week{ny, nn}) {
			t.Fatalf("%v: next %v, want %d-W%02d", w, w.Next(), ny, nn)
		}
	})
}

func TestWeeksInYearMatchesTime(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		y := rapid.IntRange(minYear, maxYear).Draw(t, "year")
		// The last ISO week of a year is the week of its 28 December.
		_, want := utc(y, time.December, 28).ISOWeek()
		if got := WeeksInYear(y); got != want {
			t.Fatalf("WeeksInYear(%d) = %d, want %d", y, got, want)
		}
		n := rapid.IntRange(-1, 54).Draw(t, "week")
		if got := (Week{y, n}).Valid(); got != (n >= 1 && n <= want) {
			t.Fatalf("Week{%d, %d}.Valid() = %v (%d weeks)", y, n, got, want)
		}
	})
}

func TestMonthMatchesTime(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		day := drawDay(t, "d")
		m := MonthOf(day)
		first, next := utc(m.Year, m.Month, 1), utc(m.Year, m.Month+1, 1)
		if m.First() != DayOf(first) || m.Last() != DayOf(next.AddDate(0, 0, -1)) {
			t.Fatalf("%v: first %v, last %v", m, m.First(), m.Last())
		}
		days := m.Days()
		if len(days) != civilDays(next, first) {
			t.Fatalf("%v has %d days, want %d", m, len(days), civilDays(next, first))
		}
		for i, x := range days {
			if x != DayOf(first.AddDate(0, 0, i)) {
				t.Fatalf("%v: day %d is %v", m, i, x)
			}
		}
		var want []Week
		for tm := first; tm.Before(next); tm = tm.AddDate(0, 0, 1) {
			if tm.Weekday() == time.Thursday {
				y, n := tm.ISOWeek()
				want = append(want, Week{y, n})
			}
		}
		got := m.Weeks()
		if len(got) != len(want) {
			t.Fatalf("%v weeks %v, want %v", m, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%v weeks %v, want %v", m, got, want)
			}
		}
		if got, err := ParseMonth(m.String()); err != nil || got != m {
			t.Fatalf("%v: ParseMonth(%q) = %v %v", m, m.String(), got, err)
		}
	})
}
