package journal

import (
	"cmp"
	"fmt"
	"time"
)

// Day is a civil date: a year, a month and a day of the month, with no time and no
// time zone. The caller decides which day "today" is (in the user's zone); the
// journal never looks at a clock.
type Day struct {
	Year  int
	Month time.Month
	Day   int
}

// Week is an ISO 8601 week: the week-numbering year and the week number (1–53).
// ISO weeks start on Monday; week 1 is the week with the year's first Thursday.
type Week struct {
	Year int
	Week int
}

// Month is a calendar month of a year.
type Month struct {
	Year  int
	Month time.Month
}

// minYear and maxYear bound the four-digit years a journal file name can carry.
const (
	minYear = 1
	maxYear = 9999
)

// DayOf returns the civil date of t in t's own location.
func DayOf(t time.Time) Day {
	y, m, d := t.Date()
	return Day{y, m, d}
}

// ParseDay parses YYYY-MM-DD (exactly four, two and two digits) and rejects dates
// that do not exist, such as 2026-02-30 or 2027-02-29.
func ParseDay(s string) (Day, error) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return Day{}, fmt.Errorf("journal: %q is not a date (want YYYY-MM-DD)", s)
	}
	y, ok1 := digits(s[0:4])
	m, ok2 := digits(s[5:7])
	d, ok3 := digits(s[8:10])
	if !ok1 || !ok2 || !ok3 {
		return Day{}, fmt.Errorf("journal: %q is not a date (want YYYY-MM-DD)", s)
	}
	day := Day{y, time.Month(m), d}
	if !day.Valid() {
		return Day{}, fmt.Errorf("journal: %s does not exist", s)
	}
	return day, nil
}

// Valid reports whether d is a date that exists, in years 0001–9999.
func (d Day) Valid() bool {
	if d.Year < minYear || d.Year > maxYear || d.Month < 1 || d.Month > 12 || d.Day < 1 {
		return false
	}
	return d.Day <= daysIn(d.Year, d.Month)
}

// String formats d as YYYY-MM-DD.
func (d Day) String() string {
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day)
}

// IsZero reports whether d is the zero Day.
func (d Day) IsZero() bool { return d == Day{} }

// midnight is d at 00:00 UTC: the standard library's proleptic Gregorian
// calendar does the journal's arithmetic, and UTC has no daylight saving to
// make a day other than 24 hours.
func (d Day) midnight() time.Time { return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC) }

const secondsPerDay = 24 * 60 * 60

// ordinal is the number of days since 1970-01-01. A time.Duration cannot span
// the years 0001–9999, so whole days are counted in Unix seconds.
func (d Day) ordinal() int { return int(d.midnight().Unix() / secondsPerDay) }

// fromOrdinal is the day n days after 1970-01-01.
func fromOrdinal(n int) Day { return DayOf(time.Unix(int64(n)*secondsPerDay, 0).UTC()) }

// AddDays returns the day n days after d (before it when n is negative).
func (d Day) AddDays(n int) Day { return DayOf(d.midnight().AddDate(0, 0, n)) }

// Sub returns the number of days from o to d (d - o).
func (d Day) Sub(o Day) int { return d.ordinal() - o.ordinal() }

// Compare returns -1, 0 or +1 as d is before, equal to or after o.
func (d Day) Compare(o Day) int {
	return cmp.Or(cmp.Compare(d.Year, o.Year), cmp.Compare(d.Month, o.Month), cmp.Compare(d.Day, o.Day))
}

// Before reports whether d is before o.
func (d Day) Before(o Day) bool { return d.Compare(o) < 0 }

// After reports whether d is after o.
func (d Day) After(o Day) bool { return d.Compare(o) > 0 }

// Weekday returns the day of the week of d.
func (d Day) Weekday() time.Weekday { return d.midnight().Weekday() }

// isoDow is the ISO day of the week: Monday 1 … Sunday 7.
func (d Day) isoDow() int {
	w := int(d.Weekday())
	if w == 0 {
		return 7
	}
	return w
}

// WeekOf returns the ISO week containing d. Around New Year the week can belong to
// the neighbouring year: 2027-01-01 is in 2026-W53, 2024-12-30 is in 2025-W01.
func WeekOf(d Day) Week {
	y, w := d.midnight().ISOWeek()
	return Week{Year: y, Week: w}
}

// MonthOf returns the calendar month containing d.
func MonthOf(d Day) Month { return Month{d.Year, d.Month} }

// WeeksInYear returns 53 for ISO long years and 52 otherwise. A year is long when
// it starts on a Thursday, or is a leap year starting on a Wednesday; equivalently
// when its 28 December falls in week 53.
func WeeksInYear(year int) int {
	return WeekOf(Day{year, time.December, 28}).Week
}

