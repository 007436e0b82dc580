package journal

// InBootSet reports whether f is part of the journal's boot set on day today: the
// files the <memory> block takes from the journal, so that its size stays flat from
// day 1 to day 1000. It is BootRank with no earlier days.
func InBootSet(f File, today Day) bool {
	_, ok := BootRank(f, today, 0)
	return ok
}

// Boot-set ranks: the seed's order ("today's daily, yesterday's daily, this week's
// summary, MEMORY.md, and sticky notes. In that order."), with the refined days
// asked for by earlier right after yesterday's daily.
const (
	BootToday = iota
	BootYesterday
	BootEarlier
	BootWeekly
	BootMemory
	BootSticky
)

// BootRank says whether f is in the journal's boot set on day today and where:
// files of a lower rank come first; files of one rank (the refined days, the
// sticky notes) are ordered by key, which for refined days is oldest first.
//
// The boot set is today's raw daily, yesterday's raw daily, the refined days of
// the earlier days before yesterday (only when asked for: earlier > 0), the
// weekly of the last completed ISO week (the week before today's; none when it is
// missing: an older weekly is not loaded, and this week's is not, since it is not
// over), MEMORY.md and every sticky note. No monthly: the seed's agent reads the
// month on demand, and its lessons reach the block through MEMORY.md.
// On 2026-02-17 (a Tuesday in 2026-W08) that is 2026-02-17.md, 2026-02-16.md,
// weekly/2026-W07.md, MEMORY.md and sticky-notes/*. "Yesterday" and the
// previous week cross month and year boundaries (on 2027-01-04, a Monday in
// 2027-W01, the weekly is 2026-W53).
//
// Files with problems (Kind Invalid) and non-journal files (Kind Other) are never
// in the boot set.
func BootRank(f File, today Day, earlier int) (int, bool) {
	switch f.Kind {
	case Daily:
		switch f.Day {
		case today:
			return BootToday, true
		case today.AddDays(-1):
			return BootYesterday, true
		}
	case Refined:
		if earlier > 0 && !f.Day.Before(today.AddDays(-1-earlier)) && f.Day.Before(today.AddDays(-1)) {
			return BootEarlier, true
		}
	case Weekly:
		if f.Week == WeekOf(today.AddDays(-7)) {
			return BootWeekly, true
		}
	case LongTerm:
		return BootMemory, true
	case Sticky:
		return BootSticky, true
	}
	return 0, false
}
