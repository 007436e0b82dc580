package session

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/journal"
	"github.com/magicfrog/mf-lsp/engine/rollup"
)

func testDay(t *testing.T, s string) journal.Day {
	t.Helper()
	d, err := journal.ParseDay(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// putDaily writes a raw daily of the task dimension's shared journal.
func (tr *testTree) putDaily(t *testing.T, day, body string) {
	t.Helper()
	tr.put(t, engine.Task, "", "journal/"+day+".md", body)
}

func TestRollupOptions(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config string // the project's .magicfrog/config.json
		layers string // "" keeps the journal layer
		setup  RollupSetup
		want   func(*testing.T, rollup.Options, error)
	}{
		{"builtin, no transcripts", `{"task": "T-7"}`, "", RollupSetup{Dimension: engine.Task, Owner: ptr("")},
			func(t *testing.T, o rollup.Options, err error) {
				if err != nil || o.Summarizer.Name() != "builtin" || o.Transcripts != nil || !o.OwnerSet || o.Dimension != engine.Task {
					t.Errorf("options %+v, %v", o, err)
				}
			}},
		{"no journal layer", `{"task": "T-7"}`, `{"layers": [{"name": "core", "prefix": ""}]}`, RollupSetup{},
			func(t *testing.T, _ rollup.Options, err error) {
				if err == nil {
					t.Error("a memory without a journal layer was accepted")
				}
			}},
		{"the caller's summarizer over config.json's", `{"task": "T-7", "summarizer": "cat"}`, "", RollupSetup{Summarizer: "builtin"},
			func(t *testing.T, o rollup.Options, err error) {
				if err != nil || o.Summarizer.Name() != "builtin" {
					t.Errorf("options %+v, %v", o, err)
				}
			}},
		{"config.json's summarizer", `{"task": "T-7", "summarizer": "cat -u"}`, "", RollupSetup{},
			func(t *testing.T, o rollup.Options, err error) {
				if err != nil || o.Summarizer.Name() != "cat -u" {
					t.Errorf("options %+v, %v", o, err)
				}
			}},
		{"config.json's transcripts missing", `{"task": "T-7", "transcripts": "no-such-folder"}`, "", RollupSetup{},
			func(t *testing.T, _ rollup.Options, err error) {
				var te *TranscriptsError
				if !errors.As(err, &te) || te.FromCaller {
					t.Errorf("err %v, want a TranscriptsError from the configuration", err)
				}
			}},
		{"the caller's transcripts missing", `{"task": "T-7"}`, "", RollupSetup{Transcripts: "/no/such/folder"},
			func(t *testing.T, _ rollup.Options, err error) {
				var te *TranscriptsError
				if !errors.As(err, &te) || !te.FromCaller {
					t.Errorf("err %v, want a TranscriptsError from the caller", err)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := openTestTree(t)
			writeFile(t, filepath.Join(tr.project, ".magicfrog", "config.json"), tc.config)
			if tc.layers != "" {
				writeFile(t, filepath.Join(tr.data, "memory", "layers.json"), tc.layers)
			}
			tr.reopen(t)
			opts, err := RollupOptions(tr.m, tc.setup)
			tc.want(t, opts, err)
		})
	}
}

// A run's report is magicfrog.rollup's answer: the written rollups as URIs,
// and the steps a front end prints or reports as progress.
func TestRunRollupReport(t *testing.T) {
	tr := openTestTree(t)
	tr.putDaily(t, "2026-11-02", "# 2026-11-02\n\n- 09:10 Decision: keep the export flat\n- Lesson: run imports twice\n")
	opts, err := RollupOptions(tr.m, RollupSetup{Today: testDay(t, "2026-11-30")})
	if err != nil {
		t.Fatal(err)
	}
	req, err := rollup.ParseRequest([]string{"day", "2026-11-02"})
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	each := func(_ rollup.Outcome, s RollupStep) { steps = append(steps, s.Verb+" "+s.Ref) }
	report, outs, err := RunRollup(context.Background(), tr.m, req, opts, each)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"written":["file://PROJECT/.magicfrog/memory/journal/refined/2026-11-02.md"],"upToDate":0,"failed":[],"lessons":[]}`
	if got := tr.hide(mustJSON(t, report)); got != want || len(outs) != 1 {
		t.Errorf("report %s (%d outcomes), want %s", got, len(outs), want)
	}
	if got, want := strings.Join(steps, "; "), "written task/journal/refined/2026-11-02.md"; got != want {
		t.Errorf("steps %q, want %q", got, want)
	}
	if got, want := report.Summary(), "1 written, 0 up to date, 0 failed"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}

	// Again: nothing to write.
	steps = nil
	report, _, err = RunRollup(context.Background(), tr.m, req, opts, each)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := mustJSON(t, report), `{"written":[],"upToDate":1,"failed":[],"lessons":[]}`; got != want {
		t.Errorf("rerun: report %s, want %s", got, want)
	}
	if got, want := strings.Join(steps, "; "), "up to date task/journal/refined/2026-11-02.md"; got != want {
		t.Errorf("rerun: steps %q, want %q", got, want)
	}
}

// A failed job is tallied with its error; a stale one counts as stale.
func TestRollupReportTally(t *testing.T) {
	j := rollup.Journal{Dimension: engine.Task}
	job := func(out string) rollup.Job { return rollup.Job{Journal: j, Output: out} }
	r := newRollupReport()
	for _, o := range []rollup.Outcome{
		{Result: rollup.Result{Job: job("refined/2026-11-02.md"), Path: "/j/refined/2026-11-02.md", Lessons: []string{"run imports twice"}}},
		{Result: rollup.Result{Job: job("refined/2026-11-03.md"), Status: rollup.UpToDate}},
		{Result: rollup.Result{Job: job("refined/2026-11-04.md")}, Err: errors.New("summarizer failed")},
		{Result: rollup.Result{Job: job("weekly/2026-W45.md")}, Err: &engine.StaleError{Revision: 2}},
	} {
		r.add(o)
	}
	if r.Stale() != 1 || len(r.Failed) != 2 || r.UpToDate != 1 || len(r.Written) != 1 || len(r.Lessons) != 1 {
		t.Errorf("tally %+v, stale %d", r, r.Stale())
	}
	if got, want := r.Failed[0], (RollupFailure{Ref: "task/refined/2026-11-04.md", Error: "summarizer failed"}); got != want {
		t.Errorf("failure %+v, want %+v", got, want)
	}
}

// Lessons are grouped per journal, in the order they came; lessons already
// in MEMORY.md make no edit.
func TestLessonsEdits(t *testing.T) {
	tr := openTestTree(t)
	shared, err := rollup.JournalFor(tr.m, engine.Task, "")
	if err != nil {
		t.Fatal(err)
	}
	tr.put(t, engine.Task, "", "journal/MEMORY.md", "# Memory\n\n- run imports twice\n")
	outs := []rollup.Outcome{
		{Result: rollup.Result{Job: rollup.Job{Journal: shared}, Lessons: []string{"run imports twice"}}},
		{Result: rollup.Result{Job: rollup.Job{Journal: shared}, Lessons: []string{"pin the toolchain"}}},
		{Result: rollup.Result{Job: rollup.Job{Journal: shared}, Lessons: []string{"ignored: the job failed"}}, Err: errors.New("x")},
	}
	edits, errs := LessonsEdits(tr.m, outs)
	if len(errs) != 0 || len(edits) != 1 {
		t.Fatalf("edits %+v, errors %v", edits, errs)
	}
	if got := edits[0].Edit.Added; len(got) != 1 || got[0] != "pin the toolchain" {
		t.Errorf("added %q, want only the new lesson", got)
	}
	if edits, _ := LessonsEdits(tr.m, outs[:1]); len(edits) != 0 {
		t.Errorf("lessons already there made an edit: %+v", edits)
	}
}

// A plan counts its jobs before it runs, and its run reports each step and
// offers no lessons when none were proposed.
func TestPlanRollupRun(t *testing.T) {
	tr := openTestTree(t)
	tr.putDaily(t, "2026-11-02", "# 2026-11-02\n\n- 09:10 Decision: keep the export flat\n")
	snap := &Snapshot{Memory: tr.m, Today: testDay(t, "2026-11-30")}
	req, _, _, err := RollupRequest{Kind: "day", Period: "2026-11-02"}.Parse()
	if err != nil {
		t.Fatal(err)
	}
	plan, err := PlanRollup(snap, req, RollupSetup{Timeout: rollup.DefaultTimeout})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Jobs != 1 {
		t.Errorf("planned %d jobs, want 1", plan.Jobs)
	}
	var steps []string
	run, err := plan.Run(context.Background(), func(s RollupStep) { steps = append(steps, s.Verb+" "+s.Ref) })
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(steps, "; "), "written task/journal/refined/2026-11-02.md"; got != want || len(run.Report.Written) != 1 {
		t.Errorf("steps %q (%d written), want %q", got, len(run.Report.Written), want)
	}
	if edits, errs := run.Lessons(); len(edits) != 0 || len(errs) != 0 {
		t.Errorf("lessons %v, %v; want none", edits, errs)
	}
}
