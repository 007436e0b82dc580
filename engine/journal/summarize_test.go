package journal

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite the want.md of golden files in testdata")

// TestSummarizeGolden runs the summarizer on each testdata/summarize/*.txtar:
// the comment gives "kind:" (day, week, month) and "period:", every file but
// want.md is a source keyed by its name, want.md is the expected output.
func TestSummarizeGolden(t *testing.T) {
	paths, _ := filepath.Glob("testdata/summarize/*.txtar")
	if len(paths) == 0 {
		t.Fatal("no golden files")
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			kind, period, srcs, got, _ := summarizeGolden(t, path)
			// Byte-for-byte the same again, and whatever the order of sources.
			rev := append([]Source(nil), srcs...)
			for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
				rev[i], rev[j] = rev[j], rev[i]
			}
			if again := Summarize(kind, period, rev); again != got {
				t.Errorf("not deterministic across source order:\n%s", again)
			}
		})
	}
}

// summarizeGolden reads a golden archive (see TestSummarizeGolden), runs the
// summarizer on its sources and compares the result with its want.md, or
// rewrites want.md with -update. It returns what it read and the result.
func summarizeGolden(t *testing.T, path string) (kind RollupKind, period string, srcs []Source, got string, comment []byte) {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	kind, period = goldenHeader(t, ar.Comment)
	wantIdx := -1
	for i, f := range ar.Files {
		if f.Name == "want.md" {
			wantIdx = i
			continue
		}
		srcs = append(srcs, Source{Key: f.Name, Body: f.Data})
	}
	got = Summarize(kind, period, srcs)
	switch {
	case *update:
		if wantIdx < 0 {
			ar.Files = append(ar.Files, txtar.File{Name: "want.md"})
			wantIdx = len(ar.Files) - 1
		}
		ar.Files[wantIdx].Data = []byte(got)
		if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
	case wantIdx < 0:
		t.Fatal("no want.md (run with -update)")
	default:
		if want := string(ar.Files[wantIdx].Data); got != want {
			t.Errorf("Summarize(%v, %s) =\n%s\nwant\n%s", kind, period, got, want)
		}
	}
	return kind, period, srcs, got, ar.Comment
}

func goldenHeader(t *testing.T, c []byte) (RollupKind, string) {
	var kind RollupKind
	var period string
	for _, l := range strings.Split(string(c), "\n") {
		if v, ok := strings.CutPrefix(l, "kind: "); ok {
			kind = map[string]RollupKind{"day": RefineDay, "week": RollupWeek, "month": RollupMonth}[v]
		}
		if v, ok := strings.CutPrefix(l, "period: "); ok {
			period = v
		}
	}
	if kind == 0 || period == "" {
		t.Fatalf("golden comment lacks kind/period: %q", c)
	}
	return kind, period
}

