package engine

import (
	"time"

	"github.com/magicfrog/mf-lsp/engine/journal"
)

// bootSetFilter returns the test that keeps a journal file in the <memory> block:
// today's and yesterday's daily, this week's weekly, this month's monthly,
// MEMORY.md and the sticky notes (SPEC §6). today is YYYY-MM-DD; "" is the local
// date.
func bootSetFilter(today string) (func(*Entry) bool, error) {
	day, err := Today(today)
	if err != nil {
		return nil, err
	}
	return func(e *Entry) bool {
		f, _ := journal.Classify(e.LayerKey())
		return journal.InBootSet(f, day)
	}, nil
}

// Today parses a YYYY-MM-DD override, or returns the local date for "".
func Today(s string) (journal.Day, error) {
	if s == "" {
		return journal.DayOf(time.Now()), nil
	}
	return journal.ParseDay(s)
}