// ParseWeek parses YYYY-Www (capital W, two-digit week) and rejects week 0 and
// week 53 of a year that has only 52 weeks.
func ParseWeek(s string) (Week, error) {
	if len(s) != 8 || s[4] != '-' || s[5] != 'W' {
		return Week{}, fmt.Errorf("journal: %q is not an ISO week (want YYYY-Www)", s)
	}
	y, ok1 := digits(s[0:4])
	n, ok2 := digits(s[6:8])
	if !ok1 || !ok2 {
		return Week{}, fmt.Errorf("journal: %q is not an ISO week (want YYYY-Www)", s)
	}
	w := Week{y, n}
	if !w.Valid() {
		return Week{}, fmt.Errorf("journal: week %s does not exist (%04d has %d ISO weeks)", s, y, weeksInYearSafe(y))
	}
	return w, nil
}

func weeksInYearSafe(y int) int {
	if y < minYear || y > maxYear {
		return 0
	}
	return WeeksInYear(y)
}

// Valid reports whether w exists: week 1 to 52, or 53 in a long year.
func (w Week) Valid() bool {
	if w.Year < minYear || w.Year > maxYear || w.Week < 1 {
		return false
	}
	return w.Week <= WeeksInYear(w.Year)
}

// String formats w as YYYY-Www.
func (w Week) String() string { return fmt.Sprintf("%04d-W%02d", w.Year, w.Week) }

// Monday returns the first day of w.
func (w Week) Monday() Day {
	// 4 January is always in week 1.
	jan4 := Day{w.Year, time.January, 4}
	return jan4.AddDays(1 - jan4.isoDow() + 7*(w.Week-1))
}

// Thursday returns the Thursday of w, the day that decides its year and its month.
func (w Week) Thursday() Day { return w.Monday().AddDays(3) }

// Sunday returns the last day of w.
func (w Week) Sunday() Day { return w.Monday().AddDays(6) }

// Days returns the seven days of w, Monday first.
func (w Week) Days() [7]Day {
	var out [7]Day
	mon := w.Monday()
	for i := range out {
		out[i] = mon.AddDays(i)
	}
	return out
}

// Month returns the month w belongs to: the month of its Thursday (see Month.Weeks).
func (w Week) Month() Month { return MonthOf(w.Thursday()) }

// Next returns the week after w.
func (w Week) Next() Week { return WeekOf(w.Monday().AddDays(7)) }

// Compare returns -1, 0 or +1 as w is before, equal to or after o.
func (w Week) Compare(o Week) int {
	return cmp.Or(cmp.Compare(w.Year, o.Year), cmp.Compare(w.Week, o.Week))
}

// ParseMonth parses YYYY-MM and rejects months outside 01–12.
func ParseMonth(s string) (Month, error) {
	if len(s) != 7 || s[4] != '-' {
		return Month{}, fmt.Errorf("journal: %q is not a month (want YYYY-MM)", s)
	}
	y, ok1 := digits(s[0:4])
	m, ok2 := digits(s[5:7])
	if !ok1 || !ok2 {
		return Month{}, fmt.Errorf("journal: %q is not a month (want YYYY-MM)", s)
	}
	mo := Month{y, time.Month(m)}
	if !mo.Valid() {
		return Month{}, fmt.Errorf("journal: month %s does not exist", s)
	}
	return mo, nil
}

// Valid reports whether m is a month 01–12 of a year 0001–9999.
func (m Month) Valid() bool {
	return m.Year >= minYear && m.Year <= maxYear && m.Month >= 1 && m.Month <= 12
}

// String formats m as YYYY-MM.
func (m Month) String() string { return fmt.Sprintf("%04d-%02d", m.Year, int(m.Month)) }

// First returns the first day of m.
func (m Month) First() Day { return Day{m.Year, m.Month, 1} }

// Last returns the last day of m.
func (m Month) Last() Day { return Day{m.Year, m.Month, daysIn(m.Year, m.Month)} }

// Days returns every day of m in order.
func (m Month) Days() []Day {
	n := daysIn(m.Year, m.Month)
	out := make([]Day, n)
	for i := range out {
		out[i] = Day{m.Year, m.Month, i + 1}
	}
	return out
}

// Weeks returns the ISO weeks that belong to m: those whose Thursday falls in m.
// Every ISO week thus belongs to exactly one month (four or five weeks each), the
// same rule ISO uses to give a week to a year, so a weekly is read by exactly one
// monthly. A week can start up to three days before m or end up to three days after.
func (m Month) Weeks() []Week {
	first := m.First()
	// First Thursday on or after the 1st.
	thu := first.AddDays(int(time.Thursday-first.Weekday()+7) % 7)
	var out []Week
	for ; thu.Year == m.Year && thu.Month == m.Month; thu = thu.AddDays(7) {
		out = append(out, WeekOf(thu))
	}
	return out
}

// Compare returns -1, 0 or +1 as m is before, equal to or after o.
func (m Month) Compare(o Month) int {
	return cmp.Or(cmp.Compare(m.Year, o.Year), cmp.Compare(m.Month, o.Month))
}

// daysIn is the length of a month: day 0 of the next month is its last day.
func daysIn(y int, m time.Month) int { return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day() }

// digits parses a run of ASCII digits (no sign, no spaces).
func digits(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
