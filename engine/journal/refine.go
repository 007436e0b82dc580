package journal

import (
	"sort"
	"strings"
)

// Section indexes of a refined day, in RefinedSections order.
const (
	catNone = iota - 1
	catDecisions
	catBuilt
	catProblems
	catBlockers
	catNext
)

// Scores: how sure the summarizer is that a line is signal.
const (
	scoreKeyword = 1 // a telling word somewhere in an unfiled line ("the build broke")
	scoreHeading = 2 // a line under a heading that names a section ("## Bugs")
	scoreMarker  = 3 // an explicit marker ("Decision:", "TODO:", "[x]")
)

// RefineBudget is the share of the source bytes a refined day aims at.
const RefineBudget = 0.25

// maxItemBytes caps one line of a rollup; longer lines are cut at a word.
const maxItemBytes = 200

// headingCats maps words in a raw note's headings to sections; the first rule
// whose word appears in the normalized heading wins.
var headingCats = []struct {
	words []string
	cat   int
}{
	{[]string{"blocked", "blocker", "blockers", "blocking", "waiting on", "waiting for"}, catBlockers},
	{[]string{"todo", "todos", "to do", "next", "tomorrow", "follow up", "follow ups", "followup", "plan", "plans", "open questions"}, catNext},
	{[]string{"decision", "decisions", "decided", "lessons", "lesson", "learned", "learnings"}, catDecisions},
	{[]string{"problem", "problems", "error", "errors", "bug", "bugs", "issue", "issues", "incident", "incidents", "broke", "broken", "failure", "failures", "fixes", "fixed", "gotchas"}, catProblems},
	{[]string{"built", "build log", "shipped", "done", "did", "completed", "progress", "accomplished", "changes", "changelog", "wins", "implemented", "worked on"}, catBuilt},
}

// prefixMarkers are explicit markers at the start of a line (after any list
// marker, checkbox and time stamp), matched case-insensitively. strip says whether
// the marker is a label to drop ("TODO: x" → "x") or a word to keep ("Fixed x").
var prefixMarkers = []struct {
	marker string
	cat    int
	strip  bool
}{
	{"blocked:", catBlockers, true},
	{"blocker:", catBlockers, true},
	{"blockers:", catBlockers, true},
	{"blocked on", catBlockers, false},
	{"blocked by", catBlockers, false},
	{"waiting on", catBlockers, false},
	{"todo:", catNext, true},
	{"todo", catNext, true},
	{"next steps:", catNext, true},
	{"next step:", catNext, true},
	{"next:", catNext, true},
	{"tomorrow:", catNext, true},
	{"follow-up:", catNext, true},
	{"follow up:", catNext, true},
	{"fixme:", catNext, true},
	{"decision:", catDecisions, true},
	{"decisions:", catDecisions, true},
	{"decided", catDecisions, false},
	{"we decided", catDecisions, false},
	{"going with", catDecisions, false},
	{"lesson:", catDecisions, false},
	{"lesson learned:", catDecisions, false},
	{"learned", catDecisions, false},
	{"error:", catProblems, false},
	{"bug:", catProblems, false},
	{"problem:", catProblems, true},
	{"issue:", catProblems, true},
	{"fixed", catProblems, false},
	{"failed", catProblems, false},
	{"broke", catProblems, false},
	{"panic:", catProblems, false},
	{"done:", catBuilt, true},
	{"built", catBuilt, false},
	{"shipped", catBuilt, false},
	{"implemented", catBuilt, false},
	{"merged", catBuilt, false},
	{"released", catBuilt, false},
	{"deployed", catBuilt, false},
	{"finished", catBuilt, false},
	{"completed", catBuilt, false},
}

