package journal

import (
	"fmt"
	"sort"
)

// TranscriptPrefix starts the `sources:` key of a session transcript a day
// refine read ("transcripts/claude/5f1c.jsonl"): a file outside the journal,
// which only the rollup engine can check for staleness.
const TranscriptPrefix = "transcripts/"

// RollupKind is one of the three rollups.
type RollupKind int

// The rollups: a raw daily into a refined day, a week's refined days into a
// weekly, a month's weeklies into a monthly.
const (
	RefineDay RollupKind = iota + 1
	RollupWeek
	RollupMonth
)

func (k RollupKind) String() string {
	switch k {
	case RefineDay:
		return "day"
	case RollupWeek:
		return "week"
	case RollupMonth:
		return "month"
	}
	return fmt.Sprintf("RollupKind(%d)", int(k))
}

// Rollup is one rollup to run: its kind and its period (Day for RefineDay, Week
// for RollupWeek, Month for RollupMonth).
type Rollup struct {
	Kind  RollupKind
	Day   Day
	Week  Week
	Month Month
}

// Period returns the rollup's period as written in file names: 2026-11-30,
// 2026-W48 or 2026-11.
func (r Rollup) Period() string {
	switch r.Kind {
	case RefineDay:
		return r.Day.String()
	case RollupWeek:
		return r.Week.String()
	case RollupMonth:
		return r.Month.String()
	}
	return ""
}

// Output returns the path the rollup writes, relative to the layer root.
func (r Rollup) Output() string {
	switch r.Kind {
	case RefineDay:
		return Path(Refined, r.Day, Week{}, Month{})
	case RollupWeek:
		return Path(Weekly, Day{}, r.Week, Month{})
	case RollupMonth:
		return Path(Monthly, Day{}, Week{}, r.Month)
	}
	return ""
}

// SourcePaths returns the paths the rollup reads, relative to the layer root,
// in date order, whether they exist or not: a refined day reads its raw daily,
// a week the refined days of its seven days, a month the weeklies of its weeks
// (Month.Weeks). Sources picks the same files from a list of existing ones.
func (r Rollup) SourcePaths() []string {
	var out []string
	switch r.Kind {
	case RefineDay:
		out = append(out, Path(Daily, r.Day, Week{}, Month{}))
	case RollupWeek:
		for _, d := range r.Week.Days() {
			out = append(out, Path(Refined, d, Week{}, Month{}))
		}
	case RollupMonth:
		for _, w := range r.Month.Weeks() {
			out = append(out, Path(Weekly, Day{}, w, Month{}))
		}
	}
	return out
}

func (r Rollup) String() string { return r.Kind.String() + " " + r.Period() }

// ParseRollup makes the rollup of kind k for a period written as in file names.
func ParseRollup(k RollupKind, period string) (Rollup, error) {
	var err error
	r := Rollup{Kind: k}
	switch k {
	case RefineDay:
		r.Day, err = ParseDay(period)
	case RollupWeek:
		r.Week, err = ParseWeek(period)
	case RollupMonth:
		r.Month, err = ParseMonth(period)
	default:
		err = fmt.Errorf("journal: unknown rollup kind %d", int(k))
	}
	return r, err
}

// CompleteAfter returns the last day the rollup's sources can still grow on; the
// rollup is complete, and may run, once today is after it.
//
//   - a day: the day itself;
//   - a week: its Sunday;
//   - a month: its last day, or the Sunday of its last week when that is later.
//     A week belongs to the month of its Thursday (Month.Weeks), so the last week
//     of a month can end up to three days into the next month; a monthly written
//     before that week is over would miss it.
func (r Rollup) CompleteAfter() Day {
	switch r.Kind {
	case RefineDay:
		return r.Day
	case RollupWeek:
		return r.Week.Sunday()
	case RollupMonth:
		last := r.Month.Last()
		ws := r.Month.Weeks()
		if len(ws) == 0 { // not a valid month
			return last
		}
		if s := ws[len(ws)-1].Sunday(); s.After(last) {
			return s
		}
		return last
	}
	return Day{}
}

