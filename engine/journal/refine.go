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

// RefineBudget is the most of its sources' body bytes a refined day takes, unless
// the items it must keep alone are more (it then says so in a closing line).
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
		"switched", "switch to", "from now on", "going forward", "adopted"}, catDecisions},
	{[]string{"error", "errors", "bug", "bugs", "broke", "broken", "fail", "fails", "failed", "failing", "failure",
		"crash", "crashed", "crashes", "panic", "panics", "regression", "exception", "flaky", "flaked", "leak", "leaks", "leaked", "dies", "died", "hangs", "fixed", "timeout", "timed out"}, catProblems},
	{[]string{"built", "shipped", "implemented", "added", "merged", "deployed", "released", "finished", "completed", "landed", "refactored", "wrote", "rewrote", "committed", "pushed"}, catBuilt},
}

type cand struct {
	cat   int
	text  string // the cleaned line, markers' labels off
	norm  string
	score int
	order int
	// explicit: the writer marked the line as a decision or lesson, blocker,
	// next step, or done or open task item (a marker, a checkbox, or a heading
	// naming one of those sections).
	explicit bool
	full     string   // the line as a refine shows it in full: markup off, cut at maxItemBytes
	compact  string   // its compact form (compactItem)
	tokens   []string // the commit ids and paths it names
	count    int      // how many times the day has it (a repeated error)
}

// must reports whether a refine keeps the line whatever the day's length:
// explicit lines (decisions, blockers, next steps and task items a marker, a
// checkbox or a heading names), every decision, every problem but a fix told
// on its own ("Fixed …"), and every line naming a commit id or a path.
func (c cand) must() bool {
	return c.explicit || c.cat == catDecisions || c.cat == catProblems && !isFix(c.text) || len(c.tokens) > 0
}

// isFix reports whether a problem line tells its fix ("Fixed the fixture …"),
// not an error: kept when it names a commit or path, or when there is room.
func isFix(text string) bool {
	n := normalize(text)
	return strings.HasPrefix(n, "fixed ") || strings.HasPrefix(n, "fix ")
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
	if httpError(text) {
		return catProblems, text, scoreKeyword, false
	}
	n := normalize(keywordText(text))
	for _, r := range keywordCats {
		for _, w := range r.words {
			if hasWord(n, w) && !negated(n, w) {
				return r.cat, text, scoreKeyword, false
			}
		}
	}
	return catNone, "", 0, false
}

// keywordText is a line as its telling words are looked for in: without its
// "quoted" parts (a message, a commit's subject: "Committed 91b4e6d "migrate:
// lock timeout"" is a commit, not a problem) and without identifiers, paths
// and file names (lock_timeout, error_handler.go).
func keywordText(s string) string {
	if strings.Contains(s, "\"") {
		s = maskQuoted(s)
	}
	ws := strings.Fields(s)
	for i, w := range ws {
		if t := strings.Trim(w, ".,;:()[]!?'"); strings.ContainsAny(t, "_./") {
			ws[i] = "x"
		}
	}
	return strings.Join(ws, " ")
}

// httpError reports whether text names an HTTP error status: a 4xx or 5xx
// code followed by its capitalized reason ("502 Bad Gateway", "401
// Unauthorized").
func httpError(text string) bool {
	for i := 0; i+4 < len(text); i++ {
		if (text[i] == '4' || text[i] == '5') && isDigits(text[i+1:i+3]) && text[i+3] == ' ' &&
			text[i+4] >= 'A' && text[i+4] <= 'Z' && (i == 0 || !isWordByte(text[i-1])) {
			return true
		}
	}
	return false
}

