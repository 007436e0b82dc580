package rollup

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/journal"
)

// Source is one entry of a rollup's `sources:` frontmatter (journal.RecordedSource).
type Source = journal.RecordedSource

// sourceOf records a note as a source.
func sourceOf(rel string, e *engine.Note) Source {
	return Source{Key: rel, Revision: e.Revision(), Hash: e.Hash()}
}

// sourcesValue is the frontmatter value of sources: a YAML list of
// {key, revision, hash} maps, in that key order.
func sourcesValue(srcs []Source) []any {
	out := make([]any, 0, len(srcs))
	for _, s := range srcs {
		out = append(out, yaml.MapSlice{{Key: "key", Value: s.Key}, {Key: "revision", Value: s.Revision}, {Key: "hash", Value: s.Hash}})
	}
	return out
}

// RecordedSources reads the `sources:` of a rollup's frontmatter
// (journal.ParseSources). ok is false when the key is missing or is not a list
// of {key, revision, hash} maps.
func RecordedSources(e *engine.Note) (out []Source, ok bool) {
	f := e.Doc().Field("sources")
	if f == nil {
		return nil, false
	}
	return journal.ParseSources(f.Value)
}

// diffSources says how the sources recorded by a rollup differ from the current
// ones: "" when they are the same set at the same revisions and hashes, else
// the first difference in words.
func diffSources(recorded, current []Source) string {
	rec := map[string]Source{}
	for _, s := range recorded {
		rec[s.Key] = s
	}
	cur := map[string]bool{}
	for _, s := range current {
		cur[s.Key] = true
		r, ok := rec[s.Key]
		if !ok {
			return s.Key + " was added"
		}
		if why := r.Changed(true, s.Revision, s.Hash); why != "" {
			return why
		}
	}
	for _, s := range recorded {
		if !cur[s.Key] {
			return s.Key + " was removed"
		}
	}
	return ""
}

// Options select what Plan plans and RunPlan runs.
type Options struct {
	// Dimension limits the plan to one dimension's journals; 0 is every one.
	Dimension engine.Dimension
	// Owner, when ScopeSet, limits the plan to journals of that ID prefix
	// ("" is the shared journal of a dimension).
	Owner    string
	OwnerSet bool
	// Today decides which periods are complete; zero is the local date.
	Today journal.Day
	// Summarizer writes the rollups (RunPlan); nil is Builtin.
	Summarizer Summarizer
	// Transcripts, when set, join the sources of the day refines of the
	// journals that read them (readsTranscripts).
	Transcripts *Transcripts
}

// readsTranscripts reports whether journal j's days read the transcripts: the
// transcript folder is the project's, so its sessions feed the project's
// journals (task dimension), or those of the dimension asked for.
func (o Options) readsTranscripts(j Journal) bool {
	if o.Transcripts == nil {
		return false
	}
	if o.Dimension != 0 {
		return j.Dimension == o.Dimension
	}
	return j.Dimension == engine.Task
}

// transcriptsFor returns the transcript parts rollup r of j reads.
func (o Options) transcriptsFor(j Journal, r journal.Rollup) []TranscriptPart {
	if r.Kind != journal.RefineDay || !o.readsTranscripts(j) {
		return nil
	}
	return o.Transcripts.Day(r.Day)
}

// transcriptSources records transcript parts as sources.
func transcriptSources(parts []TranscriptPart) []Source {
	out := make([]Source, len(parts))
	for i, p := range parts {
		out[i] = Source{Key: p.Key, Hash: p.Hash}
	}
	return out
}

func (o Options) today() journal.Day {
	if o.Today.IsZero() {
		return journal.DayOf(time.Now())
	}
	return o.Today
}

func (o Options) selects(j Journal) bool {
	return (o.Dimension == 0 || j.Dimension == o.Dimension) && (!o.OwnerSet || j.Owner == o.Owner)
}

// Request is what to plan: every due rollup, or one period.
type Request struct {
	// Due plans everything complete whose output is missing or stale.
	Due bool
	// Rollup is the one period to roll up when Due is false (journal.ParseRollup).
	Rollup journal.Rollup
}

// ParseRequest reads a request as the CLI takes it: "due", or "day 2026-11-30",
// "week 2026-W48", "month 2026-11".
func ParseRequest(args []string) (Request, error) {
	if len(args) == 1 && args[0] == "due" {
		return Request{Due: true}, nil
	}
	if len(args) != 2 {
		return Request{}, fmt.Errorf("want due, day YYYY-MM-DD, week YYYY-Www or month YYYY-MM (got %q)", strings.Join(args, " "))
	}
	var k journal.RollupKind
	switch args[0] {
	case "day":
		k = journal.RefineDay
	case "week":
		k = journal.RollupWeek
	case "month":
		k = journal.RollupMonth
	default:
		return Request{}, fmt.Errorf("unknown rollup %q: want day, week, month or due", args[0])
	}
	r, err := journal.ParseRollup(k, args[1])
	if err != nil {
		return Request{}, err
	}
	return Request{Rollup: r}, nil
}

// Job is one rollup of one journal.
type Job struct {
	Journal Journal
	Rollup  journal.Rollup
	// Output is the layer-relative path the rollup writes (refined/…, weekly/…,
	// monthly/…).
	Output string
	// Reason says why the job is planned: "missing", "stale: <what changed>",
	// "a source is rewritten first", "requested"; "up to date" for a requested
	// rollup whose output is current (running it does nothing).
	Reason string
	// UpToDate: the output exists and records exactly the current sources.
	UpToDate bool
	// Sources are the files the rollup reads, as planned. Run reads them again.
	Sources []Source
	// Transcripts are the session transcripts a day refine reads besides its
	// raw daily (Options.Transcripts).
	Transcripts []TranscriptPart
}

