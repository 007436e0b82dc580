package journal

import (
	"fmt"
	"strings"
	"testing"
)

const monthlyWithLessons = `---
sources: []
---
# Month 2026-12 (December 2026)

## The Arc

- 2026-W49: search index

## Lessons

- check certificate expiry before blaming the load balancer.
- Lesson: Small commits make the bisect painless
- Recurring problem (2026-W49, 2026-W50): Webhook retry test still flaky on CI.
- Always run the migration in a transaction.
- CHECK certificate expiry, before blaming the load-balancer!
- (none)
- … and 3 more

## Changes in How We Work

- Lesson: this is not in the Lessons section.
`

func TestProposeLessons(t *testing.T) {
	memory := "# Long-term memory\n\n## Lessons\n\n1. always run the\n   migration in a Transaction\n"
	got := ProposeLessons([]byte(monthlyWithLessons), []byte(memory))
	want := []string{
		"check certificate expiry before blaming the load balancer.",
		"Small commits make the bisect painless",
		"Recurring problem: Webhook retry test still flaky on CI.",
	}
	if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Errorf("ProposeLessons =\n%q\nwant\n%q", got, want)
	}
	if got := ProposeLessons([]byte("# Month\n\n## The Arc\n\n- x y\n"), []byte(memory)); got != nil {
		t.Errorf("no Lessons section: %q", got)
	}
	// Not a part of a longer word: "run the migration" is not "rerun the migrations".
	if got := ProposeLessons([]byte("## Lessons\n- run the migration\n"), []byte("- rerun the migrations\n")); len(got) != 1 {
		t.Errorf("partial-word match: %q", got)
	}
}

func TestAppendLessons(t *testing.T) {
	for _, tc := range []struct {
		name    string
		memory  string
		lessons []string
		want    string
	}{
		{"creates the section", "# Memory\n\nPrefers tabs.\n", []string{"measure first"},
			"# Memory\n\nPrefers tabs.\n\n## Lessons\n\n- measure first\n"},
		{"no final newline", "# Memory\n\nPrefers tabs.", []string{"measure first"},
			"# Memory\n\nPrefers tabs.\n\n## Lessons\n\n- measure first\n"},
		{"ends with a blank line", "# Memory\n\n", []string{"measure first"},
			"# Memory\n\n## Lessons\n\n- measure first\n"},
		{"empty memory", "", []string{"measure first"}, "## Lessons\n\n- measure first\n"},
		{"appends to the section, before the next", "# M\n\n## Lessons\n\n- one\n- two\n\n## People\n\n- Sam\n", []string{"three", "four"},
			"# M\n\n## Lessons\n\n- one\n- two\n- three\n- four\n\n## People\n\n- Sam\n"},
		{"empty section", "# M\n\n## Lessons\n\n## People\n", []string{"three"},
			"# M\n\n## Lessons\n\n- three\n\n## People\n"},
		{"heading at EOF", "# M\n\n## Lessons", []string{"three"},
			"# M\n\n## Lessons\n\n- three\n"},
		{"section ends with a paragraph", "## Lessons\nSome prose.\n", []string{"three"},
			"## Lessons\nSome prose.\n\n- three\n"},
		{"last item without newline", "## Lessons\n- one", []string{"two"}, "## Lessons\n- one\n- two\n"},
		{"CRLF", "# M\r\n\r\n## Lessons\r\n\r\n- one\r\n\r\n## X\r\n", []string{"two"},
			"# M\r\n\r\n## Lessons\r\n\r\n- one\r\n- two\r\n\r\n## X\r\n"},
		{"frontmatter kept", "---\nrevision: 2\n# not a heading\n---\n# M\n", []string{"two words"},
			"---\nrevision: 2\n# not a heading\n---\n# M\n\n## Lessons\n\n- two words\n"},
		{"skips known and repeated", "## Lessons\n\n- Measure first.\n", []string{"measure FIRST", "", "  ", "new one", "New one!"},
			"## Lessons\n\n- Measure first.\n- new one\n"},
		{"nothing to add", "## Lessons\n\n- a b\n", nil, "## Lessons\n\n- a b\n"},
		{"multi-line lesson kept on one line", "", []string{"line one\nline two"}, "## Lessons\n\n- line one line two\n"},
		{"lessons heading in a code block is not the section", "```\n## Lessons\n```\n", []string{"x y"},
			"```\n## Lessons\n```\n\n## Lessons\n\n- x y\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := string(AppendLessons([]byte(tc.memory), tc.lessons))
			if got != tc.want {
				t.Errorf("AppendLessons =\n%q\nwant\n%q", got, tc.want)
			}
			if !isSubsequence(tc.memory, got) {
				t.Errorf("original bytes not kept in order")
			}
			if again := string(AppendLessons([]byte(got), tc.lessons)); again != got {
				t.Errorf("second append changed it:\n%q", again)
			}
		})
	}
}

