package rollup

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/magicfrog/mf-lsp/engine/journal"
)

var update = flag.Bool("update", false, "rewrite the want/ files of testdata/*.txtar golden journals")

// goldenJournal writes the journal files of a golden archive (every file not
// under want/) into a fresh fixture's task journal, rolls up everything due on
// today with the built-in summarizer, and compares the body of every rollup
// with want/<path> (or rewrites them with -update). It returns the fixture and
// the outcomes.
func goldenJournal(t *testing.T, name, today string) (*fixture, []Outcome) {
	t.Helper()
	path := filepath.Join("testdata", name)
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	want := map[string]string{}
	for _, file := range ar.Files {
		if rel, ok := strings.CutPrefix(file.Name, "want/"); ok {
			want[rel] = string(file.Data)
			continue
		}
		p := f.path(file.Name)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, file.Data, 0o644))
	}
	f.open(t)
	outs, err := RunPlan(context.Background(), f.m, Request{Due: true}, Options{Today: day(t, today)}, nil)
	must(t, err)
	got := map[string]string{}
	for _, o := range outs {
		if o.Err != nil {
			t.Fatalf("%s: %v", o.Job, o.Err)
		}
		e := f.m.Note(o.Path)
		if e == nil {
			t.Fatalf("%s: no entry at %s", o.Job, o.Path)
		}
		got[o.Job.Output] = string(e.BodyOrNil())
	}
	if *update {
		var files []txtar.File
		for _, file := range ar.Files {
			if !strings.HasPrefix(file.Name, "want/") {
				files = append(files, file)
			}
		}
		keys := make([]string, 0, len(got))
		for k := range got {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			files = append(files, txtar.File{Name: "want/" + k, Data: []byte(got[k])})
		}
		ar.Files = files
		must(t, os.WriteFile(path, txtar.Format(ar), 0o644))
		return f, outs
	}
	for k, g := range got {
		if w, ok := want[k]; !ok {
			t.Errorf("%s: written, but no want/%s (run with -update)", name, k)
		} else if g != w {
			t.Errorf("%s: %s =\n%s\nwant\n%s", name, k, g, w)
		}
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			t.Errorf("%s: want/%s, but it was not written", name, k)
		}
	}
	return f, outs
}

// TestSixWeeks pins what each rollup keeps of a journal written the way
// agents write (testdata/sixweeks.txtar), and checks the rules behind it:
// every explicit lesson reaches its refined day, its weekly and its monthly;
// near-duplicates are one lesson; a lesson of two weeks is proposed (across
// months too), one already in MEMORY.md is not, and things built again are
// not lessons; no refined day is longer than its raw day.
func TestSixWeeks(t *testing.T) {
	f, outs := goldenJournal(t, "sixweeks.txtar", "2026-03-02")
	lessons := map[string][]string{}
	for _, o := range outs {
		if len(o.Lessons) > 0 {
			lessons[o.Job.Output] = o.Lessons
		}
		if o.Job.Rollup.Kind == journal.RefineDay {
			raw, _ := os.ReadFile(f.path(journal.Path(journal.Daily, o.Job.Rollup.Day, journal.Week{}, journal.Month{})))
			if e := f.m.Note(o.Path); len(e.BodyOrNil()) > len(raw) {
				t.Errorf("%s: %d bytes, its raw day %d", o.Job.Output, len(e.BodyOrNil()), len(raw))
			}
		}
	}
	for _, l := range []struct{ day, week, month, text string }{
		{"2026-01-05", "2026-W02", "2026-01", "always pin dependency versions before deploying"},
		{"2026-01-09", "2026-W02", "2026-01", "always pin dependency versions before deploying"},
		{"2026-01-12", "2026-W03", "2026-01", "restart the worker after a config change"},
		{"2026-01-21", "2026-W04", "2026-01", "write the migration before the handler"},
		{"2026-02-02", "2026-W06", "2026-02", "write the migration before the handler, again"},
		{"2026-02-06", "2026-W06", "2026-02", "keep the bot token out of the logs"},
		{"2026-02-11", "2026-W07", "2026-02", "keep bot tokens out of logs"},
		{"2026-01-26", "2026-W05", "2026-01", "pin every dependency version before a deploy"},
	} {
		if !strings.Contains(f.read(t, "refined/"+l.day+".md"), l.text) {
			t.Errorf("refined/%s.md lost the lesson %q", l.day, l.text)
		}
		if !strings.Contains(f.read(t, "weekly/"+l.week+".md"), l.text) {
			t.Errorf("weekly/%s.md lost the lesson %q", l.week, l.text)
		}
		// The monthly keeps one wording of near-duplicates: the first one.
		if l.text == "pin every dependency version before a deploy" || l.text == "keep bot tokens out of logs" || strings.HasSuffix(l.text, ", again") {
			continue
		}
		if !strings.Contains(f.read(t, "monthly/"+l.month+".md"), l.text) {
			t.Errorf("monthly/%s.md lost the lesson %q", l.month, l.text)
		}
	}
	want := map[string][]string{
		"monthly/2026-01.md": {
			"always pin dependency versions before deploying.",
			"Recurring problem: Telegram webhook timed out again under load: 40 concurrent updates.",
		},
		// The migration lesson: W04 (January's monthly) and W06.
		"monthly/2026-02.md": {
			"keep the bot token out of the logs; it showed up in a panic trace.",
			"write the migration before the handler, again: the admins table was missing on staging.",
		},
	}
	if fmt.Sprintf("%q", lessons) != fmt.Sprintf("%q", want) {
		t.Errorf("proposed lessons:\n%q\nwant\n%q", lessons, want)
	}
	for _, m := range []string{"monthly/2026-01.md", "monthly/2026-02.md"} {
		if body := f.read(t, m); strings.Contains(body, "Worked repeatedly") && strings.Contains(body, "handler part") {
			t.Errorf("%s: things built again became a lesson:\n%s", m, body)
		}
	}
	// Promoting January's writes both; February's then adds its two.
	j := f.journal(t)
	res, err := Promote(f.m, j, lessons["monthly/2026-01.md"])
	must(t, err)
	res2, err := Promote(f.m, j, lessons["monthly/2026-02.md"])
	must(t, err)
	if len(res.Added) != 2 || len(res2.Added) != 2 {
		t.Errorf("promoted %q then %q", res.Added, res2.Added)
	}
	t.Logf("lessons: %d explicit lesson lines in 6 weeks, %d proposed, %d promoted", 8, len(want["monthly/2026-01.md"])+len(want["monthly/2026-02.md"]), len(res.Added)+len(res2.Added))
}
