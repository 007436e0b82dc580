package journal

import (
	"math"
	"sort"
)

// DatedDoc is a journal document with the day it speaks for: a refined day its
// date, a weekly its Sunday, a monthly its last day, MEMORY.md the day it was last
// updated (or today).
type DatedDoc struct {
	Key  string
	Day  Day
	Body []byte
}

// Loop is an open loop: a blocker or next step that nothing later took up again.
// Start and End are the byte range of the item's line in the Body given.
type Loop struct {
	Key     string
	Day     Day
	Section string // SecBlockers or SecNext
	Text    string
	Start   int
	End     int
}

// LoopOverlap is the share of an item's significant words that one line of a
// later document must contain to mention it again.
const LoopOverlap = 0.6

// OpenLoops returns the blockers and next steps of refined days that are at
// least afterDays days old on today and that no later document mentions again,
// ordered by day, key and offset.
//
// Later documents are every doc of refined and later whose Day is after the
// item's day. A line of one of them mentions an item when it contains at least
// 60% (LoopOverlap) of the item's significant words (normalized words of three or
// more letters, stopwords and numbers left out, plural "s" taken off), checked
// line by line, so a long document does not match by accident. Lines in a
// "## What Didn't" section do not count: that is where a weekly repeats the
// week's blockers, which is an echo, not a follow-up. Items without significant
// words cannot be followed and are not reported.
func OpenLoops(refined []DatedDoc, later []DatedDoc, today Day, afterDays int) []Loop {
	type line struct{ day int }
	var lines []line
	post := map[string][]int32{}
	index := func(d DatedDoc) {
		day := d.Day.ordinal()
		body := d.Body
		skip := false
		eachLine(body, func(_, _ int, l string) {
			if lvl, title := heading(l); lvl > 0 && lvl <= 2 {
				skip = lvl == 2 && canonicalTitle(title) == SecDidnt
				return
			}
			if skip {
				return
			}
			ws := sigWords(l)
			if len(ws) == 0 {
				return
			}
			id := int32(len(lines))
			lines = append(lines, line{day})
			for _, w := range ws {
				post[w] = append(post[w], id)
			}
		})
	}
	for _, d := range refined {
		index(d)
	}
	for _, d := range later {
		index(d)
	}

	var out []Loop
	counts := map[int32]int{}
	for _, r := range refined {
		if today.Sub(r.Day) < afterDays {
			continue
		}
		fm := len(r.Body) - len(stripFrontmatter(r.Body))
		day := r.Day.ordinal()
		for _, sec := range ParseSections(r.Body[fm:]) {
			t := canonicalTitle(sec.Title)
			if t != SecBlockers && t != SecNext {
				continue
			}
			for _, it := range sec.Items {
				if isNone(it.Text) {
					continue
				}
				ws := sigWords(it.Text)
				if len(ws) == 0 {
					continue
				}
				need := int(math.Ceil(LoopOverlap*float64(len(ws)) - 1e-9))
				clear(counts)
				found := false
				for _, w := range ws {
					for _, id := range post[w] {
						if lines[id].day <= day {
							continue
						}
						counts[id]++
						if counts[id] >= need {
							found = true
							break
						}
					}
					if found {
						break
					}
				}
				if !found {
					out = append(out, Loop{Key: r.Key, Day: r.Day, Section: t, Text: it.Text, Start: fm + it.Start, End: fm + it.End})
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if c := a.Day.Compare(b.Day); c != 0 {
			return c < 0
		}
		if a.Key != b.Key {
			return a.Key < b.Key
		}
		return a.Start < b.Start
	})
	return out
}