// TestRefineRules checks single rules of the refined-day summarizer.
func TestRefineRules(t *testing.T) {
	for _, tc := range []struct {
		name    string
		raw     string
		section string // "" when the line must be dropped
		item    string
	}{
		{"decision marker stripped", "- Decision: use SQLite\n", SecDecisions, "use SQLite"},
		{"DECISION upper", "DECISION: ship on Friday\n", SecDecisions, "ship on Friday"},
		{"decided kept", "- 10:12 Decided to drop the cache\n", SecDecisions, "drop the cache"},
		{"todo", "TODO: write docs for the CLI\n", SecNext, "write docs for the CLI"},
		{"todo no colon", "- TODO write docs for the CLI\n", SecNext, "write docs for the CLI"},
		{"next", "Next: profile the indexer\n", SecNext, "profile the indexer"},
		{"open box", "- [ ] profile the indexer\n", SecNext, "profile the indexer"},
		{"done box", "- [x] profile the indexer\n", SecBuilt, "profile the indexer"},
		{"done box upper", "* [X] profile the indexer\n", SecBuilt, "profile the indexer"},
		{"blocked", "BLOCKED: waiting on ops for DNS\n", SecBlockers, "waiting on ops for DNS"},
		{"blocker", "Blocker: no API key yet\n", SecBlockers, "no API key yet"},
		{"blocked box", "- [ ] BLOCKED: no API key yet\n", SecBlockers, "no API key yet"},
		{"error", "Error: EOF reading config.yaml\n", SecProblems, "EOF reading config.yaml"},
		{"fixed", "[10:30] Fixed the race in the watcher\n", SecProblems, "Fixed the race in the watcher"},
		{"bug word", "found a bug in the token refresh\n", SecProblems, "found a bug in the token refresh"},
		{"broke word", "the nightly build broke again\n", SecProblems, "the nightly build broke again"},
		{"failed word", "login failed for the bot account\n", SecProblems, "login failed for the bot account"},
		{"shipped", "Shipped v0.3 to the beta users\n", SecBuilt, "Shipped v0.3 to the beta users"},
		{"built not builtin", "Builtin types are fine here\n", "", ""},
		{"lesson", "Lesson: measure before optimising\n", SecDecisions, "Lesson: measure before optimising"},
		{"heading files lines", "## Shipped\n- the export button\n", SecBuilt, "the export button"},
		{"heading todo", "### TODO\n1. rotate the keys\n", SecNext, "rotate the keys"},
		{"heading blocked", "## Blocked on\nlegal review of the terms\n", SecBlockers, "legal review of the terms"},
		{"title resets heading", "## Problems\n# Log\nthe weather was nice today\n", "", ""},
		{"marker beats heading", "## Done\n- TODO: tests for the export\n", SecNext, "tests for the export"},
		{"chatter dropped", "had lunch with the team\n", "", ""},
		{"one word dropped", "## Done\n- ok\n", "", ""},
		{"command dropped", "$ go test ./... failed\n", "", ""},
		{"output dropped", "--- FAIL: TestX (0.1s)\n", "", ""},
		{"indented output dropped", "    error: exit status 2\n", "", ""},
		{"fenced dropped", "```\nError: inside a fence\n```\n", "", ""},
		{"stack frame dropped", "/usr/lib/go/src/runtime/panic.go:12 +0x1d\n", "", ""},
		{"time stamp stripped", "- 09:15:02 - Decision: tabs everywhere\n", SecDecisions, "tabs everywhere"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := Summarize(RefineDay, "2026-11-30", []Source{{Key: "2026-11-30.md", Body: []byte(tc.raw)}})
			var found []string
			for _, s := range ParseSections([]byte(out)) {
				for _, it := range s.Items {
					if it.Text != "(none)" {
						found = append(found, s.Title+": "+it.Text)
					}
				}
			}
			want := []string(nil)
			if tc.section != "" {
				want = []string{tc.section + ": " + tc.item}
			}
			if fmt.Sprint(found) != fmt.Sprint(want) {
				t.Errorf("raw %q\ngot  %q\nwant %q", tc.raw, found, want)
			}
		})
	}
}

// TestRefineBudget checks the size rules on generated raw notes: a refine is at
// most a quarter of its day's body bytes, or says in its closing line that it
// is over; every must line (decision, problem, explicit line, a line naming a
// commit or a path) is in it, all the significant words of its compact form;
// it is never longer than its source.
func TestRefineBudget(t *testing.T) {
	h := GenerateHistory(120, d("2026-09-01"), 42)
	var raw, refined, over int
	for key, body := range h {
		srcs := []Source{{Key: key, Body: body}}
		out := Summarize(RefineDay, baseName(key), srcs)
		total := len(stripFrontmatter(body))
		raw += total
		refined += len(out)
		if len(out) > len(body) {
			t.Errorf("%s: refined %d bytes, longer than its source (%d)", key, len(out), len(body))
		}
		closing := strings.HasSuffix(out, "; every item kept -->\n")
		if closing {
			over++
		}
		if len(out) > total/4 && !closing {
			t.Errorf("%s: refined %d bytes of %d, over a quarter without saying so", key, len(out), total)
		}
		have := wordSet(sigWords(out))
		cands, _ := refineCandidates(srcs)
		for _, c := range cands {
			if !c.must() {
				continue
			}
			for _, w := range sigWords(c.compact) {
				if !have[w] {
					t.Errorf("%s: %q of %q dropped", key, w, c.text)
				}
			}
		}
	}
	t.Logf("refined/raw over 120 generated days: %.1f%%, %d over their bound", 100*float64(refined)/float64(raw), over)
}