func (j Job) String() string { return j.Rollup.String() + " in " + j.Journal.String() }

// Plan returns the jobs of a request over the selected journals.
//
// For Due: every rollup whose period is complete on opts.Today, that has at
// least one source, and whose output is missing (journal.Due) or stale (its
// recorded sources differ from the current ones in set, revision or hash), plus
// every rollup that reads the output of a planned job (that output is about to
// change). Outputs without a `sources:` record (written by hand or imported)
// are left alone. Jobs are oldest first and in dependency order (days, then the
// weeks reading them, then the months), journal by journal.
//
// For one period: a job per selected journal with sources for it, even when the
// period is not over yet (an early rollup is rerun when it goes stale), marked
// UpToDate when its output is current.
func Plan(m *engine.Memory, req Request, opts Options) ([]Job, error) {
	if err := engine.CheckOwnerID(opts.Owner); err != nil {
		return nil, err // "../../x" matched no journal and answered OK doing nothing
	}
	var jobs []Job
	for _, j := range Journals(m) {
		if !opts.selects(j) {
			continue
		}
		if req.Due {
			j.refresh(m)
			jobs = append(jobs, planDue(m, j, opts)...)
			continue
		}
		job, ok := planOne(m, j, req.Rollup, opts)
		if ok {
			jobs = append(jobs, job)
		}
	}
	return jobs, nil
}

// planOne plans rollup r of journal j; ok is false when it has no sources.
func planOne(m *engine.Memory, j Journal, r journal.Rollup, opts Options) (Job, bool) {
	job := Job{Journal: j, Rollup: r, Output: r.Output(), Reason: "requested", Transcripts: opts.transcriptsFor(j, r)}
	files := j.sourceFiles(m, r)
	if len(files) == 0 {
		return job, false
	}
	for _, f := range files {
		job.Sources = append(job.Sources, sourceOf(f.Rel, f.Note))
	}
	job.Sources = append(job.Sources, transcriptSources(job.Transcripts)...)
	if out := j.lookup(m, job.Output); out != nil {
		if rec, ok := RecordedSources(out); ok && diffSources(rec, job.Sources) == "" {
			job.UpToDate, job.Reason = true, "up to date"
		}
	}
	return job, true
}

func planDue(m *engine.Memory, j Journal, opts Options) []Job {
	today := opts.today()
	files := j.Files(m)
	plain := make([]journal.File, 0, len(files))
	byRel := map[string]*engine.Note{}
	for _, f := range files {
		plain = append(plain, f.File)
		byRel[f.Rel] = f.Note
	}
	planned := map[string]bool{} // outputs about to be (re)written
	var jobs []Job
	add := func(r journal.Rollup, reason string) {
		jobs = append(jobs, Job{Journal: j, Rollup: r, Output: r.Output(), Reason: reason, Transcripts: opts.transcriptsFor(j, r)})
		if !planned[r.Output()] && byRel[r.Output()] == nil {
			f, _ := journal.Classify(r.Output())
			plain = append(plain, f) // a later rollup reads it
		}
		planned[r.Output()] = true
	}
	for _, r := range journal.Due(plain, today) {
		add(r, "missing")
	}
	// Stale outputs, in dependency order: days, then weeks, then months, so that
	// a week reading a day planned above is planned too.
	for _, kind := range []journal.RollupKind{journal.RefineDay, journal.RollupWeek, journal.RollupMonth} {
		for _, f := range files {
			r, ok := rollupOf(f.File, kind)
			if !ok || planned[f.Rel] || !r.Complete(today) {
				continue
			}
			rec, ok := RecordedSources(f.Note)
			if !ok {
				continue // not written by a rollup: left alone
			}
			srcs := journal.Sources(r, plain)
			if len(srcs) == 0 {
				continue // every source is gone: nothing to roll up; diagnostics flag it
			}
			reason := ""
			var cur []Source
			for _, s := range srcs {
				if planned[s.Rel] {
					if reason == "" {
						reason = "its source " + s.Rel + " is rolled up first"
					}
					continue
				}
				cur = append(cur, sourceOf(s.Rel, byRel[s.Rel]))
			}
			cur = append(cur, transcriptSources(opts.transcriptsFor(j, r))...)
			if reason == "" {
				if d := diffSources(rec, cur); d != "" {
					reason = "stale: " + d
				}
			}
			if reason != "" {
				add(r, reason)
			}
		}
	}
	sort.SliceStable(jobs, func(a, b int) bool {
		x, y := jobs[a].Rollup, jobs[b].Rollup
		if c := x.CompleteAfter().Compare(y.CompleteAfter()); c != 0 {
			return c < 0
		}
		return x.Kind < y.Kind
	})
	return jobs
}

// rollupOf returns the rollup that writes f when f is an output of kind k.
func rollupOf(f journal.File, k journal.RollupKind) (journal.Rollup, bool) {
	switch {
	case k == journal.RefineDay && f.Kind == journal.Refined:
		return journal.Rollup{Kind: k, Day: f.Day}, true
	case k == journal.RollupWeek && f.Kind == journal.Weekly:
		return journal.Rollup{Kind: k, Week: f.Week}, true
	case k == journal.RollupMonth && f.Kind == journal.Monthly:
		return journal.Rollup{Kind: k, Month: f.Month}, true
	}
	return journal.Rollup{}, false
}