// keywordCats are words that file an otherwise unfiled line (score 1), checked
// in this order: blockers, next steps, decisions, problems, built.
var keywordCats = []struct {
	words []string
	cat   int
}{
	{[]string{"blocked", "blocker", "blocking"}, catBlockers},
	{[]string{"todo", "next step", "follow up", "need to", "have to"}, catNext},
	{[]string{"decided", "decision", "chose", "opted", "agreed", "settled on", "going with", "lesson", "learned",
		"switched", "switch to", "from now on", "going forward", "no longer", "adopted", "stopped", "instead of"}, catDecisions},
	{[]string{"error", "errors", "bug", "bugs", "broke", "broken", "fail", "fails", "failed", "failing", "failure",
		"crash", "crashed", "crashes", "panic", "panics", "regression", "exception", "flaky", "leak", "fixed", "timeout", "timed out"}, catProblems},
	{[]string{"built", "shipped", "implemented", "added", "merged", "deployed", "released", "finished", "completed", "landed", "refactored", "wrote"}, catBuilt},
}

type cand struct {
	cat   int
	text  string
	norm  string
	score int
	order int
	// explicit: the writer marked the line as a decision or lesson, blocker,
	// next step, or done or open task item (a marker, a checkbox, or a heading
	// naming one of those sections). Explicit lines are always kept.
	explicit bool
	floor    bool // the best line of a section with no explicit line: kept too
}

// headingCat returns the section a raw note's heading files its lines under.
func headingCat(title string) int {
	n := normalize(title)
	for _, r := range headingCats {
		for _, w := range r.words {
			if hasWord(n, w) {
				return r.cat
			}
		}
	}
	return catNone
}

// isOutput reports whether a raw line is command output or a command, not prose.
func isOutput(line string) bool {
	if strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "    ") {
		t := strings.TrimLeft(line, " \t")
		if m, _ := listMarker(t); m == "" {
			return true // indented code
		}
	}
	t := strings.TrimSpace(line)
	for _, p := range []string{"$ ", "% ", "# ", ">>> ", "> $", "=== RUN", "--- PASS", "--- FAIL", "ok  ", "?   ", "PASS", "FAIL\t", "exit status", "goroutine ", "|"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return strings.Contains(t, "+0x") || strings.HasPrefix(t, "/")
}

// cleanLine takes the list marker, a checkbox and a leading time stamp off a raw
// line. box is ' ' for "[ ]", 'x' for "[x]", 0 for none.
func cleanLine(t string) (text string, box byte) {
	_, t = listMarker(strings.TrimSpace(t))
	if len(t) >= 3 && t[0] == '[' && t[2] == ']' && (t[1] == ' ' || t[1] == 'x' || t[1] == 'X') {
		box = t[1] | 0x20 // ' ' stays ' ', X becomes x
		t = strings.TrimSpace(t[3:])
	}
	t = stripTime(t)
	if box == 0 && len(t) >= 3 && t[0] == '[' && t[2] == ']' && (t[1] == ' ' || t[1] == 'x' || t[1] == 'X') {
		box = t[1] | 0x20 // "09:14 [x] …": the box after the time stamp
		t = strings.TrimSpace(t[3:])
	}
	return strings.TrimSpace(t), box
}

// stripTime removes a leading "09:14", "[09:14]", "09:14:05", "(9:14)", optionally
// followed by "-" or ":".
func stripTime(t string) string {
	s := t
	open := byte(0)
	if s != "" && (s[0] == '[' || s[0] == '(') {
		open = s[0]
		s = s[1:]
	}
	i := 0
	for i < len(s) && i < 2 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i >= len(s) || s[i] != ':' || len(s) < i+3 || !isDigits(s[i+1:i+3]) {
		return t
	}
	s = s[i+3:]
	if len(s) >= 3 && s[0] == ':' && isDigits(s[1:3]) {
		s = s[3:]
	}
	if open != 0 {
		if s == "" || (s[0] != ']' && s[0] != ')') {
			return t
		}
		s = s[1:]
	}
	s = strings.TrimLeft(s, " \t")
	s = strings.TrimPrefix(s, "- ")
	s = strings.TrimPrefix(s, "— ")
	return strings.TrimLeft(s, " \t")
}

// fileLine decides the section of a cleaned raw line.
func fileLine(text string, box byte, hcat int) (cat int, out string, score int, explicit bool) {
	cat, out, score, label := fileLineWhy(text, box, hcat)
	switch {
	case cat == catNone || score < scoreHeading:
	case box != 0:
		explicit = true
	case cat == catDecisions || cat == catBlockers || cat == catNext:
		explicit = true
	case cat == catBuilt:
		explicit = score == scoreHeading || label // under "## Done", or "Done:"
	}
	return cat, out, score, explicit
}

