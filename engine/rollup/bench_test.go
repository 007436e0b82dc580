package rollup

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/journal"
)

// historyStart makes day 1,000 of the generated history 2026-11-29.
var historyStart = journal.Day{Year: 2024, Month: time.March, Day: 5}

// historyFixture writes days raw dailies of journal.GenerateHistory into the
// task journal of a new fixture, as an agent would have (frontmatter included).
func historyFixture(tb testing.TB, days int) *fixture {
	tb.Helper()
	f := newFixture(tb)
	must(tb, os.MkdirAll(f.jdir, 0o755))
	for rel, body := range journal.GenerateHistory(days, historyStart, 1) {
		src := append([]byte("---\nrevision: 1\nupdated: 2026-01-01T00:00:00.000Z\n---\n"), body...)
		must(tb, os.WriteFile(filepath.Join(f.jdir, rel), src, 0o644))
	}
	f.open(tb)
	return f
}

// BenchmarkDue1000 rolls up a whole 1,000-day journal with the built-in
// summarizer (every refined day, weekly and monthly), then checks that a
// second `due` right after has nothing to do. Target: under 5 s.
func BenchmarkDue1000(b *testing.B) {
	const days = 1000
	today := historyStart.AddDays(days) // the day after the last daily
	var jobs int
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		f := historyFixture(b, days)
		b.StartTimer()
		outs, err := RunPlan(ctx, f.m, Request{Due: true}, Options{Today: today}, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		for _, o := range outs {
			if o.Err != nil {
				b.Fatalf("%s: %v", o.Job, o.Err)
			}
		}
		jobs = len(outs)
		again, err := Plan(f.m, Request{Due: true}, Options{Today: today})
		if err != nil || len(again) != 0 {
			b.Fatalf("second due: %d jobs (%v)", len(again), err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(jobs), "jobs")
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/due")
}

// bootTokens rolls up a journal of days days as `due` would have every day
// (only complete periods), and renders the <memory> block on its last day.
func bootTokens(b *testing.B, days int) int {
	f := historyFixture(b, days)
	today := historyStart.AddDays(days - 1)
	outs, err := RunPlan(ctx, f.m, Request{Due: true}, Options{Today: today}, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, o := range outs {
		if o.Err != nil {
			b.Fatal(o.Err)
		}
	}
	blk, err := f.m.Render(engine.RenderOptions{Scope: engine.Scope{Task: "T-7", Machine: "m1"}, Today: today.String()})
	if err != nil {
		b.Fatal(err)
	}
	return blk.CountTokens()
}

// BenchmarkBootTokens compares the rendered boot set on day 1,000 with day 30
// of a rolled-up journal. Target: within 1.3×.
func BenchmarkBootTokens(b *testing.B) {
	var t30, t1000 int
	for i := 0; i < b.N; i++ {
		t30, t1000 = bootTokens(b, 30), bootTokens(b, 1000)
	}
	ratio := float64(t1000) / float64(t30)
	b.ReportMetric(float64(t30), "tokens@day30")
	b.ReportMetric(float64(t1000), "tokens@day1000")
	b.ReportMetric(ratio, "ratio")
	if ratio > 1.3 {
		b.Errorf("boot set grew %.2f× from day 30 to day 1,000 (target 1.3×)", ratio)
	}
}
