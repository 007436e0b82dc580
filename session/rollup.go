package session

import (
	"context"
	"fmt"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/journal"
	"github.com/magicfrog/mf-lsp/engine/rollup"
)

// A rollup as the editor's magicfrog.rollup and `mf-lsp rollup` both run it,
// in its steps: the options (RollupOptions: the journal layer, the
// summarizer, the transcripts), the run with its tally (RunRollup), and the
// lessons monthlies propose, per journal (LessonsEdits).

// RollupSetup is what a rollup takes from its caller besides the request.
type RollupSetup struct {
	Dimension engine.Dimension // only this dimension's journals; 0: every one
	Owner     *string          // only journals of this owner ID ("": shared journals); nil: any
	Today     journal.Day      // decides which periods are complete
	// Summarizer is the caller's choice (a command line or "builtin"); "" is
	// the project's config.json "summarizer", else the built-in one.
	Summarizer string
	Timeout    time.Duration // per rollup (rollup.Resolve)
	// Transcripts is the caller's transcript folder; "" is the project's
	// config.json "transcripts", else none.
	Transcripts string
}

// TranscriptsError: the transcript folder could not be read. FromCaller says
// it was RollupSetup.Transcripts, not the project's configuration.
type TranscriptsError struct {
	FromCaller bool
	Err        error
}

func (e *TranscriptsError) Error() string { return e.Err.Error() }
func (e *TranscriptsError) Unwrap() error { return e.Err }

// RollupOptions are the rollup options of setup on m: it refuses a memory
// without a journal layer and an unusable summarizer, and loads the
// transcripts that day refines read (a transcript file that cannot be
// parsed is listed in Transcripts.Skipped, not an error).
func RollupOptions(m *engine.Memory, setup RollupSetup) (rollup.Options, error) {
	if _, err := rollup.FractalLayer(m); err != nil {
		return rollup.Options{}, err
	}
	summ, err := rollup.Resolve(setup.Timeout, setup.Summarizer, m.Binding().Summarizer)
	if err != nil {
		return rollup.Options{}, err
	}
	opts := rollup.Options{Dimension: setup.Dimension, Today: setup.Today, Summarizer: summ}
	if setup.Owner != nil {
		opts.Owner, opts.OwnerSet = *setup.Owner, true
	}
	// The project's transcript folder feeds day refines in the editor too, or
	// a refine written by the scheduled job would look stale there.
	dir, err := rollup.TranscriptsDir(setup.Transcripts, m.Binding().Transcripts, m.Paths.ProjectDir)
	if err != nil {
		return rollup.Options{}, err
	}
	if dir != "" {
		if opts.Transcripts, err = rollup.LoadTranscripts(dir, time.Local); err != nil {
			return rollup.Options{}, &TranscriptsError{FromCaller: setup.Transcripts != "", Err: err}
		}
	}
	return opts, nil
}

// RollupFailure is a job that failed, with why.
type RollupFailure struct {
	Ref   string `json:"ref"`
	Error string `json:"error"`
}

// RollupLesson is a lesson a monthly proposes for MEMORY.md.
type RollupLesson struct {
	URI  string `json:"uri"` // the monthly that proposes it
	Text string `json:"text"`
}

// RollupReport is the tally of a rollup run, magicfrog.rollup's answer.
type RollupReport struct {
	Written  []string        `json:"written"` // URIs
	UpToDate int             `json:"upToDate"`
	Failed   []RollupFailure `json:"failed"`
	Lessons  []RollupLesson  `json:"lessons"`
	stale    int             // failures that are stale writes (nothing written)
}

// Rollup verbs: what a job did.
const (
	RollupWritten  = "written"
	RollupUpToDate = "up to date"
	RollupFailed   = "failed"
)

// RollupStep is one job's line: what it did (a Rollup verb) and the rollup
// it wrote, in its journal (REF).
type RollupStep struct {
	Verb string
	Ref  string
}

func newRollupReport() *RollupReport {
	return &RollupReport{Written: []string{}, Failed: []RollupFailure{}, Lessons: []RollupLesson{}}
}

// add tallies one outcome.
func (r *RollupReport) add(o rollup.Outcome) RollupStep {
	step := RollupStep{Verb: RollupWritten, Ref: o.Job.Journal.String() + o.Job.Output}
	switch {
	case o.Err != nil:
		step.Verb = RollupFailed
		r.Failed = append(r.Failed, RollupFailure{Ref: step.Ref, Error: o.Err.Error()})
		if _, ok := engine.IsStale(o.Err); ok {
			r.stale++
		}
	case o.Status == rollup.UpToDate:
		step.Verb = RollupUpToDate
		r.UpToDate++
	default:
		r.Written = append(r.Written, PathToURI(o.Path))
	}
	for _, l := range o.Lessons {
		r.Lessons = append(r.Lessons, RollupLesson{URI: PathToURI(o.Path), Text: l})
	}
	return step
}

// Stale is how many failed jobs were stale writes: a source changed under
// them, and nothing was written.
func (r *RollupReport) Stale() int { return r.stale }

// Summary is the report's last line: "N written, N up to date, N failed".
func (r *RollupReport) Summary() string {
	return fmt.Sprintf("%d written, %d up to date, %d failed", len(r.Written), r.UpToDate, len(r.Failed))
}

// RunRollup plans req and runs its jobs in order (rollup.RunPlan), tallying
// each outcome; each, when not nil, is called after every job with its step.
// The report tallies the jobs that ran also when err stopped the run (a
// cancelled ctx, a plan that failed).
func RunRollup(ctx context.Context, m *engine.Memory, req rollup.Request, opts rollup.Options, each func(rollup.Outcome, RollupStep)) (*RollupReport, []rollup.Outcome, error) {
	report := newRollupReport()
	outs, err := rollup.RunPlan(ctx, m, req, opts, func(o rollup.Outcome) {
		step := report.add(o)
		if each != nil {
			each(o, step)
		}
	})
	return report, outs, err
}

// JournalLessons is the edit that adds the lessons a run's monthlies proposed
// to one journal's MEMORY.md.
type JournalLessons struct {
	Journal rollup.Journal
	Edit    rollup.LessonsEdit
}

// LessonsEdits groups the lessons of a run's outcomes by journal, in the
// order they came, and plans each journal's MEMORY.md edit
// (rollup.PlanLessons); a journal whose lessons are all there already has
// none. A journal whose edit could not be planned is an error naming it.
func LessonsEdits(m *engine.Memory, outs []rollup.Outcome) ([]JournalLessons, []error) {
	var order []rollup.Journal
	byJournal := map[string][]string{}
	for _, o := range outs {
		if o.Err != nil || len(o.Lessons) == 0 {
			continue
		}
		k := o.Job.Journal.String()
		if _, seen := byJournal[k]; !seen {
			order = append(order, o.Job.Journal)
		}
		byJournal[k] = append(byJournal[k], o.Lessons...)
	}
	var edits []JournalLessons
	var errs []error
	for _, j := range order {
		le, err := rollup.PlanLessons(m, j, byJournal[j.String()])
		if err != nil {
			errs = append(errs, LessonsError(j, err))
			continue
		}
		if len(le.Added) > 0 {
			edits = append(edits, JournalLessons{Journal: j, Edit: le})
		}
	}
	return edits, errs
}

// LessonsError says that journal j's lessons could not be offered, and why.
func LessonsError(j rollup.Journal, err error) error {
	return fmt.Errorf("lessons for %s: %w", j, err)
}
