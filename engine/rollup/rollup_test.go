package rollup

import (
	"context"
	"errors"
	"os"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/journal"
)

var ctx = context.Background()

func runOne(t *testing.T, f *fixture, args ...string) Result {
	t.Helper()
	req, err := ParseRequest(args)
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := Plan(f.m, req, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 1 {
		t.Fatalf("%v: want 1 job, got %v", args, jobNames(jobs))
	}
	res, err := Run(ctx, f.m, jobs[0], Builtin)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestEachKind(t *testing.T) {
	f := novemberFixture(t)
	raw := f.snapshot(t)

	res := runOne(t, f, "day", "2026-11-02")
	if res.Status != Written || res.Revision != 1 {
		t.Fatalf("day: %+v", res)
	}
	out := f.read(t, "refined/2026-11-02.md")
	for _, want := range []string{"rollup: day\n", "period: 2026-11-02\n", "sources: [{key: 2026-11-02.md, revision: 1, hash: ", "# 2026-11-02 (Monday), refined"} {
		contains(t, "refined day", out, want)
	}
	for _, s := range journal.RefinedSections {
		contains(t, "refined day", out, "## "+s+"\n")
	}
	e := f.m.Note(f.path("refined/2026-11-02.md"))
	srcs, ok := RecordedSources(e)
	rawEntry := f.m.Note(f.path("2026-11-02.md"))
	if !ok || len(srcs) != 1 || srcs[0] != (Source{Key: "2026-11-02.md", Revision: 1, Hash: rawEntry.Hash()}) {
		t.Fatalf("recorded sources %+v, want the raw daily at revision 1, hash %s", srcs, rawEntry.Hash())
	}

	// The week reads its refined days: refine them all first.
	for d := day(t, "2026-11-03"); !d.After(day(t, "2026-11-08")); d = d.AddDays(1) {
		runOne(t, f, "day", d.String())
	}
	res = runOne(t, f, "week", "2026-W45")
	if len(res.Sources) != 7 || res.Sources[0].Key != "refined/2026-11-02.md" || res.Sources[6].Key != "refined/2026-11-08.md" {
		t.Fatalf("week sources: %+v", res.Sources)
	}
	out = f.read(t, "weekly/2026-W45.md")
	contains(t, "weekly", out, "rollup: week\n")
	contains(t, "weekly", out, "period: 2026-W45\n")
	for _, s := range journal.WeeklySections {
		contains(t, "weekly", out, "## "+s+"\n")
	}

	res = runOne(t, f, "month", "2026-11")
	if len(res.Sources) != 1 || res.Sources[0].Key != "weekly/2026-W45.md" {
		t.Fatalf("month sources: %+v", res.Sources)
	}
	out = f.read(t, "monthly/2026-11.md")
	for _, s := range journal.MonthlySections {
		contains(t, "monthly", out, "## "+s+"\n")
	}
	if !reflect.DeepEqual(raw, f.snapshot(t)) {
		t.Fatal("a raw daily changed")
	}

	// A week with no refined day cannot run.
	if jobs, _ := Plan(f.m, Request{Rollup: journal.Rollup{Kind: journal.RollupWeek, Week: journal.WeekOf(day(t, "2026-11-16"))}}, Options{}); len(jobs) != 0 {
		t.Fatalf("a week without refined days is planned: %v", jobNames(jobs))
	}
	if _, err := ParseRequest([]string{"week", "2026-W60"}); err == nil {
		t.Fatal("week 60 parses")
	}
}

func TestRerunIsNoop(t *testing.T) {
	f := novemberFixture(t)
	first := runOne(t, f, "day", "2026-11-05")
	before := f.read(t, "refined/2026-11-05.md")
	calls := 0
	req, _ := ParseRequest([]string{"day", "2026-11-05"})
	jobs, _ := Plan(f.m, req, Options{})
	if len(jobs) != 1 || !jobs[0].UpToDate || jobs[0].Reason != "up to date" {
		t.Fatalf("plan after a rollup: %+v", jobs)
	}
	res, err := Run(ctx, f.m, jobs[0], summarizerFunc(func(in Input) (string, error) { calls++; return "", nil }))
	if err != nil || res.Status != UpToDate || res.Revision != first.Revision || calls != 0 {
		t.Fatalf("rerun: %+v %v calls=%d", res, err, calls)
	}
	if after := f.read(t, "refined/2026-11-05.md"); after != before {
		t.Fatal("an up-to-date rerun rewrote the rollup")
	}
}

func TestDueOrderAndSecondRun(t *testing.T) {
	f := novemberFixture(t)
	raw := f.snapshot(t)
	today := day(t, "2026-12-01")
	jobs, err := Plan(f.m, Request{Due: true}, Options{Today: today})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 28+4+1 {
		t.Fatalf("due: %d jobs: %v", len(jobs), jobNames(jobs))
	}
	pos := map[string]int{}
	for i, j := range jobs {
		pos[j.Output] = i
		if j.Reason != "missing" {
			t.Errorf("%s: reason %q", j, j.Reason)
		}
	}
	// Every job comes after the jobs writing its sources, and oldest first.
	for i, j := range jobs {
		var deps []string
		switch j.Rollup.Kind {
		case journal.RollupWeek:
			for _, d := range j.Rollup.Week.Days() {
				deps = append(deps, journal.Path(journal.Refined, d, journal.Week{}, journal.Month{}))
			}
		case journal.RollupMonth:
			for _, w := range j.Rollup.Month.Weeks() {
				deps = append(deps, journal.Path(journal.Weekly, journal.Day{}, w, journal.Month{}))
			}
		}
		for _, d := range deps {
			if p, ok := pos[d]; ok && p > i {
				t.Errorf("%s runs before its source %s", j, d)
			}
		}
		if i > 0 && j.Rollup.CompleteAfter().Before(jobs[i-1].Rollup.CompleteAfter()) {
			t.Errorf("%s after %s: not oldest first", j, jobs[i-1])
		}
	}
	if jobs[0].Rollup.String() != "day 2026-11-02" || jobs[len(jobs)-1].Rollup.String() != "month 2026-11" {
		t.Errorf("order: %v", jobNames(jobs))
	}
	// Nothing is due before a period is over.
	early, _ := Plan(f.m, Request{Due: true}, Options{Today: day(t, "2026-11-29")})
	for _, j := range early {
		if j.Rollup.Kind != journal.RefineDay || !j.Rollup.Day.Before(day(t, "2026-11-29")) {
			if j.Rollup.Kind == journal.RollupWeek && j.Rollup.Week.Sunday().Before(day(t, "2026-11-29")) {
				continue
			}
			t.Errorf("due on 2026-11-29: %s", j)
		}
	}

	outs, err := RunPlan(ctx, f.m, Request{Due: true}, Options{Today: today}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outs {
		if o.Err != nil || o.Status != Written {
			t.Errorf("%s: %v %v", o.Job, o.Status, o.Err)
		}
	}
	again, _ := Plan(f.m, Request{Due: true}, Options{Today: today})
	if len(again) != 0 {
		t.Fatalf("second due plans %v", jobNames(again))
	}
	// A fresh load of the tree agrees (nothing only in memory).
	f.open(t)
	if again, _ := Plan(f.m, Request{Due: true}, Options{Today: today}); len(again) != 0 {
		t.Fatalf("second due after reload plans %v", jobNames(again))
	}
	if !reflect.DeepEqual(raw, f.snapshot(t)) {
		t.Fatal("a raw daily changed")
	}
}

func TestStaleness(t *testing.T) {
	f := novemberFixture(t)
	today := day(t, "2026-12-01")
	if _, err := RunPlan(ctx, f.m, Request{Due: true}, Options{Today: today}, nil); err != nil {
		t.Fatal(err)
	}
	due := func() []string {
		t.Helper()
		jobs, err := Plan(f.m, Request{Due: true}, Options{Today: today})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, j := range jobs {
			out = append(out, j.Rollup.String()+": "+j.Reason)
		}
		return out
	}
	// A plain editor changes a raw daily's bytes, not its revision.
	p := f.path("2026-11-10.md")
	b, _ := os.ReadFile(p)
	must(t, os.WriteFile(p, append(b, "- Built a hash-only edit\n"...), 0o644))
	got := due()
	want := []string{
		"day 2026-11-10: stale: 2026-11-10.md changed since the rollup read it (same revision 1, different content)",
		"week 2026-W46: its source refined/2026-11-10.md is rolled up first",
		"month 2026-11: its source weekly/2026-W46.md is rolled up first",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after a hash-only edit:\n got %q\nwant %q", got, want)
	}
	if _, err := RunPlan(ctx, f.m, Request{Due: true}, Options{Today: today}, nil); err != nil {
		t.Fatal(err)
	}
	if rec, _ := RecordedSources(f.m.Note(f.path("refined/2026-11-10.md"))); len(rec) != 1 || rec[0].Hash != f.m.Note(p).Hash() {
		t.Fatalf("the rerun recorded %+v, not the edited file", rec)
	}
	if got := due(); len(got) != 0 {
		t.Fatalf("after rerunning: %q", got)
	}

	// A revision bump through the engine.
	e := f.m.Note(f.path("2026-11-17.md"))
	if _, err := f.m.Write(engine.WriteRequest{Dimension: engine.Task, Key: "journal/2026-11-17.md", Body: append(e.BodyOrNil(), "- Decided to bump\n"...), ExpectRevision: 1, ExpectHash: e.Hash()}); err != nil {
		t.Fatal(err)
	}
	if got := due(); len(got) != 3 || got[0] != "day 2026-11-17: stale: 2026-11-17.md is at revision 2, the rollup read revision 1" {
		t.Fatalf("after a revision bump: %q", got)
	}
	if _, err := RunPlan(ctx, f.m, Request{Due: true}, Options{Today: today}, nil); err != nil {
		t.Fatal(err)
	}

	// A source removed: the week no longer reads that refined day.
	must(t, os.Remove(f.path("refined/2026-11-24.md")))
	must(t, os.Remove(f.path("2026-11-24.md")))
	f.m.Refresh(f.path("refined/2026-11-24.md"))
	f.m.Refresh(f.path("2026-11-24.md"))
	if got := due(); len(got) != 2 || got[0] != "week 2026-W48: stale: refined/2026-11-24.md was removed" {
		t.Fatalf("after removing a source: %q", got)
	}
	if _, err := RunPlan(ctx, f.m, Request{Due: true}, Options{Today: today}, nil); err != nil {
		t.Fatal(err)
	}
	// A source added: a raw daily appears in a week already rolled up.
	f.put(t, "2026-11-24.md", rawDay(day(t, "2026-11-24"), 99))
	if got := due(); len(got) != 3 || got[0] != "day 2026-11-24: missing" || got[1] != "week 2026-W48: its source refined/2026-11-24.md is rolled up first" {
		t.Fatalf("after adding a source: %q", got)
	}
	// Hand-written rollups (no sources:) are left alone by due.
	f.put(t, "refined/2026-11-01.md", "# by hand\n")
	f.put(t, "2026-11-01.md", "# raw\n- Built x\n")
	for _, g := range due() {
		if strings.HasPrefix(g, "day 2026-11-01") {
			t.Fatalf("a hand-written refined day is planned: %s", g)
		}
	}
}

type summarizerFunc func(in Input) (string, error)

func (summarizerFunc) Name() string { return "func" }
func (s summarizerFunc) Summarize(_ context.Context, in Input) (string, error) {
	return s(in)
}

// A source edited while the summarizer runs is picked up by a second run, not
// silently left out, and never overwritten.
func TestSourceChangesDuringSummary(t *testing.T) {
	f := novemberFixture(t)
	p := f.path("2026-11-03.md")
	var calls atomic.Int32
	var lastInput string
	edit := summarizerFunc(func(in Input) (string, error) {
		lastInput = string(in.Sources[0].Body)
		if calls.Add(1) == 1 {
			b, _ := os.ReadFile(p)
			must(t, os.WriteFile(p, append(b, "- Built the concurrent edit\n"...), 0o644))
		}
		return journal.Summarize(in.Kind, in.Period, in.Sources), nil
	})
	jobs, _ := Plan(f.m, Request{Rollup: journal.Rollup{Kind: journal.RefineDay, Day: day(t, "2026-11-03")}}, Options{})
	res, err := Run(ctx, f.m, jobs[0], edit)
	if err != nil {
		t.Fatal(err)
	}
	if res.Attempts != 2 || calls.Load() != 2 {
		t.Fatalf("attempts %d, calls %d", res.Attempts, calls.Load())
	}
	contains(t, "the summarizer's last input", lastInput, "concurrent edit")
	contains(t, "raw daily", f.read(t, "2026-11-03.md"), "concurrent edit")
	cur := f.m.Note(p)
	if res.Sources[0].Hash != cur.Hash() {
		t.Fatal("the recorded hash is not the edited file's")
	}

	// Changing on every run: a clear error naming the source, nothing written.
	p4 := f.path("2026-11-04.md")
	always := summarizerFunc(func(in Input) (string, error) {
		b, _ := os.ReadFile(p4)
		must(t, os.WriteFile(p4, append(b, "- one more line\n"...), 0o644))
		return journal.Summarize(in.Kind, in.Period, in.Sources), nil
	})
	jobs, _ = Plan(f.m, Request{Rollup: journal.Rollup{Kind: journal.RefineDay, Day: day(t, "2026-11-04")}}, Options{})
	_, err = Run(ctx, f.m, jobs[0], always)
	var sc *SourceChangedError
	if !errors.As(err, &sc) || sc.Source != "2026-11-04.md" || !strings.Contains(err.Error(), "2026-11-04.md changed while the summarizer ran") {
		t.Fatalf("want a SourceChangedError naming 2026-11-04.md, got %v", err)
	}
	if _, err := os.Stat(f.path("refined/2026-11-04.md")); !os.IsNotExist(err) {
		t.Fatal("a rollup was written although its source kept changing")
	}
	if strings.Count(f.read(t, "2026-11-04.md"), "one more line") != 2 {
		t.Fatal("the concurrent edits were not all kept")
	}
}

// The output changed by someone else while the summarizer ran: the write is
// refused and nothing is lost.
func TestOutputChangedDuringSummary(t *testing.T) {
	f := novemberFixture(t)
	runOne(t, f, "day", "2026-11-05")
	b, _ := os.ReadFile(f.path("2026-11-05.md"))
	must(t, os.WriteFile(f.path("2026-11-05.md"), append(b, "- Built more\n"...), 0o644))
	out := f.path("refined/2026-11-05.md")
	hand := summarizerFunc(func(in Input) (string, error) {
		must(t, os.WriteFile(out, []byte("---\nrevision: 7\n---\n# edited by hand meanwhile\n"), 0o644))
		return journal.Summarize(in.Kind, in.Period, in.Sources), nil
	})
	jobs, _ := Plan(f.m, Request{Rollup: journal.Rollup{Kind: journal.RefineDay, Day: day(t, "2026-11-05")}}, Options{})
	_, err := Run(ctx, f.m, jobs[0], hand)
	if _, stale := engine.IsStale(err); !stale || !strings.Contains(err.Error(), "nothing lost") {
		t.Fatalf("want a stale write error, got %v", err)
	}
	contains(t, "hand edit", f.read(t, "refined/2026-11-05.md"), "edited by hand meanwhile")
}

func TestBuiltinSections(t *testing.T) {
	for _, k := range []journal.RollupKind{journal.RefineDay, journal.RollupWeek, journal.RollupMonth} {
		out, err := Builtin.Summarize(ctx, Input{Kind: k, Period: map[journal.RollupKind]string{journal.RefineDay: "2026-11-30", journal.RollupWeek: "2026-W48", journal.RollupMonth: "2026-11"}[k]})
		if err != nil {
			t.Fatal(err)
		}
		body, missing, err := CheckOutput(k, out)
		if err != nil || len(missing) != 0 || body == "" {
			t.Fatalf("%v: %v missing %v\n%s", k, err, missing, out)
		}
	}
}

func TestLessonsPromotion(t *testing.T) {
	f := novemberFixture(t)
	today := day(t, "2026-12-01")
	outs, err := RunPlan(ctx, f.m, Request{Due: true}, Options{Today: today}, nil)
	if err != nil {
		t.Fatal(err)
	}
	month := outs[len(outs)-1]
	if month.Job.Rollup.Kind != journal.RollupMonth || len(month.Lessons) == 0 {
		t.Fatalf("the monthly proposes no lessons: %+v\n%s", month.Result, f.read(t, "monthly/2026-11.md"))
	}
	j := f.journal(t)
	ed, err := PlanLessons(f.m, j, month.Lessons)
	if err != nil || ed.Exists || len(ed.Added) != len(month.Lessons) || !strings.HasPrefix(string(ed.Content), "---\nrevision: 1\n") {
		t.Fatalf("plan for a new MEMORY.md: %+v %v", ed, err)
	}
	pr, err := Promote(f.m, j, month.Lessons)
	if err != nil || !pr.Created || pr.Revision != 1 || len(pr.Added) != len(month.Lessons) {
		t.Fatalf("promote: %+v %v", pr, err)
	}
	mem := f.read(t, "MEMORY.md")
	for _, l := range month.Lessons {
		contains(t, "MEMORY.md", mem, "- "+l)
	}
	// Twice: nothing added, nothing written.
	pr, err = Promote(f.m, j, month.Lessons)
	if err != nil || len(pr.Added) != 0 || pr.Revision != 1 || f.read(t, "MEMORY.md") != mem {
		t.Fatalf("second promote: %+v %v", pr, err)
	}
	// The month's rerun proposes nothing now.
	res := runOne(t, f, "month", "2026-11")
	if res.Status != UpToDate || len(res.Lessons) != 0 {
		t.Fatalf("month after promotion: %+v", res)
	}
	// A reviewable edit on an existing MEMORY.md is one insertion.
	ed, err = PlanLessons(f.m, j, []string{"Keep fixtures small", month.Lessons[0]})
	if err != nil || !ed.Exists || ed.Revision != 1 || len(ed.Added) != 1 {
		t.Fatalf("plan: %+v %v", ed, err)
	}
	cur := []byte(mem)
	applied := string(cur[:ed.Offset]) + ed.Insert + string(cur[ed.Offset:])
	if !strings.HasSuffix(applied, string(ed.Body)) || !strings.Contains(ed.Insert, "- Keep fixtures small") {
		t.Fatalf("insert %q at %d does not give the new body", ed.Insert, ed.Offset)
	}
}

func TestToday(t *testing.T) {
	f := newFixture(t)
	d := day(t, "2026-11-30")
	p, created, err := Today(f.m, engine.Task, "", d)
	if err != nil || !created || p != f.path("2026-11-30.md") {
		t.Fatalf("today: %s %v %v", p, created, err)
	}
	b := f.read(t, "2026-11-30.md")
	if !strings.HasPrefix(b, "---\nrevision: 1\nupdated: ") || !strings.Contains(b, "# 2026-11-30 (Monday)\n") {
		t.Fatalf("today's note:\n%s", b)
	}
	must(t, os.WriteFile(p, []byte(b+"- 09:00 started\n"), 0o644))
	p2, created, err := Today(f.m, engine.Task, "", d)
	if err != nil || created || p2 != p {
		t.Fatalf("second today: %s %v %v", p2, created, err)
	}
	contains(t, "today's note kept", f.read(t, "2026-11-30.md"), "started")

	// Concurrent creation from separate loads: one creates, all get the path.
	var made atomic.Int32
	done := make(chan error)
	for i := 0; i < 8; i++ {
		m, err := engine.Open(engine.Options{DataDir: f.data, ProjectDir: f.project, Machine: "m1"})
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			p, c, err := Today(m, engine.Task, "T-7", d)
			if c {
				made.Add(1)
			}
			if err == nil && !strings.HasSuffix(p, "T-7/journal/2026-11-30.md") {
				err = errors.New("wrong path " + p)
			}
			done <- err
		}()
	}
	for i := 0; i < 8; i++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if made.Load() != 1 {
		t.Fatalf("%d creations", made.Load())
	}
	if _, _, err := Today(f.m, engine.User, "x", d); err == nil {
		t.Fatal("a scope in the user dimension is accepted")
	}
}

func TestNoJournalLayer(t *testing.T) {
	f := newFixture(t)
	must(t, os.Remove(f.data+"/memory/layers.json"))
	f.open(t)
	if _, _, err := Today(f.m, engine.Task, "", day(t, "2026-11-30")); err == nil || !strings.Contains(err.Error(), "layers.json") {
		t.Fatalf("want an error naming layers.json, got %v", err)
	}
}

// A failed day fails the week that reads it, without running it.
func TestRunPlanFailedSource(t *testing.T) {
	f := novemberFixture(t)
	bad := summarizerFunc(func(in Input) (string, error) {
		if in.Kind == journal.RefineDay && in.Period == "2026-11-04" {
			return "", errors.New("model quota exceeded")
		}
		return journal.Summarize(in.Kind, in.Period, in.Sources), nil
	})
	outs, err := RunPlan(ctx, f.m, Request{Due: true}, Options{Today: day(t, "2026-12-01"), Summarizer: bad}, nil)
	if err != nil {
		t.Fatal(err)
	}
	failed := map[string]string{}
	for _, o := range outs {
		if o.Err != nil {
			failed[o.Job.Rollup.String()] = o.Err.Error()
		}
	}
	if len(failed) != 3 || !strings.Contains(failed["week 2026-W45"], "not run: its source refined/2026-11-04.md failed") ||
		!strings.Contains(failed["month 2026-11"], "not run: its source weekly/2026-W45.md failed") {
		t.Fatalf("failures: %q", failed)
	}
	if _, err := os.Stat(f.path("weekly/2026-W45.md")); !os.IsNotExist(err) {
		t.Fatal("the week was written without its day")
	}
}
