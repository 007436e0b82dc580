package rollup

import (
	"fmt"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/journal"
)

// Today returns the file of day's raw daily in the journal of dimension d and
// scope (JournalFor: the journal layer), creating it when missing with
// frontmatter (revision 1, updated now) and a "# YYYY-MM-DD (Weekday)" title.
// It is created with an expected revision of 0, so a concurrent creation (an
// agent, another editor) wins and is simply returned: created is then false.
// A zero day is the local date.
func Today(m *engine.Memory, d engine.Dimension, scope string, day journal.Day) (path string, created bool, err error) {
	j, err := JournalFor(m, d, scope)
	if err != nil {
		return "", false, err
	}
	if day.IsZero() {
		if day, err = engine.Today(""); err != nil {
			return "", false, err
		}
	}
	rel := journal.Path(journal.Daily, day, journal.Week{}, journal.Month{})
	if e := j.lookup(m, rel); e != nil {
		return e.Path, false, nil
	}
	p, err := j.Path(m, rel)
	if err != nil {
		return "", false, err
	}
	_, err = m.Write(engine.WriteRequest{
		Dimension: d, Owner: scope, Key: j.Key(rel),
		Body: []byte(DailyTitle(day)),
	})
	if _, stale := engine.IsStale(err); stale {
		m.Refresh(p)
		return p, false, nil // created meanwhile by someone else: it is there
	}
	if err != nil {
		return "", false, fmt.Errorf("today's note %s: %w", p, err)
	}
	return p, true, nil
}

// DailyTitle is the first line of a new daily note, "# 2026-11-30 (Monday)",
// and the blank line after it.
func DailyTitle(day journal.Day) string {
	return fmt.Sprintf("# %s (%s)\n\n", day, day.Weekday())
}