// fileLineWhy is fileLine, and says whether a marker label was taken off.
func fileLineWhy(text string, box byte, hcat int) (cat int, out string, score int, label bool) {
	low := strings.ToLower(text)
	for _, m := range prefixMarkers {
		if strings.HasPrefix(low, m.marker) {
			rest := text[len(m.marker):]
			// A word marker must end at a word boundary ("Builtin" is not "Built").
			if !strings.HasSuffix(m.marker, ":") && rest != "" && isWordByte(rest[0]) {
				continue
			}
			if m.strip {
				text = strings.TrimLeft(rest, " \t:-—")
			}
			if box == 'x' && m.cat == catNext {
				return catBuilt, text, scoreMarker, m.strip
			}
			return m.cat, text, scoreMarker, m.strip
		}
	}
	switch box {
	case 'x':
		return catBuilt, text, scoreMarker, false
	case ' ':
		return catNext, text, scoreMarker, false
	}
	if hcat != catNone {
		return hcat, text, scoreHeading, false
	}
	n := normalize(text)
	for _, r := range keywordCats {
		for _, w := range r.words {
			if hasWord(n, w) {
				return r.cat, text, scoreKeyword, false
			}
		}
	}
	return catNone, "", 0, false
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// refineCandidates reads raw notes and returns the lines worth keeping, filed
// into sections, deduplicated.
func refineCandidates(sources []Source) []cand {
	var cands []cand
	order := 0
	for _, src := range sources {
		body := stripFrontmatter(src.Body)
		hcat := catNone
		eachBodyLine(body, func(l bodyLine) {
			if l.level > 0 {
				if l.level == 1 {
					hcat = catNone
				} else {
					hcat = headingCat(l.title)
				}
				return
			}
			if isOutput(l.text) {
				return
			}
			text, box := cleanLine(l.text)
			cat, text, score, explicit := fileLine(text, box, hcat)
			if cat == catNone {
				return
			}
			text = truncate(text, maxItemBytes)
			norm := normalize(text)
			if n := len(strings.Fields(norm)); n == 0 || n < 2 && score < scoreMarker {
				return // one word is not a note ("done", "ok"), unless marked ("[x] deployed")
			}
			cands = append(cands, cand{cat: cat, text: text, norm: norm, score: score, order: order, explicit: explicit})
			order++
		})
	}
	return dedupeCands(cands)
}

// dedupeCands keeps one candidate per normalized text (the best scored, then the
// first) and drops next steps that were ticked off ([x]) or built the same day.
func dedupeCands(cands []cand) []cand {
	best := map[string]int{}
	for i, c := range cands {
		j, ok := best[c.norm]
		if !ok || c.score > cands[j].score {
			best[c.norm] = i
		}
	}
	built := map[string]bool{}
	for _, c := range cands {
		if c.cat == catBuilt {
			built[c.norm] = true
		}
	}
	out := cands[:0:0]
	for i, c := range cands {
		if best[c.norm] != i {
			continue
		}
		if c.cat == catNext && built[c.norm] {
			continue
		}
		out = append(out, c)
	}
	return out
}

// selectWithin keeps every explicit candidate, whatever it costs; then, while
// all kept items fit in budget bytes, the best other candidate of every
// section that has no explicit one (so no section with signal comes out
// empty), then the others by score, then source order, each if it still fits.
// The result is in source order.
func selectWithin(cands []cand, nsec int, budget int) []cand {
	keep := make([]bool, len(cands))
	used := 0 // bytes of items, less the "- (none)" lines they replace
	cost := func(c cand) int { return len("- ") + len(c.text) + len("\n") }
	filled := make([]bool, nsec)
	for i, c := range cands {
		if c.explicit {
			keep[i] = true
			used += cost(c)
			if !filled[c.cat] {
				filled[c.cat] = true
				used -= len("- (none)\n")
			}
		}
	}
	for s := 0; s < nsec; s++ {
		if filled[s] {
			continue
		}
		bi := -1
		for i, c := range cands {
			if c.cat == s && (bi < 0 || c.score > cands[bi].score) {
				bi = i
			}
		}
		if bi >= 0 {
			keep[bi] = true
			cands[bi].floor = true
			used += cost(cands[bi]) - len("- (none)\n")
		}
	}
	idx := make([]int, len(cands))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return cands[idx[a]].score > cands[idx[b]].score })
	for _, i := range idx {
		if keep[i] {
			continue
		}
		if c := cost(cands[i]); used+c <= budget {
			keep[i] = true
			used += c
		}
	}
	var out []cand
	for i, c := range cands {
		if keep[i] {
			out = append(out, c)
		}
	}
	return out
}

