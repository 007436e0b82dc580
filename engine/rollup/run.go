package rollup

import (
	"context"
	"fmt"
	"strings"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
	"github.com/magicfrog/mf-lsp/engine/journal"
)

// Status is what running a job did.
type Status int

const (
	// Written: the rollup was written (created or rewritten).
	Written Status = iota + 1
	// UpToDate: the output already records exactly the current sources; nothing
	// was run or written.
	UpToDate
)

func (s Status) String() string {
	switch s {
	case Written:
		return "written"
	case UpToDate:
		return "up to date"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Result says what a job did.
type Result struct {
	Job      Job
	Status   Status
	Path     string // the output file
	Revision int    // the output's revision now
	Hash     string // the output's content hash now
	Sources  []Source
	// Attempts is how many times the summarizer ran (2 when a source changed
	// during the first run).
	Attempts int
	// Lessons are, for a monthly, its lessons that the journal's MEMORY.md does
	// not hold yet (journal.ProposeLessons); Promote writes them.
	Lessons []string
	// Warnings: sections the summarizer's output lacks, and the like.
	Warnings []string
}

// SourceChangedError reports a source that changed while the summarizer ran,
// on both attempts. Nothing was written.
type SourceChangedError struct {
	Job    Job
	Source string // layer-relative key
	What   string // what changed, in words
}

func (e *SourceChangedError) Error() string {
	return fmt.Sprintf("rollup %s: %s changed while the summarizer ran, twice (%s); not written, nothing lost: run it again when the journal is quiet",
		e.Job, e.Source, e.What)
}

// Run runs one job: it reads the sources as they are now (revision and hash),
// gives them to the summarizer, and then checks every source again. If one
// changed meanwhile (an agent appending to the raw daily), the result would
// silently leave that edit out, so the summarizer runs once more on the new
// sources; if a source changes again, Run fails with a *SourceChangedError
// naming it. The output is written with m.Write, expecting the revision and
// hash it had when the run started (a concurrent writer makes the write fail
// with an engine.StaleError and nothing is written), with `rollup`, `period`
// and `sources` in its frontmatter. Sources are only read, never written.
//
// A job whose output already records exactly the current sources is not run:
// Status UpToDate. A nil summarizer is Builtin.
func Run(ctx context.Context, m *engine.Memory, job Job, s Summarizer) (Result, error) {
	if s == nil {
		s = Builtin
	}
	j, r := job.Journal, job.Rollup
	res := Result{Job: job}
	outPath, err := j.Path(m, job.Output)
	if err != nil {
		return res, fmt.Errorf("rollup %s: %w", job, err)
	}
	res.Path = outPath
	var changed, what string
	for attempt := 1; attempt <= 2; attempt++ {
		files := j.sourceFiles(m, r)
		if len(files) == 0 {
			return res, fmt.Errorf("rollup %s: no sources: %s", job, wantedSources(r))
		}
		srcs := make([]Source, len(files))
		in := Input{Kind: r.Kind, Period: r.Period(), Sources: make([]journal.Source, len(files))}
		for i, f := range files {
			srcs[i] = sourceOf(f.Rel, f.Note)
			text, err := f.Note.Text()
			if err != nil {
				return res, fmt.Errorf("rollup %s: %w", job, err)
			}
			in.Sources[i] = journal.Source{Key: f.Rel, Body: text}
		}
		for _, t := range job.Transcripts {
			in.Sources = append(in.Sources, journal.Source{Key: t.Key, Body: []byte(t.Text)})
		}
		srcs = append(srcs, transcriptSources(job.Transcripts)...)
		res.Sources = srcs
		out := j.lookup(m, job.Output)
		if out != nil {
			if rec, ok := RecordedSources(out); ok && diffSources(rec, srcs) == "" {
				res.Status, res.Revision, res.Hash, res.Path = UpToDate, out.Revision(), out.Hash(), out.Path
				return lessons(m, res, out)
			}
		}
		res.Attempts = attempt
		text, err := s.Summarize(ctx, in)
		if err != nil {
			return res, fmt.Errorf("rollup %s: %w", job, err)
		}
		body, missing, err := CheckOutput(r.Kind, text)
		if err != nil {
			return res, fmt.Errorf("rollup %s: summarizer %s: %w", job, s.Name(), err)
		}
		// Did a source change while the summarizer ran?
		now := j.sourceFiles(m, r)
		cur := make([]Source, len(now))
		for i, f := range now {
			cur[i] = sourceOf(f.Rel, f.Note)
		}
		cur = append(cur, transcriptSources(job.Transcripts)...)
		if d := diffSources(srcs, cur); d != "" {
			changed, what = firstWord(d), d
			continue
		}
		res.Warnings = nil
		// The built-in summarizer leaves out the empty sections of a day shorter
		// than its skeleton on purpose (never longer than its sources).
		if len(missing) > 0 && s != Builtin {
			res.Warnings = append(res.Warnings, "the summarizer's output lacks the sections ## "+strings.Join(missing, ", ## "))
		}
		expRev, expHash := 0, ""
		if out != nil {
			expRev, expHash = out.Revision(), out.Hash()
			if out.Path != outPath {
				// Read from a legacy root: the canonical file is new.
				expRev, expHash = 0, ""
				if c := m.Note(outPath); c != nil {
					expRev, expHash = c.Revision(), c.Hash()
				}
			}
		}
		w, err := m.Write(engine.WriteRequest{
			Dimension: j.Dimension, Owner: j.Owner, Key: j.Key(job.Output), Body: []byte(body),
			Meta: []frontmatter.Set{
				{Key: "rollup", Value: r.Kind.String()},
				{Key: "period", Value: r.Period()},
				{Key: "sources", Value: sourcesValue(srcs)},
			},
			ExpectRevision: expRev, ExpectHash: expHash,
		})
		if err != nil {
			if st, ok := engine.IsStale(err); ok {
				return res, fmt.Errorf("rollup %s: %s changed while the summarizer ran (now revision %d); not written, nothing lost: run it again: %w",
					job, job.Output, st.Revision, err)
			}
			return res, fmt.Errorf("rollup %s: %w", job, err)
		}
		res.Status, res.Path, res.Revision, res.Hash = Written, w.Path, w.Revision, w.Hash
		written := m.Note(w.Path)
		if written == nil {
			written = j.lookup(m, job.Output)
		}
		return lessons(m, res, written)
	}
	return res, &SourceChangedError{Job: job, Source: changed, What: what}
}

// lessons fills in a monthly's proposed lessons.
func lessons(m *engine.Memory, res Result, out *engine.Note) (Result, error) {
	if res.Job.Rollup.Kind != journal.RollupMonth || out == nil {
		return res, nil
	}
	var mem []byte
	if e := res.Job.Journal.lookup(m, journal.MemoryFile); e != nil {
		var err error
		if mem, err = e.Body(); err != nil {
			return res, err
		}
	}
	// A lesson seen in one week of this month and one of an earlier month is
	// seen in two weeks: the earlier monthlies count too.
	var earlier [][]byte
	for _, f := range res.Job.Journal.Files(m) {
		if f.Kind == journal.Monthly && f.Month.Compare(res.Job.Rollup.Month) < 0 {
			body, err := f.Note.Body()
			if err != nil {
				return res, err
			}
			earlier = append(earlier, body)
		}
	}
	body, err := out.Body()
	if err != nil {
		return res, err
	}
	res.Lessons = journal.ProposeLessons(body, mem, earlier...)
	return res, nil
}

func firstWord(s string) string {
	w, _, _ := strings.Cut(s, " ")
	return w
}

func wantedSources(r journal.Rollup) string {
	switch r.Kind {
	case journal.RefineDay:
		return "the raw daily " + journal.Path(journal.Daily, r.Day, journal.Week{}, journal.Month{}) + " does not exist"
	case journal.RollupWeek:
		return "no refined day of " + r.Week.String() + " exists (roll up its days first: rollup day, or rollup due)"
	case journal.RollupMonth:
		return "no weekly of " + r.Month.String() + " exists (roll up its weeks first: rollup week, or rollup due)"
	}
	return "unknown rollup"
}

// failedSource returns a source of job that a failed job should have written.
// failed holds job outputs: a day's raw daily, which no job writes, is never in it.
func failedSource(job Job, failed map[string]bool) string {
	if len(failed) == 0 {
		return ""
	}
	for _, r := range job.Rollup.SourcePaths() {
		if failed[job.Journal.String()+r] {
			return r
		}
	}
	return ""
}

// Outcome is a job and what running it did (Err set when it failed).
type Outcome struct {
	Result
	Err error
}

// RunPlan plans a request (Plan) and runs every job in order with
// opts.Summarizer. A failed job does not stop the others, but the jobs that
// read its output fail too, without running ("not run: its source … failed"):
// a week rolled up without one of its days would only go stale again. Every
// outcome is returned,
// in order; progress, when not nil, is called after each job.
func RunPlan(ctx context.Context, m *engine.Memory, req Request, opts Options, progress func(Outcome)) ([]Outcome, error) {
	jobs, err := Plan(m, req, opts)
	if err != nil {
		return nil, err
	}
	out := make([]Outcome, 0, len(jobs))
	failed := map[string]bool{} // journal + output of failed jobs
	for _, job := range jobs {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		var res Result
		var err error
		if dep := failedSource(job, failed); dep != "" {
			res = Result{Job: job}
			err = fmt.Errorf("rollup %s: not run: its source %s failed above", job, dep)
		} else {
			res, err = Run(ctx, m, job, opts.Summarizer)
		}
		if err != nil {
			failed[job.Journal.String()+job.Output] = true
		}
		o := Outcome{Result: res, Err: err}
		out = append(out, o)
		if progress != nil {
			progress(o)
		}
	}
	return out, nil
}