// negated reports whether the keyword w is only found denied ("nothing
// blocked", "no errors") or as an adjective ("a fixed 1 s").
func negated(n, w string) bool {
	pre := []string{"nothing ", "not ", "no ", "never ", "without ", "zero "}
	if w == "fixed" {
		pre = append(pre, "a ", "the ")
	}
	if w == "built" && hasWord(n, "built in") && !hasWord(strings.ReplaceAll(n, "built in", ""), w) {
		return true // "built in", "built-in": an adjective
	}
	// Denied when no occurrence is free of a denying word before it.
	return !anyWordAt(n, w, func(j int) bool {
		for _, p := range pre {
			if strings.HasSuffix(n[:j], " "+p) || n[:j] == p {
				return false
			}
		}
		return true
	})
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// rawLine is what the refine files as one line: a heading, a list item with
// its continuation lines joined, or a sentence of a paragraph.
type rawLine struct {
	level int // a heading's level, else 0
	title string
	text  string   // as written, the list marker included, continuation lines joined by a space
	later []string // a list item's sentences after its first
}

// rawLines reads a raw day's body into rawLines. A line that starts no list
// item and no "Name: " turn of a conversation, is no heading and no command
// output, and directly follows (no blank line between) a list item, indented,
// or a paragraph line continues it; a paragraph (lines that start no list
// item) is split into its sentences. Command output and indented code stay
// out, as isOutput says.
func rawLines(body []byte) []rawLine {
	var out []rawLine
	var cur []string
	list := false
	prevEnd := -1
	flush := func() {
		if len(cur) == 0 {
			return
		}
		t := strings.Join(cur, " ")
		cur = nil
		if list {
			ss := sentences(t)
			out = append(out, rawLine{text: t, later: ss[1:]})
			return
		}
		for _, sen := range sentences(t) {
			out = append(out, rawLine{text: sen})
		}
	}
	eachBodyLine(body, func(l bodyLine) {
		gap := string(body[max(prevEnd, 0):l.start])
		adjacent := prevEnd >= 0 && strings.Count(gap, "\n") == 1 && strings.TrimSpace(gap) == ""
		prevEnd = l.end
		if l.level > 0 {
			flush()
			out = append(out, rawLine{level: l.level, title: l.title})
			return
		}
		if isOutput(l.text) {
			flush()
			return
		}
		m, _ := listMarker(l.trimmed)
		_, speaker := speakerOf(l.trimmed)
		indented := l.trimmed != l.text
		if m != "" || speaker || !adjacent || len(cur) == 0 || list && !indented {
			flush()
			list = m != ""
			cur = []string{strings.TrimSpace(l.text)}
			return
		}
		cur = append(cur, strings.TrimSpace(l.text))
	})
	flush()
	return out
}

// sentences splits a paragraph at ". ", "? " and "! " followed by a capital
// letter or a digit.
func sentences(t string) []string {
	var out []string
	start := 0
	for i := 0; i+2 < len(t); i++ {
		if (t[i] == '.' || t[i] == '?' || t[i] == '!') && t[i+1] == ' ' && (t[i+2] >= 'A' && t[i+2] <= 'Z' || t[i+2] >= '0' && t[i+2] <= '9') {
			out = append(out, t[start:i+1])
			start = i + 2
		}
	}
	return append(out, t[start:])
}

// refineCandidates reads raw notes and returns the lines worth keeping, filed
// into sections, deduplicated (a repeated problem counted), and the commit ids
// and paths named on the day's other lines (prose that files under no section).
func refineCandidates(sources []Source) (cands []cand, named []string) {
	order := 0
	seenNamed := map[string]bool{}
	for _, src := range sources {
		lines := rawLines(stripFrontmatter(src.Body))
		var cleaned []string
		for _, l := range lines {
			if l.level == 0 {
				t, _ := cleanLine(l.text)
				cleaned = append(cleaned, stripMarkup(t))
			}
		}
		speakers := daySpeakers(cleaned)
		hcat := catNone
		for _, l := range lines {
			if l.level > 0 {
				if l.level == 1 {
					hcat = catNone
				} else {
					hcat = headingCat(l.title)
				}
				continue
			}
			text, box := cleanLine(l.text)
			line := stripSpeaker(stripMarkup(text), speakers)
			cat, text, score, explicit := fileLine(line, box, hcat)
			if cat == catNone {
				for _, tok := range keyTokens(line) {
					if !seenNamed[tok] {
						seenNamed[tok] = true
						named = append(named, tok)
					}
				}
				continue
			}
			full := withItems(truncate(text, maxItemBytes), text, cat)
			norm := normalize(full)
			if n := len(strings.Fields(norm)); n == 0 || n < 2 && score < scoreMarker {
				continue // one word is not a note ("done", "ok"), unless marked ("[x] deployed")
			}
			cands = append(cands, cand{cat: cat, text: text, norm: norm, score: score, order: order, explicit: explicit,
				full: full, compact: compactItem(text, cat, score), tokens: keyTokens(text), count: 1})
			order++
			// A later sentence of the item that is a decision or a problem of
			// its own ("Deployed to staging. The first request returned 502
			// Bad Gateway …") is an item too.
			for _, sen := range l.later {
				sen = stripSpeaker(stripMarkup(strings.TrimSpace(sen)), speakers)
				c2, t2, s2, _ := fileLine(sen, 0, catNone)
				if c2 == cat || c2 != catDecisions && c2 != catProblems || len(strings.Fields(normalize(t2))) < 2 {
					continue
				}
				cands = append(cands, cand{cat: c2, text: t2, norm: normalize(t2), score: s2, order: order,
					full: withItems(truncate(t2, maxItemBytes), t2, c2), compact: compactItem(t2, c2, s2), tokens: keyTokens(t2), count: 1})
				order++
			}
		}
	}
	return dedupeCands(cands), named
}

// dedupeCands keeps one candidate per normalized text (the best scored, then the
// first), one per problem that differs only in numbers and ids (errorSignature),
// counting the repeats, and drops next steps that were ticked off ([x]) or
// built the same day.
func dedupeCands(cands []cand) []cand {
	key := func(c cand) string {
		if c.cat == catProblems {
			return "p " + errorSignature(c)
		}
		return c.norm
	}
	best := map[string]int{}
	count := map[string]int{}
	for i, c := range cands {
		k := key(c)
		count[k]++
		j, ok := best[k]
		if !ok || c.score > cands[j].score {
			best[k] = i
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
		k := key(c)
		if best[k] != i {
			continue
		}
		if c.cat == catNext && built[c.norm] {
			continue
		}
		if c.cat == catProblems {
			c.count = count[k]
		}
		out = append(out, c)
	}
	return out
}

// unit is one line of a refine: a candidate, or the candidates of one section
// that name the same commit or path first, merged.
type unit struct {
	cat     int
	must    bool
	score   int
	order   int
	compact string
	full    string
	shown   int  // 0: left out, 1: compact, 2: full
	floor   bool // the best line of a section that had no other: kept on a short day
}

func (u unit) text() string {
	if u.shown == 2 {
		return u.full
	}
	return u.compact
}

// units merges the candidates of each section that name the same commit id or
// path first into one line ("hooks/retry.go: backoff with jitter; lint fixed"),
// and adds a repeated problem's count ("(×3)").
func units(cands []cand) []unit {
	var out []unit
	at := map[string]int{} // section and first token → index in out
	for _, c := range cands {
		compact, full := c.compact, c.full
		if c.count > 1 {
			sfx := " (×" + itoa(c.count) + ")"
			compact, full = compact+sfx, full+sfx
		}
		if len(c.tokens) > 0 {
			k := itoa(c.cat) + " " + c.tokens[0]
			if i, ok := at[k]; ok {
				u := &out[i]
				u.must = u.must || c.must()
				// The same thing told again about the same file or commit
				// ("Committed 6e2b1f9 …", "Committed as 6e2b1f9 …": no word
				// the merged line lacks) adds nothing; nor does what is left
				// of a line without its token.
				rest := withoutToken(compact, c.tokens[0])
				if ws := sigWords(rest); len(ws) == 0 || overlap(ws, wordSet(sigWords(u.compact))) == 1 {
					u.score = max(u.score, c.score)
					continue
				}
				u.compact += "; " + rest
				u.full = strings.TrimRight(u.full, ".") + "; " + full
				u.score = max(u.score, c.score)
				continue
			}
			at[k] = len(out)
		}
		out = append(out, unit{cat: c.cat, must: c.must(), score: c.score, order: c.order, compact: compact, full: full})
	}
	return out
}

// withoutToken takes tok out of a compact line merged after another naming it.
func withoutToken(s, tok string) string {
	for _, r := range []struct{ old, new string }{
		{" (" + tok + ")", ""}, {"(" + tok + ", ", "("}, {", " + tok + ")", ")"}, {", " + tok, ""},
		{" in " + tok, ""}, {" to " + tok, ""}, {" of " + tok, ""}, {" at " + tok, ""}, {" from " + tok, ""},
		{" on " + tok, ""}, {tok + ": ", ""}, {tok, ""},
	} {
		if strings.Contains(s, r.old) {
			s = strings.Replace(s, r.old, r.new, 1)
			break
		}
	}
	s = strings.Join(strings.Fields(s), " ")
	return strings.Trim(s, " ,:;")
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// expandOrder is the order in which kept lines are shown in full when the
// bound leaves room: decisions (their why), problems, blockers, next steps,
// things built.
var expandOrder = []int{catDecisions, catProblems, catBlockers, catNext, catBuilt}

// selectUnits decides how each line is shown within bound bytes of items
// (used is what the title, the lead line and the empty skeleton already take):
// every must line compact, whatever it costs; then, each if it still fits, the
// best other line of every section with no line yet (whatever it costs when
// forceFloor: a day too short for its own skeleton), the decisions in full,
// the other lines compact by score and source order, and the rest in full in
// expandOrder.
func selectUnits(us []unit, nsec, used, bound int, forceFloor bool) {
	filled := make([]bool, nsec)
	cost := func(s string) int { return len("- ") + len(s) + len("\n") }
	take := func(u *unit, shown int, force bool) bool {
		c := cost(u.compact)
		if shown == 2 {
			c = cost(u.full)
		}
		if u.shown == 1 {
			c -= cost(u.compact)
		} else if !filled[u.cat] {
			c -= len("- (none)\n")
		}
		if !force && used+c > bound {
			return false
		}
		used += c
		u.shown = shown
		filled[u.cat] = true
		return true
	}
	for i := range us {
		if us[i].must {
			take(&us[i], 1, true)
		}
	}
	for s := 0; s < nsec; s++ {
		if filled[s] {
			continue
		}
		bi := -1
		for i, u := range us {
			if u.cat == s && (bi < 0 || u.score > us[bi].score) {
				bi = i
			}
		}
		if bi >= 0 {
			us[bi].floor = take(&us[bi], 1, forceFloor)
		}
	}
	for i := range us {
		if us[i].cat == catDecisions && us[i].shown == 1 && us[i].full != us[i].compact {
			take(&us[i], 2, false)
		}
	}
	idx := make([]int, len(us))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return us[idx[a]].score > us[idx[b]].score })
	for _, i := range idx {
		if us[i].shown == 0 {
			take(&us[i], 1, false)
		}
	}
	for _, cat := range expandOrder[1:] {
		for i := range us {
			if us[i].cat == cat && us[i].shown == 1 && us[i].full != us[i].compact {
				take(&us[i], 2, false)
			}
		}
	}
}

// summarizeDay is the refined-day rollup. Its size bound is a quarter of the
// sources' body bytes (RefineBudget; frontmatter not counted), the whole
// refine counted. Every must line (cand.must) is kept in compact form, merged
// by the commit or path it names and counted when repeated, and the commit ids
// and paths of the day's other lines are listed after the title ("Also
// named: …"); what room is left shows other lines, then lines in full. When
// the must lines alone do not fit, every one is kept all the same and a closing
// comment line says the refine is over its bound. A day so short that the
// empty sections alone are more than its quarter is bound by its own length
// instead (frontmatter included): the refine is never longer than the day,
// empty sections and then the title left out if need be.
func summarizeDay(title string, sources []Source) string {
	total, limit := 0, 0
	for _, s := range sources {
		total += len(stripFrontmatter(s.Body))
		limit += len(s.Body)
	}
	cands, named := refineCandidates(sources)
	us := units(cands)
	var lead []string
	for _, tok := range named {
		shown := false
		for _, u := range us {
			if strings.Contains(u.compact, tok) {
				shown = true
				break
			}
		}
		if !shown {
			lead = append(lead, tok)
		}
	}
	leadLine := ""
	if len(lead) > 0 {
		leadLine = "Also named: " + strings.Join(lead, ", ")
	}
	skeleton := len(renderLead(title, leadLine, RefinedSections, make([][]string, len(RefinedSections))))
	quarter := int(float64(total) * RefineBudget)
	bound, short := quarter, false
	if len(render(title, RefinedSections, make([][]string, len(RefinedSections)))) > quarter {
		bound, short = limit, true
	}
	itemsOf := func() [][]string {
		items := make([][]string, len(RefinedSections))
		for _, u := range us {
			if u.shown > 0 {
				items[u.cat] = append(items[u.cat], u.text())
			}
		}
		return items
	}
	if short {
		// Room counted without the skeleton, which compactRender shortens;
		// then, while the day is still longer than its source, the last line
		// shown in full is shown compact, then the last other line goes.
		selectUnits(us, len(RefinedSections), len(renderLead(title, leadLine, nil, nil)), bound, true)
		for {
			out := compactRender(title, leadLine, RefinedSections, itemsOf(), limit)
			if len(out) <= limit || !shrink(us) {
				return out
			}
		}
	}
	selectUnits(us, len(RefinedSections), skeleton, bound, false)
	items := itemsOf()
	out := renderLead(title, leadLine, RefinedSections, items)
	if len(out) > quarter {
		// Over: the empty sections go first (a section left out has nothing).
		var ks []string
		var ki [][]string
		for i, it := range items {
			if len(it) > 0 {
				ks, ki = append(ks, RefinedSections[i]), append(ki, it)
			}
		}
		if len(ks) > 0 {
			out = renderLead(title, leadLine, ks, ki)
		}
	}
	if len(out) > quarter {
		out += "\n" + overBound(len(out), quarter) + "\n"
	}
	return out
}

// shrink takes one step back from selectUnits: the last line shown in full
// is shown compact, else the last line that is neither a must nor a floor is
// left out. It reports whether there was a step to take.
func shrink(us []unit) bool {
	for i := len(us) - 1; i >= 0; i-- {
		if us[i].shown == 2 {
			us[i].shown = 1
			return true
		}
	}
	for i := len(us) - 1; i >= 0; i-- {
		if us[i].shown == 1 && !us[i].must && !us[i].floor {
			us[i].shown = 0
			return true
		}
	}
	return false
}

// overBound is the closing line of a refine whose must lines alone exceed its
// bound: a comment, so no section takes it for an item.
func overBound(n, quarter int) string {
	return "<!-- over its bound: " + itoa(n) + " bytes, a quarter of the day is " + itoa(quarter) + "; every item kept -->"
}

// compactRender renders a rollup within limit bytes if leaving out its empty
// sections, then its title, gets it there; items are never dropped (they are
// lines of the sources, so only a source of a line or two can still be shorter
// than one section heading), and a rollup with no item at all keeps its whole
// skeleton: every rollup holds its sections.
func compactRender(title, lead string, secs []string, items [][]string, limit int) string {
	out := renderLead(title, lead, secs, items)
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
	out = renderLead(title, lead, ks, ki)
	if len(out) <= limit {
		return out
	}
	return strings.TrimPrefix(renderLead("", lead, ks, ki), "# \n\n")
}

// render writes a rollup: the title line, then each section with its items, or
// "- (none)" for an empty one.
func render(title string, secs []string, items [][]string) string {
	return renderLead(title, "", secs, items)
}

// renderLead is render with a paragraph between the title and the first
// section (a refine's "Also named: …"), in no section.
func renderLead(title, lead string, secs []string, items [][]string) string {
	var b strings.Builder
	b.WriteString("# ")
	b.WriteString(title)
	b.WriteString("\n")
	if lead != "" {
		b.WriteString("\n")
		b.WriteString(lead)
		b.WriteString("\n")
	}
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
