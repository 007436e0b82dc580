package journal

import (
	"fmt"
	"strings"
	"testing"
)

func TestOpenLoops(t *testing.T) {
	day1 := "---\nrevision: 1\n---\n# 2026-11-23 (Monday), refined\n\n## Blockers\n\n" +
		"- waiting on Priya for the staging database credentials\n" +
		"- legal review of the terms of service\n" +
		"\n## Next Steps\n\n" +
		"- add jitter to the cron scheduler\n" +
		"- write the runbook for webhook retries\n" +
		"- (none)\n" +
		"- do it\n" + // no significant words: not tracked
		"\n## Problems Encountered\n\n- the deploy broke twice\n"
	day2 := "# 2026-11-24, refined\n\n## Things Built\n\n- Added jitter to the Cron scheduler (cron/jitter.go)\n" +
		"\n## Next Steps\n\n- profile the search index rebuild\n"
	weekly := "# Week 2026-W48\n\n## Themes\n\n- runbook for webhook retries written\n\n" +
		"## What Didn't\n\n- legal review of the terms of service\n- profile the search index rebuild\n"
	memory := "# Memory\n\nStaging database credentials come from Priya.\n"
	refined := []DatedDoc{
		{Key: "refined/2026-11-23.md", Day: d("2026-11-23"), Body: []byte(day1)},
		{Key: "refined/2026-11-24.md", Day: d("2026-11-24"), Body: []byte(day2)},
	}
	later := []DatedDoc{
		{Key: "weekly/2026-W48.md", Day: d("2026-11-29"), Body: []byte(weekly)},
		{Key: "MEMORY.md", Day: d("2026-12-10"), Body: []byte(memory)},
	}
	show := func(ls []Loop) string {
		var s []string
		for _, l := range ls {
			body := string(refined[0].Body)
			if l.Key == refined[1].Key {
				body = string(refined[1].Body)
			}
			if got := body[l.Start:l.End]; got != "- "+l.Text {
				s = append(s, fmt.Sprintf("BAD RANGE %q", got))
			}
			s = append(s, fmt.Sprintf("%s %s %s: %s", l.Key, l.Day, l.Section, l.Text))
		}
		return strings.Join(s, "\n")
	}
	got := show(OpenLoops(refined, later, d("2026-12-10"), 3))
	// Priya: MEMORY.md mentions it. Jitter: built the next day (case and plural
	// differ). Runbook: the weekly's Themes mention it. Legal review: only the
	// weekly's What Didn't repeats it, an echo. Profile: same.
	want := "refined/2026-11-23.md 2026-11-23 Blockers: legal review of the terms of service\n" +
		"refined/2026-11-24.md 2026-11-24 Next Steps: profile the search index rebuild"
	if got != want {
		t.Errorf("OpenLoops =\n%s\nwant\n%s", got, want)
	}
	// Too recent: afterDays counts from the item's day.
	got = show(OpenLoops(refined, later, d("2026-11-26"), 3))
	want = "refined/2026-11-23.md 2026-11-23 Blockers: legal review of the terms of service"
	if got != want {
		t.Errorf("OpenLoops on 11-26 =\n%s\nwant\n%s", got, want)
	}
	// A mention on the same day or before does not close a loop.
	early := []DatedDoc{{Key: "MEMORY.md", Day: d("2026-11-23"), Body: []byte("legal review of the terms of service\n")}}
	if ls := OpenLoops(refined[:1], early, d("2026-12-10"), 0); len(ls) != 4 {
		t.Errorf("same-day mention closed a loop: %s", show(ls))
	}
}

func TestOpenLoopsOverlapThreshold(t *testing.T) {
	item := "# d\n\n## Next Steps\n\n- rotate signing keys before launch party\n" // 5 significant words
	for _, tc := range []struct {
		mention string
		open    bool
	}{
		// The item's significant words: rotate, signing, key, launch, party.
		{"rotated the signing key", true},                 // 2 of 5 (rotated ≠ rotate)
		{"signing keys before launch", false},             // 3 of 5 = 60%
		{"the launch party key was signing off", false},   // 4 of 5, in any order
		{"signing keys\nbefore launch", true},             // 2 and 1, on separate lines
		{"keys, keys, keys and more keys; signing", true}, // 2 distinct of 5
		{"Rotate Signing-Keys before the LAUNCH.", false}, // 4 of 5, case and punctuation aside
	} {
		ls := OpenLoops([]DatedDoc{{Key: "a", Day: d("2026-01-01"), Body: []byte(item)}},
			[]DatedDoc{{Key: "b", Day: d("2026-01-02"), Body: []byte(tc.mention)}}, d("2026-02-01"), 7)
		if (len(ls) == 1) != tc.open {
			t.Errorf("mention %q: open=%v, want %v", tc.mention, len(ls) == 1, tc.open)
		}
	}
}
