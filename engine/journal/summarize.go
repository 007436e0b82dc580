package journal

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Source is one file a rollup reads: its key (path in the layer, used for order,
// dates and in prompts) and its content. A leading frontmatter block is ignored.
type Source struct {
	Key  string
	Body []byte
}

// Caps on the sections of the built-in weekly and monthly rollups. A capped
// section says so in a last "- … and N more" line: nothing is dropped silently.
const (
	maxThemes  = 5
	maxWorked  = 8
	maxDidnt   = 8
	maxLessons = 8
	maxChanges = 6
	maxArcLen  = 160
	maxLeadLen = 100
)

// Summarize is the built-in extractive summarizer: offline, deterministic (same
// input, same output byte for byte, whatever the order of sources, which are read
// sorted by key). period is written as in file names (2026-11-30, 2026-W48,
// 2026-11). The result is Markdown: a "# " title naming the period, then the
// rollup's sections (SectionsFor) in order, each a list, "- (none)" when empty.
// See the package documentation for the rules of each rollup.
func Summarize(kind RollupKind, period string, sources []Source) string {
	srcs := sortedSources(sources)
	title := Title(kind, period)
	switch kind {
	case RefineDay:
		return summarizeDay(title, srcs)
	case RollupWeek:
		return summarizeWeek(title, srcs)
	case RollupMonth:
		return summarizeMonth(title, srcs)
	}
	return "# " + title + "\n"
}

func sortedSources(sources []Source) []Source {
	srcs := append([]Source(nil), sources...)
	sort.SliceStable(srcs, func(i, j int) bool { return srcs[i].Key < srcs[j].Key })
	return srcs
}

// Title returns the title line text (without "# ") of a rollup:
// "2026-11-30 (Monday), refined", "Week 2026-W48 (2026-11-23 to 2026-11-29)",
// "Month 2026-11 (November 2026)". A period that does not parse is used as given.
func Title(kind RollupKind, period string) string {
	switch kind {
	case RefineDay:
		if d, err := ParseDay(period); err == nil {
			return fmt.Sprintf("%s (%s), refined", d, d.Weekday())
		}
		return period + ", refined"
	case RollupWeek:
		if w, err := ParseWeek(period); err == nil {
			return fmt.Sprintf("Week %s (%s to %s)", w, w.Monday(), w.Sunday())
		}
		return "Week " + period
	case RollupMonth:
		if m, err := ParseMonth(period); err == nil {
			return fmt.Sprintf("Month %s (%s %d)", m, m.Month, m.Year)
		}
		return "Month " + period
	}
	return period
}

// doc is a parsed rollup source: its key, period label and items by section.
type doc struct {
	key   string
	label string // the period from the key's file name (2026-11-30, 2026-W48), or the key
	secs  map[string][]string
}

func parseDoc(s Source) doc {
	d := doc{key: s.Key, label: baseName(s.Key), secs: map[string][]string{}}
	for _, sec := range ParseSections(stripFrontmatter(s.Body)) {
		t := canonicalTitle(sec.Title)
		for _, it := range sec.Items {
			if isNone(it.Text) {
				continue
			}
			d.secs[t] = append(d.secs[t], it.Text)
		}
	}
	return d
}

// canonicalTitle maps a heading to the known section it names (case-insensitive,
// "Decisions" for "Decisions Made" and so on), or returns it as given.
func canonicalTitle(t string) string {
	n := normalize(t)
	for _, list := range [][]string{RefinedSections, WeeklySections, MonthlySections} {
		for _, s := range list {
			if n == normalize(s) {
				return s
			}
		}
	}
	switch {
	case strings.HasPrefix(n, "decision"):
		return SecDecisions
	case n == "built" || n == "done" || n == "shipped":
		return SecBuilt
	case strings.HasPrefix(n, "problem"):
		return SecProblems
	case strings.HasPrefix(n, "next"):
		return SecNext
	case strings.HasPrefix(n, "what didn"):
		return SecDidnt
	case strings.HasPrefix(n, "arc"):
		return SecArc
	case strings.HasPrefix(n, "lesson"):
		return SecLessons
	case strings.HasPrefix(n, "changes"):
		return SecChanges
	}
	return t
}

func isNone(s string) bool {
	n := normalize(s)
	return n == "none" || n == "n a" || n == "nothing"
}

// list accumulates items without repeats (by normalized text) up to a cap.
type list struct {
	max   int
	seen  map[string]bool
	items []string
	more  int
}

func newList(max int) *list { return &list{max: max, seen: map[string]bool{}} }

func (l *list) add(s string) {
	n := normalize(s)
	if n == "" || l.seen[n] {
		return
	}
	l.seen[n] = true
	if l.max > 0 && len(l.items) >= l.max {
		l.more++
		return
	}
	l.items = append(l.items, s)
}

func (l *list) out() []string {
	if l.more == 0 {
		return l.items
	}
	return append(append([]string(nil), l.items...), fmt.Sprintf("… and %d more", l.more))
}

// isLesson reports whether an item states a lesson ("Lesson: …", "Learned …").
func isLesson(s string) bool {
	n := normalize(s)
	return strings.HasPrefix(n, "lesson") || strings.HasPrefix(n, "learned") || strings.HasPrefix(n, "we learned")
}

// lessonText takes a "Lesson:"-style label off a lesson.
func lessonText(s string) string {
	low := strings.ToLower(s)
	for _, p := range []string{"lessons learned:", "lesson learned:", "lessons:", "lesson:", "learned:", "learnt:"} {
		if strings.HasPrefix(low, p) {
			return strings.TrimSpace(s[len(p):])
		}
	}
	return s
}

// themeStop are words too generic to be a theme: the journal's own verbs and
// nouns for kinds of items.
var themeStop = sync.OnceValue(func() map[string]bool {
	return wordSet(strings.Fields(`error fail failed failing failure fix fixed bug problem issue
	test tested testing built build shipped implemented finished merged added completed released deployed
	wrote rewrite rewrote waiting wait started start ran run running again work worked working because
	tried try added add decide going use never always still keep`))
})

// term is a candidate theme: a significant word or a pair of adjacent ones.
type term struct {
	text  string
	days  int
	count int
	first string // first item that mentions it
}

// themes returns the terms that recur in at least two of the docs, best first:
// most docs, then pairs before words (a pair as frequent as its words says more),
// then most mentions, then alphabetical. A word that is part of a chosen term is
// not chosen again, and a word gives way to a pair containing it that is at least
// three quarters as frequent. Words that name the kind of an item rather than its subject
// (error, fixed, shipped, …: themeStop) are left out.
func themes(docs []doc, secs []string, max int) []term {
	byText := map[string]*term{}
	var order []string
	for _, d := range docs {
		seenHere := map[string]bool{}
		for _, s := range secs {
			for _, it := range d.secs[s] {
				var ws []string
				for _, w := range sigWords(it) {
					if !themeStop()[w] {
						ws = append(ws, w)
					}
				}
				var ts []string
				ts = append(ts, ws...)
				for i := 0; i+1 < len(ws); i++ {
					ts = append(ts, ws[i]+" "+ws[i+1])
				}
				for _, t := range ts {
					e := byText[t]
					if e == nil {
						e = &term{text: t, first: it}
						byText[t] = e
						order = append(order, t)
					}
					e.count++
					if !seenHere[t] {
						seenHere[t] = true
						e.days++
					}
				}
			}
		}
	}
	var all []*term
	for _, t := range order {
		if e := byText[t]; e.days >= 2 {
			all = append(all, e)
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.days != b.days {
			return a.days > b.days
		}
		ap, bp := strings.Contains(a.text, " "), strings.Contains(b.text, " ")
		if ap != bp {
			return ap
		}
		if a.count != b.count {
			return a.count > b.count
		}
		return a.text < b.text
	})
	var out []term
	used := map[string]bool{}
	for _, e := range all {
		if len(out) >= max {
			break
		}
		if !strings.Contains(e.text, " ") {
			// Prefer a pair with the word that is nearly as frequent ("deploy
			// pipeline" on 5 days over "deploy" on 6).
			for _, p := range all {
				if strings.Contains(p.text, " ") && 4*p.days >= 3*e.days && containsWord(p.text, e.text) &&
					!used[strings.Fields(p.text)[0]] && !used[strings.Fields(p.text)[1]] {
					e = p
					break
				}
			}
		}
		parts := strings.Fields(e.text)
		skip := false
		for _, p := range parts {
			if used[p] {
				skip = true
			}
		}
		if skip {
			continue
		}
		for _, p := range parts {
			used[p] = true
		}
		out = append(out, *e)
	}
	return out
}

func containsWord(phrase, w string) bool {
	for _, f := range strings.Fields(phrase) {
		if f == w {
			return true
		}
	}
	return false
}

// summarizeWeek is the weekly rollup from refined days:
//   - Themes: terms recurring on two or more days (themes), with the number of days
//     and the first item naming them (one theme per item); with no recurring
//     term, the week's decisions and things built.
//   - Trajectory: one line per day in date order, with the date: the day's first
//     thing built (else decision, else next step), and its first problem.
//   - What Worked: lessons first, then decisions that change how we work
//     (isChange), then things built.
//   - What Didn't: blockers, then problems.
func summarizeWeek(title string, srcs []Source) string {
	docs := make([]doc, len(srcs))
	for i, s := range srcs {
		docs[i] = parseDoc(s)
	}
	th := newList(maxThemes)
	shown := map[string]bool{}
	for _, t := range themes(docs, []string{SecDecisions, SecBuilt, SecProblems, SecBlockers, SecNext}, 4*maxThemes) {
		if len(th.items) == maxThemes {
			break
		}
		line := fmt.Sprintf("%s (%d days)", t.text, t.days)
		if shown[t.first] {
			continue // the same item gave a better theme already
		}
		shown[t.first] = true
		line += ": " + truncate(t.first, maxLeadLen)
		th.add(line)
	}
	if len(th.items) == 0 {
		for _, d := range docs {
			for _, s := range []string{SecDecisions, SecBuilt} {
				for _, it := range d.secs[s] {
					th.add(it)
				}
			}
		}
	}
	traj := newList(0)
	for _, d := range docs {
		lead := first(d.secs[SecBuilt], d.secs[SecDecisions], d.secs[SecNext], d.secs[SecBlockers])
		prob := first(d.secs[SecProblems])
		label := d.label
		if day, err := ParseDay(d.label); err == nil {
			label = fmt.Sprintf("%s %s", day, day.Weekday().String()[:3])
		}
		var parts []string
		if lead != "" {
			parts = append(parts, strings.TrimRight(truncate(lead, maxLeadLen), "."))
		}
		if prob != "" {
			parts = append(parts, "problem: "+strings.TrimRight(truncate(prob, maxLeadLen), "."))
		}
		if len(parts) == 0 {
			continue
		}
		traj.add(label + ": " + strings.Join(parts, "; "))
	}
	worked := newList(maxWorked)
	didnt := newList(maxDidnt)
	for _, d := range docs {
		for _, s := range []string{SecDecisions, SecBuilt, SecProblems, SecBlockers, SecNext} {
			for _, it := range d.secs[s] {
				if isLesson(it) {
					worked.add(it)
				}
			}
		}
	}
	// Lessons are never capped away: the cap counts what follows them.
	worked.max += len(worked.items)
	for _, d := range docs {
		for _, it := range d.secs[SecDecisions] {
			if isChange(it) {
				worked.add(it)
			}
		}
	}
	for _, d := range docs {
		for _, it := range d.secs[SecBuilt] {
			worked.add(it)
		}
	}
	for _, d := range docs {
		for _, it := range d.secs[SecBlockers] {
			didnt.add(it)
		}
	}
	for _, d := range docs {
		for _, it := range d.secs[SecProblems] {
			didnt.add(it)
		}
	}
	return render(title, WeeklySections, [][]string{th.out(), traj.out(), worked.out(), didnt.out()})
}

func first(lists ...[]string) string {
	for _, l := range lists {
		if len(l) > 0 {
			return l[0]
		}
	}
	return ""
}

// changeCues are phrases that mark a change in how the work is done.
var changeCues = []string{"switched", "switch to", "moved to", "from now on", "going forward",
	"instead of", "started using", "stopped", "no longer", "workflow", "convention", "conventions",
	"policy", "adopt", "adopted"}

// Labels of recurring items in a monthly's Lessons.
const (
	recurProblem = "Recurring problem"
	recurWorked  = "Worked repeatedly"
)

// isChange reports whether an item names a change of practice.
func isChange(s string) bool {
	n := normalize(s)
	for _, c := range changeCues {
		if hasWord(n, c) {
			return true
		}
	}
	return false
}

// recurOverlap is the share of significant words two items must share to count
// as the same item in different weeks.
const recurOverlap = 0.6

// summarizeMonth is the monthly rollup from weeklies:
//   - The Arc: one line per week in order: its top themes and how it ended (its
//     last trajectory line).
//   - Lessons: monthLessons.
//   - Changes in How We Work: items of What Worked / What Didn't naming a change
//     of practice (switched to, from now on, instead of, no longer, adopted,
//     workflow, convention, …: changeCues), and the items of any Changes section.
func summarizeMonth(title string, srcs []Source) string {
	docs := make([]doc, len(srcs))
	for i, s := range srcs {
		docs[i] = parseDoc(s)
	}
	arc := newList(0)
	for _, d := range docs {
		var labels []string
		for _, t := range d.secs[SecThemes] {
			if len(labels) == 3 {
				break
			}
			l := t
			if i := strings.Index(t, " ("); i > 0 {
				l = t[:i]
			}
			labels = append(labels, truncate(l, 40))
		}
		line := d.label + ":"
		if len(labels) > 0 {
			line += " " + strings.Join(labels, ", ")
		}
		if tr := d.secs[SecTrajectory]; len(tr) > 0 {
			last := tr[len(tr)-1]
			if len(labels) > 0 {
				line += "; "
			} else {
				line += " "
			}
			line += "ended with " + last
		}
		if line == d.label+":" {
			continue
		}
		arc.add(truncate(line, maxArcLen))
	}

	lessons := monthLessons(docs)
	changes := newList(maxChanges)
	for _, d := range docs {
		for _, s := range []string{SecWorked, SecDidnt, SecChanges} {
			for _, it := range d.secs[s] {
				if s == SecChanges || isChange(it) {
					changes.add(it)
				}
			}
		}
	}
	return render(title, MonthlySections, [][]string{arc.out(), lessons.out(), changes.out()})
}

func sortedKeys(m map[string][]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// recurring is one item of a month's weeklies with the weeks it was seen in;
// near-duplicates (sameItem) are one recurring item.
type recurring struct {
	label string // "Lesson", recurProblem or recurWorked
	text  string // the first wording seen
	key   itemKey
	weeks []string
}

// addRecurring adds the item it of week to rs, merged into a near-duplicate of
// the same label when there is one.
func addRecurring(rs []*recurring, label, it, week string) []*recurring {
	k := keyOf(it)
	if len(k.full) == 0 {
		return rs
	}
	for _, r := range rs {
		if r.label == label && k.similar(r.key) {
			if r.weeks[len(r.weeks)-1] != week {
				r.weeks = append(r.weeks, week)
			}
			return rs
		}
	}
	return append(rs, &recurring{label: label, text: it, key: k, weeks: []string{week}})
}

// sameItem reports whether two items say the same thing: each holds 60% of
// the other's significant words ("Built the bot handler part 1" and "… part 7").
func sameItem(a, b []string) bool {
	return overlap(a, wordSet(b)) >= recurOverlap && overlap(b, wordSet(a)) >= recurOverlap
}

// similar reports whether two items are near-duplicates: the same whole items
// (sameItem), or the same heads. A head is what an item says before its first
// explanation ("; ", ": ", " — ", ", "), so "pin every dependency version before
// a deploy; the library's minor update broke ParseMode" is the lesson "always
// pin dependency versions before deploying" told with its story. A head needs
// two significant words to count.
func similar(a, b string) bool { return keyOf(a).similar(keyOf(b)) }

// itemKey is an item's significant words, whole and of its head, computed
// once for comparing it with many others.
type itemKey struct{ full, head []string }

func keyOf(s string) itemKey { return itemKey{full: sigWords(s), head: sigWords(head(s))} }

func (a itemKey) similar(b itemKey) bool {
	if sameItem(a.full, b.full) {
		return true
	}
	return len(a.head) >= 2 && len(b.head) >= 2 && sameItem(a.head, b.head)
}

// head is an item up to its first explanation (see similar).
func head(s string) string {
	cut := len(s)
	for _, sep := range []string{"; ", ": ", " — ", " - ", ", "} {
		if i := strings.Index(s, sep); i > 0 && i < cut {
			cut = i
		}
	}
	return s[:cut]
}

// monthLessons is the monthly's Lessons section, each item with the weeks it
// was seen in, near-duplicates merged into one:
//   - "Lesson (2026-W06, 2026-W08): …": explicit lessons ("Lesson: …",
//     "Learned …", a Lessons section) of the weeklies;
//   - "Recurring problem (weeks): …": What Didn't items of two or more weeks;
//   - "Worked repeatedly (weeks): …": What Worked items naming a change of
//     practice (isChange) of two or more weeks. Things merely built again are a
//     theme, not a lesson.
//
// Items of two or more weeks come first, explicit lessons before recurring
// items (they are what ProposeLessons offers for MEMORY.md), then one-week
// lessons; capped at maxLessons, visibly.
func monthLessons(docs []doc) *list {
	var rs []*recurring
	for _, d := range docs {
		for _, s := range sortedKeys(d.secs) {
			for _, it := range d.secs[s] {
				if strings.HasPrefix(it, "… and ") {
					continue
				}
				switch {
				case isLesson(it) || s == SecLessons:
					rs = addRecurring(rs, "Lesson", lessonText(it), d.label)
				case s == SecDidnt:
					rs = addRecurring(rs, recurProblem, it, d.label)
				case s == SecWorked && isChange(it):
					rs = addRecurring(rs, recurWorked, it, d.label)
				}
			}
		}
	}
	lessons := newList(maxLessons)
	for _, pass := range []struct{ many, explicit bool }{{true, true}, {true, false}, {false, true}} {
		for _, r := range rs {
			if (len(r.weeks) >= 2) != pass.many || (r.label == "Lesson") != pass.explicit {
				continue
			}
			lessons.add(fmt.Sprintf("%s (%s): %s", r.label, strings.Join(r.weeks, ", "), r.text))
		}
	}
	return lessons
}
