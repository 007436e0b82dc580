package journal

// InBootSet reports whether f is part of the journal's boot set on day today: the
// files the <memory> block takes from the journal, so that its size stays flat from
// day 1 to day 1000.
//
// The boot set is today's and yesterday's raw daily, the weekly of the ISO week
// containing today, the monthly of the calendar month containing today, MEMORY.md
// and every sticky note. Nothing older: refined dailies, earlier weeklies and
// monthlies stay on disk and are read on demand. "This week" is the ISO week, so on
// 2027-01-01 (a Friday in 2026-W53) it is weekly/2026-W53.md, while "this month" is
// monthly/2027-01.md. "Yesterday" crosses month and year boundaries as expected
// (on 2027-01-01 it is 2026-12-31.md).
//
// Files with problems (Kind Invalid) and non-journal files (Kind Other) are never
// in the boot set.
func InBootSet(f File, today Day) bool {
	switch f.Kind {
	case Daily:
		return f.Day == today || f.Day == today.AddDays(-1)
	case Weekly:
		return f.Week == WeekOf(today)
	case Monthly:
		return f.Month == MonthOf(today)
	case LongTerm, Sticky:
		return true
	}
	return false
}