// summarizeDay is the refined-day rollup: every explicit line, and within
// RefineBudget of the source bytes (skeleton included) the best other lines.
// The day is never longer than its sources (their bytes, frontmatter included):
// when the full skeleton (every section, "- (none)" in the empty ones) would be,
// the empty sections are left out, then the title (compactRender), then
// unmarked lines beyond each section's first. Only a source shorter than a
// section heading and its line can come out shorter than its refined day.
func summarizeDay(title string, sources []Source) string {
	total, limit := 0, 0
	for _, s := range sources {
		total += len(stripFrontmatter(s.Body))
		limit += len(s.Body)
	}
	skeleton := len(render(title, RefinedSections, make([][]string, len(RefinedSections))))
	budget := int(float64(total)*RefineBudget) - skeleton
	picked := selectWithin(refineCandidates(sources), len(RefinedSections), budget)
	for {
		items := make([][]string, len(RefinedSections))
		for _, c := range picked {
			items[c.cat] = append(items[c.cat], c.text)
		}
		out := compactRender(title, RefinedSections, items, limit)
		// Too long for a short source: drop the weakest unmarked line (lowest
		// score, then latest) until it fits; explicit lines and the one line a
		// section without them has always stay (a source of a line or two can
		// thus be shorter than its refined day by a heading).
		drop := -1
		for i, c := range picked {
			if !c.explicit && !c.floor && (drop < 0 || c.score <= picked[drop].score) {
				drop = i
			}
		}
		if len(out) <= limit || limit == 0 || drop < 0 {
			return out
		}
		picked = append(picked[:drop:drop], picked[drop+1:]...)
	}
}

// compactRender renders a rollup within limit bytes if leaving out its empty
// sections, then its title, gets it there; items are never dropped (they are
// lines of the sources, so only a source of a line or two can still be shorter
// than one section heading), and a rollup with no item at all keeps its whole
// skeleton: every rollup holds its sections.
func compactRender(title string, secs []string, items [][]string, limit int) string {
	out := render(title, secs, items)
	if len(out) <= limit || limit == 0 { // no sources (never run by the engine): the skeleton
		return out
	}
	var ks []string
	var ki [][]string
	for i, it := range items {
		if len(it) > 0 {
			ks, ki = append(ks, secs[i]), append(ki, it)
		}
	}
	if len(ks) == 0 {
		// Nothing of the day files under a section (plain lines only): the
		// skeleton, every section "- (none)", even when longer than the day.
		// A rollup must hold its sections (rollup.CheckOutput); a title alone
		// failed that check, and the day stayed due every night.
		return out
	}
	out = render(title, ks, ki)
	if len(out) <= limit {
		return out
	}
	return strings.TrimPrefix(render("", ks, ki), "# \n\n")
}

// render writes a rollup: the title line, then each section with its items, or
// "- (none)" for an empty one.
func render(title string, secs []string, items [][]string) string {
	var b strings.Builder
	b.WriteString("# ")
	b.WriteString(title)
	b.WriteString("\n")
	for i, s := range secs {
		b.WriteString("\n## ")
		b.WriteString(s)
		b.WriteString("\n\n")
		if len(items[i]) == 0 {
			b.WriteString("- (none)\n")
			continue
		}
		for _, it := range items[i] {
			b.WriteString("- ")
			b.WriteString(oneLine(it))
			b.WriteString("\n")
		}
	}
	return b.String()
}

// oneLine keeps an item on one line.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}