// TestRefineShortDayKeepsItsLesson is the report: a short raw day with
// one lesson and a ticked task yields a refined day with both, never longer
// than the raw file.
func TestRefineShortDayKeepsItsLesson(t *testing.T) {
	for _, raw := range []string{
		"---\nrevision: 1\nupdated: 2026-02-17T09:00:00.000Z\n---\nLesson: always pin dependency versions before deploying\n",
		"---\nrevision: 2\nupdated: 2026-02-17T09:00:00.000Z\n---\n# 2026-02-17 (Tuesday)\n\n- [x] deploy\n- Lesson: always pin dependency versions before deploying\n- had lunch\n",
	} {
		out := Summarize(RefineDay, "2026-02-17", []Source{{Key: "2026-02-17.md", Body: []byte(raw)}})
		if !strings.Contains(out, "- Lesson: always pin dependency versions before deploying\n") {
			t.Errorf("lesson dropped from\n%s\ngot\n%s", raw, out)
		}
		if strings.Contains(raw, "[x] deploy") && !strings.Contains(out, "- deploy\n") {
			t.Errorf("[x] item dropped:\n%s", out)
		}
		if len(out) > len(raw) {
			t.Errorf("refined %d bytes of a %d-byte raw day:\n%s", len(out), len(raw), out)
		}
		if FindSection(ParseSections([]byte(out)), SecDecisions) == nil {
			t.Errorf("no Decisions Made section:\n%s", out)
		}
	}
}

func TestRefineBigDayKeepsTheBest(t *testing.T) {
	// A long day: many chatter lines and many signal lines. Explicit markers
	// (score 3) are kept before keyword lines (score 1).
	var b bytes.Buffer
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "- chatter line number %d about nothing much at all\n", i)
		fmt.Fprintf(&b, "- the fetcher failed on shard %d with a timeout\n", i)
	}
	b.WriteString("- Decision: shard the fetcher by tenant\n")
	b.WriteString("- TODO: alert on shard timeouts\n")
	out := Summarize(RefineDay, "2026-11-30", []Source{{Key: "x.md", Body: b.Bytes()}})
	if len(out) > b.Len()/4+len("- shard the fetcher by tenant\n- alert on shard timeouts\n") {
		t.Errorf("refined %d bytes of %d", len(out), b.Len())
	}
	for _, want := range []string{"- shard the fetcher by tenant\n", "- alert on shard timeouts\n", "- the fetcher failed on shard 0 with a timeout (×200)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "chatter") {
		t.Errorf("chatter kept:\n%s", out)
	}
}

func TestSummarizeTitles(t *testing.T) {
	for _, tc := range []struct {
		k      RollupKind
		period string
		title  string
	}{
		{RefineDay, "2026-11-30", "# 2026-11-30 (Monday), refined\n"},
		{RollupWeek, "2026-W53", "# Week 2026-W53 (2026-12-28 to 2027-01-03)\n"},
		{RollupMonth, "2026-11", "# Month 2026-11 (November 2026)\n"},
		{RollupWeek, "someday", "# Week someday\n"},
	} {
		if out := Summarize(tc.k, tc.period, nil); !strings.HasPrefix(out, tc.title) {
			t.Errorf("Summarize(%v, %s) starts %q", tc.k, tc.period, out[:strings.IndexByte(out, '\n')+1])
		}
	}
}

func TestWeekCapsAreVisible(t *testing.T) {
	var srcs []Source
	for i := 0; i < 7; i++ {
		day := d("2026-11-23").AddDays(i)
		var b strings.Builder
		b.WriteString("## Things Built\n\n")
		for j := 0; j < 3; j++ {
			fmt.Fprintf(&b, "- component %c%d finished\n", 'a'+i, j)
		}
		srcs = append(srcs, Source{Key: "refined/" + day.String() + ".md", Body: []byte(b.String())})
	}
	out := Summarize(RollupWeek, "2026-W48", srcs)
	worked := FindSection(ParseSections([]byte(out)), SecWorked)
	if len(worked.Items) != maxWorked+1 || worked.Items[maxWorked].Text != fmt.Sprintf("… and %d more", 21-maxWorked) {
		t.Errorf("What Worked: %+v", worked.Items)
	}
	traj := FindSection(ParseSections([]byte(out)), SecTrajectory)
	if len(traj.Items) != 7 || !strings.HasPrefix(traj.Items[0].Text, "2026-11-23 Mon: component a0 finished") {
		t.Errorf("Trajectory: %+v", traj.Items)
	}
}