// TestPromoteRoundTrip: lessons proposed and appended are never proposed again.
func TestPromoteRoundTrip(t *testing.T) {
	memory := []byte("# Memory\n\n## Lessons\n\n- always run the migration in a transaction\n")
	props := ProposeLessons([]byte(monthlyWithLessons), memory)
	if len(props) != 3 {
		t.Fatalf("proposals %q", props)
	}
	memory = AppendLessons(memory, props)
	if again := ProposeLessons([]byte(monthlyWithLessons), memory); len(again) != 0 {
		t.Errorf("proposed again after appending: %q", again)
	}
	if n := strings.Count(string(memory), "\n- "); n != 4 {
		t.Errorf("memory has %d items:\n%s", n, memory)
	}
}

func isSubsequence(a, b string) bool {
	i := 0
	for j := 0; j < len(b) && i < len(a); j++ {
		if a[i] == b[j] {
			i++
		}
	}
	return i == len(a)
}

// TestProposeLessonsWeeks: a lesson the built-in summarizer dated is proposed
// once seen in two different weeks (counting earlier monthlies), near-duplicates
// once, and not when MEMORY.md holds a near-duplicate.
func TestProposeLessonsWeeks(t *testing.T) {
	monthly := `## Lessons

- Lesson (2026-W06, 2026-W08): always pin dependency versions before deploying
- Recurring problem (2026-W06, 2026-W07): Telegram webhook timed out under load
- Lesson (2026-W07): pin every dependency version before a deploy
- Lesson (2026-W06): write the migration before the handler
- Lesson (2026-W05): keep the bot token out of the logs
- Lesson (2026-W07): restart the worker after a config change
`
	january := "## Lessons\n\n- Lesson (2026-W04): keep bot tokens out of logs\n"
	memory := "## Lessons\n\n- Restart workers after every config change.\n"
	got := ProposeLessons([]byte(monthly), []byte(memory), []byte(january))
	want := []string{
		"always pin dependency versions before deploying",
		"Recurring problem: Telegram webhook timed out under load",
		"keep the bot token out of the logs",
	}
	if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Errorf("ProposeLessons =\n%q\nwant\n%q", got, want)
	}
	// Without January, the token lesson was seen in one week only.
	if got := ProposeLessons([]byte(monthly), []byte(memory)); len(got) != 2 {
		t.Errorf("without the earlier monthly: %q", got)
	}
}

// TestMonthLessonsMerge is the issue's report: seven "Built the telegram bot
// handler part N" items over the weeks are not lessons, and an explicit lesson
// of two weeks is one item with both weeks.
func TestMonthLessonsMerge(t *testing.T) {
	var srcs []Source
	for i, w := range []string{"2026-W05", "2026-W06", "2026-W07"} {
		var b strings.Builder
		b.WriteString("## What Worked\n\n")
		if i != 1 {
			b.WriteString("- Lesson: always pin dependency versions before deploying\n")
		}
		for p := 1; p <= 7; p++ {
			fmt.Fprintf(&b, "- Built the telegram bot handler part %d\n", p+i*7)
		}
		b.WriteString("\n## What Didn't\n\n- Telegram webhook timed out under load\n- Telegram webhook timed out under load again\n")
		srcs = append(srcs, Source{Key: "weekly/" + w + ".md", Body: []byte(b.String())})
	}
	out := Summarize(RollupMonth, "2026-02", srcs)
	sec := FindSection(ParseSections([]byte(out)), SecLessons)
	var got []string
	for _, it := range sec.Items {
		got = append(got, it.Text)
	}
	want := []string{
		"Lesson (2026-W05, 2026-W07): always pin dependency versions before deploying",
		"Recurring problem (2026-W05, 2026-W06, 2026-W07): Telegram webhook timed out under load",
	}
	if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Errorf("Lessons =\n%q\nwant\n%q\n%s", got, want, out)
	}
}
