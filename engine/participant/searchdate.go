package participant

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/magicfrog/mf-lsp/engine/journal"
)

// dayRange is the days a date expression of a query names, both ends included.
type dayRange struct{ from, to journal.Day }

func (r dayRange) holds(d journal.Day) bool { return !d.Before(r.from) && !d.After(r.to) }

// monthNames maps a month's name and its abbreviations to the month; built
// at first use, as the expressions below are, so that a command that never
// searches does not pay for them at start-up.
var monthNames = sync.OnceValue(func() map[string]time.Month {
	names := map[string]time.Month{}
	for m := time.January; m <= time.December; m++ {
		name := strings.ToLower(m.String())
		names[name] = m
		if len(name) > 3 {
			names[name[:3]] = m
		}
	}
	names["sept"] = time.September
	return names
})

const monthRe = `(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)`

// dateExprs are the date expressions of a query, compiled at first use.
type dateExprs struct{ isoDay, dayMonth, monthDay, inMonth, monthYr, relative *regexp.Regexp }

var dateRes = sync.OnceValue(func() dateExprs {
	return dateExprs{
		isoDay:   regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})\b`),
		dayMonth: regexp.MustCompile(`\b(?:on\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?` + monthRe + `\b(?:,?\s+(\d{4})\b)?`),
		monthDay: regexp.MustCompile(`\b(?:on\s+)?` + monthRe + `\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(\d{4})\b)?`),
		inMonth:  regexp.MustCompile(`\b(?:in|during|of)\s+` + monthRe + `\b(?:\s+(\d{4})\b)?`),
		monthYr:  regexp.MustCompile(`\b` + monthRe + `\s+(\d{4})\b`),
		relative: regexp.MustCompile(`\b(yesterday|today|(?:last|this|past)\s+(?:week|month|year)|(\d+|a|one|two|three|four|five|six)\s+(days?|weeks?|months?)\s+ago)\b`),
	}
})

var smallNumbers = map[string]int{"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}

// queryDates finds the date expressions of a query ("on 8 May 2023", "in May",
// "last week", "3 days ago", "2026-05-08"), resolves them against today, and
// returns the query with them taken out. A month or day without a year is the
// latest one not after today.
func queryDates(q string, today journal.Day) (string, []dayRange) {
	lower := strings.ToLower(q)
	res, months := dateRes(), monthNames()
	var out []dayRange
	cut := func(re *regexp.Regexp, resolve func(m []string) (dayRange, bool)) {
		for {
			loc := re.FindStringSubmatchIndex(lower)
			if loc == nil {
				return
			}
			m := make([]string, len(loc)/2)
			for i := range m {
				if loc[2*i] >= 0 {
					m[i] = lower[loc[2*i]:loc[2*i+1]]
				}
			}
			r, ok := resolve(m)
			if !ok {
				// Not a date: leave the words, look no further with this form.
				return
			}
			out = append(out, r)
			lower = lower[:loc[0]] + " " + lower[loc[1]:]
		}
	}
	year := func(s string) (int, bool) {
		if s == "" {
			return 0, false
		}
		y, err := strconv.Atoi(s)
		return y, err == nil
	}
	day := func(y int, hasYear bool, m time.Month, d int) (dayRange, bool) {
		if !hasYear {
			y = today.Year
			if (journal.Day{Year: y, Month: m, Day: d}).After(today) {
				y--
			}
		}
		dd := journal.Day{Year: y, Month: m, Day: d}
		if !dd.Valid() {
			return dayRange{}, false
		}
		return dayRange{dd, dd}, true
	}
	month := func(y int, hasYear bool, m time.Month) dayRange {
		if !hasYear {
			y = today.Year
			if m > today.Month {
				y--
			}
		}
		first := journal.Day{Year: y, Month: m, Day: 1}
		return dayRange{first, journal.DayOf(time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC))}
	}
	cut(res.isoDay, func(m []string) (dayRange, bool) {
		d, err := journal.ParseDay(m[0])
		return dayRange{d, d}, err == nil
	})
	cut(res.dayMonth, func(m []string) (dayRange, bool) {
		d, _ := strconv.Atoi(m[1])
		y, ok := year(m[3])
		return day(y, ok, months[m[2]], d)
	})
	cut(res.monthDay, func(m []string) (dayRange, bool) {
		d, _ := strconv.Atoi(m[2])
		y, ok := year(m[3])
		return day(y, ok, months[m[1]], d)
	})
	cut(res.monthYr, func(m []string) (dayRange, bool) {
		y, _ := year(m[2])
		return month(y, true, months[m[1]]), true
	})
	cut(res.inMonth, func(m []string) (dayRange, bool) {
		y, ok := year(m[2])
		return month(y, ok, months[m[1]]), true
	})
	cut(res.relative, func(m []string) (dayRange, bool) {
		w := strings.Fields(m[1])
		switch {
		case m[1] == "yesterday":
			d := today.AddDays(-1)
			return dayRange{d, d}, true
		case m[1] == "today":
			return dayRange{today, today}, true
		case w[len(w)-1] == "ago":
			n, err := strconv.Atoi(w[0])
			if err != nil {
				n = smallNumbers[w[0]]
			}
			switch unit := strings.TrimSuffix(w[1], "s"); unit {
			case "day":
				d := today.AddDays(-n)
				return dayRange{d.AddDays(-1), d.AddDays(1)}, true
			case "week":
				d := today.AddDays(-7 * n)
				return dayRange{d.AddDays(-3), d.AddDays(3)}, true
			default:
				first := journal.Day{Year: today.Year, Month: today.Month, Day: 1}
				t := time.Date(first.Year, first.Month-time.Month(n), 1, 0, 0, 0, 0, time.UTC)
				return month(t.Year(), true, t.Month()), true
			}
		}
		monday := today.AddDays(-(int(today.Weekday()) + 6) % 7)
		switch m[1][strings.LastIndexByte(m[1], ' ')+1:] {
		case "week":
			if w[0] == "this" {
				return dayRange{monday, today}, true
			}
			if w[0] == "past" {
				return dayRange{today.AddDays(-7), today}, true
			}
			return dayRange{monday.AddDays(-7), monday.AddDays(-1)}, true
		case "month":
			if w[0] == "last" {
				t := time.Date(today.Year, today.Month-1, 1, 0, 0, 0, 0, time.UTC)
				return month(t.Year(), true, t.Month()), true
			}
			if w[0] == "past" {
				return dayRange{today.AddDays(-31), today}, true
			}
			return month(today.Year, true, today.Month), true
		default: // year
			y := today.Year
			if w[0] == "last" {
				y--
			}
			return dayRange{journal.Day{Year: y, Month: 1, Day: 1}, journal.Day{Year: y, Month: 12, Day: 31}}, true
		}
	})
	return lower, out
}
