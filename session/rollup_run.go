package session

import (
	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/journal"
	"github.com/magicfrog/mf-lsp/engine/rollup"
)

// A rollup as `mf-lsp rollup` runs it, beside the editor's (rollup.go,
// rollup_request.go): its words, its today, whether lessons are promoted,
// the plan of a dry run and the promotion of a run's lessons.

// ParseRollupWords reads the command line's rollup: "due", or "day
// 2026-11-30", "week 2026-W48", "month 2026-11".
func ParseRollupWords(words []string) (rollup.Request, error) {
	return rollup.ParseRequest(words)
}

// RollupToday is the journal's today for a rollup: day as YYYY-MM-DD ("":
// the local date), and with dayOver the day after (today counts as over, as
// the scheduled evening jobs ask).
func RollupToday(day string, dayOver bool) (journal.Day, error) {
	d, err := engine.Today(day)
	if err != nil {
		return d, err
	}
	if dayOver {
		d = d.AddDays(1)
	}
	return d, nil
}

// RollupPromotes says whether a run on m promotes its lessons: asked for
// (--promote), or the project's config.json "promote": "auto".
func RollupPromotes(m *engine.Memory, asked bool) (bool, error) {
	auto, err := rollup.PromoteAuto(m.Binding().Promote)
	if err != nil {
		return false, err
	}
	return asked || auto, nil
}

// RollupJobs are the jobs req plans on m, each with whether it is up to date
// and why it runs; nothing is run.
func RollupJobs(m *engine.Memory, req rollup.Request, opts rollup.Options) ([]rollup.Job, error) {
	return rollup.Plan(m, req, opts)
}

// PromoteRollupLessons writes lessons into journal j's MEMORY.md,
// revision-checked; those it holds already are not added again.
func PromoteRollupLessons(m *engine.Memory, j rollup.Journal, lessons []string) (rollup.PromoteResult, error) {
	return rollup.Promote(m, j, lessons)
}