// Complete reports whether the rollup's period is over on day today.
func (r Rollup) Complete(today Day) bool { return r.CompleteAfter().Before(today) }

// Sources returns the files among files that rollup r reads, in date order:
// a refined day reads that day's raw daily; a week reads the refined dailies of its
// seven days; a month reads the weeklies of its weeks (Month.Weeks). Only files
// present in files are returned. When running the list from Due in order, add each
// output to files before asking for the sources of the next rollup.
func Sources(r Rollup, files []File) []File {
	var out []File
	switch r.Kind {
	case RefineDay:
		for _, f := range files {
			if f.Kind == Daily && f.Day == r.Day {
				out = append(out, f)
			}
		}
	case RollupWeek:
		for _, f := range files {
			if f.Kind == Refined && WeekOf(f.Day) == r.Week {
				out = append(out, f)
			}
		}
	case RollupMonth:
		for _, f := range files {
			if f.Kind == Weekly && f.Week.Month() == r.Month {
				out = append(out, f)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return fileOrder(out[i], out[j]) })
	return dedupeFiles(out)
}

func fileOrder(a, b File) bool {
	if c := a.Day.Compare(b.Day); c != 0 {
		return c < 0
	}
	if c := a.Week.Compare(b.Week); c != 0 {
		return c < 0
	}
	return a.Rel < b.Rel
}

func dedupeFiles(fs []File) []File {
	out := fs[:0]
	for i, f := range fs {
		if i > 0 && f.Rel == fs[i-1].Rel {
			continue
		}
		out = append(out, f)
	}
	return out
}

// Due returns the rollups that can run on day today and have not: the period is
// complete (Rollup.Complete), its sources exist, and its output does not. A
// source counts as existing when it is in files or is itself the output of an
// earlier rollup in the returned list, so one call plans a whole catch-up: the
// raw dailies of a week, then the week, then the month.
//
// The order is oldest first and in dependency order: by the day the period
// completes, then day before week before month, so every rollup comes after the
// rollups whose outputs it reads. Stale outputs (a source changed since) are the
// engine's business: it compares the hashes recorded in the output's frontmatter.
func Due(files []File, today Day) []Rollup {
	raw := map[Day]bool{}
	refined := map[Day]bool{}
	weekly := map[Week]bool{}
	monthly := map[Month]bool{}
	for _, f := range files {
		switch f.Kind {
		case Daily:
			raw[f.Day] = true
		case Refined:
			refined[f.Day] = true
		case Weekly:
			weekly[f.Week] = true
		case Monthly:
			monthly[f.Month] = true
		}
	}
	var due []Rollup
	// Days.
	haveRefined := map[Day]bool{}
	for d := range refined {
		haveRefined[d] = true
	}
	for d := range raw {
		if d.Before(today) && !refined[d] {
			due = append(due, Rollup{Kind: RefineDay, Day: d})
			haveRefined[d] = true
		}
	}
	// Weeks with at least one refined day (existing or planned).
	haveWeekly := map[Week]bool{}
	for w := range weekly {
		haveWeekly[w] = true
	}
	weeks := map[Week]bool{}
	for d := range haveRefined {
		weeks[WeekOf(d)] = true
	}
	for w := range weeks {
		r := Rollup{Kind: RollupWeek, Week: w}
		if !weekly[w] && r.Complete(today) {
			due = append(due, r)
			haveWeekly[w] = true
		}
	}
	months := map[Month]bool{}
	for w := range haveWeekly {
		months[w.Month()] = true
	}
	for m := range months {
		r := Rollup{Kind: RollupMonth, Month: m}
		if !monthly[m] && r.Complete(today) {
			due = append(due, r)
		}
	}
	sort.Slice(due, func(i, j int) bool {
		a, b := due[i], due[j]
		if c := a.CompleteAfter().Compare(b.CompleteAfter()); c != 0 {
			return c < 0
		}
		return a.Kind < b.Kind
	})
	return due
}
