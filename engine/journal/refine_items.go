package journal

import (
	"strings"
	"sync"
	"unicode"
)

// The items of a raw day a refine never drops: its commit ids and file paths
// (keyTokens), and every line filed as a decision or a problem (see mustKeep).

// pathExts are the extensions that make a bare file name ("config.yaml") a
// path; a word with a slash needs an extension of letters and digits, not one
// of these.
var pathExts = sync.OnceValue(func() map[string]bool {
	return wordSet(strings.Fields(`go mod sum md markdown txt txtar json jsonl yaml yml toml ini cfg conf env
	lock log csv tsv sql sh bash zsh fish py pyi ipynb rs c h cc cpp hpp java kt rb js mjs cjs ts tsx jsx
	css scss html vue svelte lua vim el nix tf proto graphql service timer socket xml pdf png svg db sqlite`))
})

// keyTokens returns the commit ids and file paths that s names, in order of
// appearance, without repeats. A token is a run of characters between
// blanks, quotes, brackets, commas and semicolons, with trailing punctuation
// and a ":LINE[:COL]" suffix taken off.
func keyTokens(s string) []string {
	if !strings.ContainsAny(s, "./") && !hasHexRun(s) {
		return nil // no path without a dot or a slash, no commit without 7 hex digits
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool {
		switch r {
		case '`', '"', '\'', '(', ')', '[', ']', '{', '}', '<', '>', ',', ';', '|', '*':
			return true
		}
		return unicode.IsSpace(r)
	}) {
		tok := strings.TrimRight(f, ".:!?")
		tok = strings.TrimLeft(tok, ":")
		tok = trimLineNumber(tok)
		if tok == "" || seen[tok] || !(isCommitID(tok) || isPath(tok)) {
			continue
		}
		seen[tok] = true
		out = append(out, tok)
	}
	return out
}

// hasHexRun reports whether s holds 7 lower-case hex digits in a row.
func hasHexRun(s string) bool {
	n := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= '0' && c <= '9' || c >= 'a' && c <= 'f' {
			if n++; n == 7 {
				return true
			}
		} else {
			n = 0
		}
	}
	return false
}

// trimLineNumber takes a ":12" or ":12:5" off a path ("server.go:88").
func trimLineNumber(tok string) string {
	for k := 0; k < 2; k++ {
		i := strings.LastIndexByte(tok, ':')
		if i <= 0 || i == len(tok)-1 || !isDigits(tok[i+1:]) {
			break
		}
		tok = tok[:i]
	}
	return tok
}

// isCommitID: 7 to 40 lower-case hex digits with at least one letter and one
// digit (an abbreviated or full git object id; "1234567" is a number, "deadbee"
// a word).
func isCommitID(tok string) bool {
	if len(tok) < 7 || len(tok) > 40 {
		return false
	}
	letter, digit := false, false
	for i := 0; i < len(tok); i++ {
		switch c := tok[i]; {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'f':
			letter = true
		default:
			return false
		}
	}
	return letter && digit
}

// isPath: a relative or absolute file path or file name. With a slash: every
// part made of letters, digits, ".", "_", "-", "~", "@", "+", at least one
// letter, no "://" (a URL is no file), and a file extension on the last part,
// or two slashes or more ("engine/store/", "/etc/hosts"), or a start of "./",
// "../" or "~/" ("/healthz" alone is a route or a bot's command). Without a slash: a name with an extension of pathExts ("config.yaml",
// ".env").
func isPath(tok string) bool {
	if strings.Contains(tok, "://") || strings.HasPrefix(tok, "//") {
		return false
	}
	letter := false
	for _, r := range tok {
		switch {
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			letter = true
		case r >= '0' && r <= '9' || strings.ContainsRune("._-~@+/", r):
		default:
			return false
		}
	}
	if !letter {
		return false
	}
	last := tok[strings.LastIndexByte(tok, '/')+1:]
	dot := strings.LastIndexByte(last, '.')
	ext := ""
	if dot >= 0 {
		ext = last[dot+1:]
	}
	if !strings.Contains(tok, "/") {
		return dot >= 0 && pathExts()[strings.ToLower(ext)] && (dot > 0 || len(last) > 2)
	}
	if strings.Contains(tok, "//") || strings.HasPrefix(tok, "@") {
		return false
	}
	hasExt := dot > 0 && ext != "" && len(ext) <= 8 && !isDigits(ext) && isWordish(ext)
	if strings.HasPrefix(tok, "/") && strings.Count(tok, "/") == 1 {
		return hasExt // "/start", "/healthz": a command or a route, "/etc/hosts" a path
	}
	return hasExt || strings.Count(tok, "/") >= 2 || strings.HasPrefix(tok, "./") || strings.HasPrefix(tok, "../") || strings.HasPrefix(tok, "~/")
}

func isWordish(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isWordByte(s[i]) {
			return false
		}
	}
	return s != ""
}

// stripMarkup takes inline Markdown emphasis and code marks off a line: the
// words stay, the "`", "**" and "__" go; a code span of several words (a
// message: `database is locked`) becomes a "quoted" one.
func stripMarkup(s string) string {
	if !strings.ContainsAny(s, "`*_") {
		return s
	}
	if strings.Count(s, "`") >= 2 {
		var b strings.Builder
		for {
			i := strings.IndexByte(s, '`')
			if i < 0 {
				break
			}
			j := strings.IndexByte(s[i+1:], '`')
			if j < 0 {
				break
			}
			span := s[i+1 : i+1+j]
			b.WriteString(s[:i])
			if strings.Contains(span, " ") && !strings.Contains(span, `"`) {
				b.WriteString(`"` + span + `"`)
			} else {
				b.WriteString(span)
			}
			s = s[i+j+2:]
		}
		b.WriteString(s)
		s = b.String()
	}
	s = strings.ReplaceAll(s, "`", "")
	s = strings.ReplaceAll(s, "**", "")
	return strings.ReplaceAll(s, "__", "")
}

// speakerWords are line prefixes ("user: …", "Note: …") that name who speaks
// or what kind of aside follows, not what the line is about.
var speakerWords = sync.OnceValue(func() map[string]bool {
	return wordSet(strings.Fields(`user assistant agent me human ai claude codex gpt gemini bot system note notes
	update fyi ps aside thought thoughts me myself`))
})

// daySpeakers returns the capitalized words that lead, as "Name:", at least
// two lines of the day (a chat's speakers: "Larry:", "Dan:"), besides the
// marker words.
func daySpeakers(lines []string) map[string]bool {
	count := map[string]int{}
	for _, l := range lines {
		if w, ok := speakerOf(l); ok && w[0] >= 'A' && w[0] <= 'Z' {
			count[w]++
		}
	}
	out := map[string]bool{}
	for w, n := range count {
		if n >= 2 && !isMarkerWord(w) {
			out[w] = true
		}
	}
	return out
}

// speakerOf returns the word of a "Word:" prefix of a cleaned line.
func speakerOf(l string) (string, bool) {
	i := strings.IndexByte(l, ':')
	if i < 2 || i > 20 || i+1 >= len(l) || l[i+1] != ' ' {
		return "", false
	}
	w := l[:i]
	for j := 0; j < len(w); j++ {
		if c := w[j]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return "", false
		}
	}
	return w, true
}

func isMarkerWord(w string) bool {
	lw := strings.ToLower(w) + ":"
	for _, m := range prefixMarkers {
		if m.marker == lw || strings.TrimSuffix(m.marker, ":") == strings.TrimSuffix(lw, ":") {
			return true
		}
	}
	switch strings.ToLower(w) {
	case "fix", "fixes", "cause", "why", "because", "result", "outcome", "commit", "warning", "warn", "failure", "fail":
		return true
	}
	return false
}

// stripSpeaker takes a speaker's "Name: " off a cleaned line: the day's
// speakers (daySpeakers) and speakerWords.
func stripSpeaker(l string, speakers map[string]bool) string {
	w, ok := speakerOf(l)
	if !ok || !(speakers[w] || speakerWords()[strings.ToLower(w)]) {
		return l
	}
	return strings.TrimSpace(l[len(w)+1:])
}

// fillerLeads are openings that say nothing ("Ok so", "Then", "Turns out"),
// taken off a line's start, repeatedly, case-insensitively.
var fillerLeads = []string{"ok so ", "okay so ", "ok, ", "okay, ", "ok ", "okay ", "so ", "so, ", "then ", "then, ",
	"also ", "also, ", "now ", "now, ", "finally ", "finally, ", "anyway ", "anyway, ", "i think ", "basically ",
	"turns out ", "it turns out ", "looks like ", "it looks like ", "apparently ", "and ", "well, "}

// fillerWords are words (and pairs) taken out anywhere in a compact item.
var fillerWords = [][]string{{"just"}, {"basically"}, {"actually"}, {"really"}, {"simply"}, {"quite"},
	{"pretty", "much"}, {"kind", "of"}, {"sort", "of"}, {"i", "think"}, {"i", "guess"}}

// dropFiller takes fillerWords out of s and joins its words with one space.
func dropFiller(s string) string {
	ws := strings.Fields(s)
	out := ws[:0:0]
next:
	for i := 0; i < len(ws); i++ {
		for _, f := range fillerWords {
			if i+len(f) <= len(ws) {
				m := true
				for k, w := range f {
					if strings.ToLower(ws[i+k]) != w {
						m = false
						break
					}
				}
				if m {
					i += len(f) - 1
					continue next
				}
			}
		}
		out = append(out, ws[i])
	}
	return strings.Join(out, " ")
}

// clauseSeps end a line's first clause: what follows is its explanation.
var clauseSeps = []string{". ", "; ", ", and ", ", in ", " — ", " – ", " -- ", ", because ", " because ", ", so ", " so that ", ", but ",
	", which ", " which ", " while ", ", as ", ", since ", ", and then ", " and then ", ", then "}

// splitClauses splits a line at clauseSeps (and, for a thing built or a line
// filed by a word, at every comma; for the latter at ": " too), with the
// offset of each clause; a separator within a line's first minClause bytes,
// or inside "double quotes" (a message, a commit's subject), does not count.
func splitClauses(s string, cat int, byWord bool) (clauses []string, starts []int) {
	seps := clauseSeps
	if cat == catBuilt || byWord {
		seps = append(seps[:len(seps):len(seps)], ", ")
	}
	if byWord {
		seps = append(seps, ": ")
	}
	off := 0
	for {
		low := maskQuoted(strings.ToLower(s))
		cut, n := len(s), 0
		for _, sep := range seps {
			if i := strings.Index(low[min(minClause, len(low)):], sep); i >= 0 && i+minClause < cut {
				cut, n = i+minClause, len(sep)
			}
		}
		starts = append(starts, off)
		if cut == len(s) {
			return append(clauses, s), starts
		}
		clauses = append(clauses, s[:cut])
		s = s[cut+n:]
		off += cut + n
	}
}

// maskEnclosed is maskQuoted, and every byte in parentheses made "x" too.
func maskEnclosed(s string) string {
	b := []byte(maskQuoted(s))
	depth := 0
	for i, c := range b {
		switch {
		case c == '(':
			depth++
		case c == ')' && depth > 0:
			depth--
		case depth > 0:
			b[i] = 'x'
		}
	}
	return string(b)
}

// maskQuoted returns s with every byte between double quotes made "x".
func maskQuoted(s string) string {
	if !strings.Contains(s, "\"") {
		return s
	}
	b := []byte(s)
	in := false
	for i, c := range b {
		switch {
		case c == '"':
			in = !in
		case in:
			b[i] = 'x'
		}
	}
	return string(b)
}

// wordClause returns the clause of s (split by splitClauses, commas and ": "
// included) that holds a word filing it under cat, and s from that clause on.
func wordClause(s string, cat int) (clause, from string, ok bool) {
	clauses, starts := splitClauses(s, cat, true)
	for i, c := range clauses {
		if n := normalize(keywordText(c)); strings.Contains(normalize(c), " ") && (hasCatWord(n, cat) || cat == catProblems && httpError(c)) {
			return c, strings.TrimLeft(s[starts[i]:], " "), true
		}
	}
	return "", "", false
}

// minClause is the shortest first clause: "Ok, so …" is not split after "Ok".
const minClause = 5

// hasCatWord reports whether the normalized n holds one of the keywords that
// file a line under cat.
func hasCatWord(n string, cat int) bool {
	for _, r := range keywordCats {
		if r.cat != cat {
			continue
		}
		for _, w := range r.words {
			if hasWord(n, w) && !negated(n, w) {
				return true
			}
		}
	}
	return false
}

// maxHeadBytes caps an item's compact form before the tokens it names.
const maxHeadBytes = 56

// maxDecisionBytes caps a decision's or lesson's first clause: a lesson goes on
// to the weekly, the monthly and MEMORY.md as the refine words it.
const maxDecisionBytes = 80

// compactItem is a line's compact form: filler, a marker's label and markup
// off, its first clause (up to maxHeadBytes, cut at a word), long asides in
// parentheses that name no key token dropped, then every commit id and path
// of the whole line that the clause does not hold, in parentheses.
func compactItem(text string, cat, score int) string {
	s := stripMarkup(text)
	// A line filed by a word anywhere is shortened to the clause holding
	// that word (a problem: from that clause on, its message follows); a
	// marked line (or one under a heading) to its first clause.
	if score == scoreKeyword {
		if c, from, ok := wordClause(s, cat); ok {
			s = c
			if cat == catProblems {
				s = from
			}
		}
	}
	clauses, _ := splitClauses(s, cat, false)
	s = trimLeads(clauses[0])
	low := strings.ToLower(s)
	for _, p := range []string{"we decided to ", "we decided that ", "we decided ", "decided to ", "decided that ", "decided: ", "decided "} {
		if cat == catDecisions && strings.HasPrefix(low, p) {
			s = s[len(p):]
			break
		}
	}
	for _, p := range []string{"error: ", "bug: ", "problem: ", "issue: "} {
		if cat == catProblems && strings.HasPrefix(strings.ToLower(s), p) {
			s = s[len(p):]
			break
		}
	}
	head := dropAsides(s)
	head = dropFiller(head)
	limit := maxHeadBytes
	switch {
	case cat == catDecisions:
		limit = maxDecisionBytes
	case cat == catProblems && !strings.HasPrefix(strings.ToLower(s), "fixed"):
		limit += 20 // an error message is the item
	}
	// A clause too long is cut at its first comma past three words and half
	// the limit, if any, before it is cut at a word.
	if len(head) > limit {
		if i := strings.Index(maskEnclosed(head[minClause:]), ", "); i >= 0 && len(strings.Fields(head[:minClause+i])) >= 3 && minClause+i >= limit/2 {
			head = head[:minClause+i]
		}
	}
	// Never cut a commit id or a path: the cut moves before it (it is
	// appended whole).
	if len(head) > limit {
		for _, tok := range keyTokens(head) {
			if i := strings.Index(head, tok); i < limit && i+len(tok) > limit {
				limit = max(i-1+len("…"), minClause+len("…"))
			}
		}
	}
	// Never cut a quoted message or commit subject: the cut moves past it.
	if len(head) > limit && strings.Count(head[:limit], "\"")%2 == 1 {
		if j := strings.IndexByte(head[limit:], '"'); j >= 0 && j <= 60 {
			end := limit + j + 1
			if rest := strings.TrimSpace(head[end:]); rest != "" && rest != "." {
				return withItems(head[:end]+"…", text, cat)
			}
			return withItems(strings.TrimRight(head, " ."), text, cat)
		}
	}
	return withItems(cutAtWord(head, limit), text, cat)
}

// cutAtWord is truncate for a compact item: cut at a word, without the
// function words the cut left dangling ("… looked at the…" is "… looked…").
func cutAtWord(s string, max int) string {
	t := truncate(s, max)
	if t == s {
		return strings.TrimRight(s, " .,:;-")
	}
	ws := strings.Fields(strings.TrimSuffix(t, "…"))
	for len(ws) > 3 && stopwords()[strings.ToLower(strings.Trim(ws[len(ws)-1], ".,:;-"))] {
		ws = ws[:len(ws)-1]
	}
	return strings.TrimRight(strings.Join(ws, " "), " .,:;-") + "…"
}

// withItems appends to a shortened line (head) the items of its whole line
// (text) that it lost, in parentheses: every commit id and path and, for a
// problem, every quoted message.
func withItems(head, text string, cat int) string {
	var extra []string
	if cat == catProblems {
		for _, q := range quoted(text) {
			if !strings.Contains(head, q) {
				extra = append(extra, `"`+q+`"`)
			}
		}
	}
	for _, tok := range keyTokens(text) {
		if !strings.Contains(head, tok) {
			extra = append(extra, tok)
		}
	}
	if len(extra) > 0 {
		head += " (" + strings.Join(extra, ", ") + ")"
	}
	return head
}

func trimLeads(s string) string {
	for changed := true; changed; {
		changed = false
		low := strings.ToLower(s)
		for _, p := range fillerLeads {
			if strings.HasPrefix(low, p) && len(s) > len(p)+3 {
				s = strings.TrimLeft(s[len(p):], " ,")
				changed = true
				break
			}
		}
	}
	return s
}

// maxAside is the longest parenthesized aside a compact item keeps whatever
// it says ("(admin commands)").
const maxAside = 24

// dropAsides removes parenthesized asides (nested ones included) longer than
// maxAside that name no key token.
func dropAsides(s string) string {
	for from := 0; ; {
		i := strings.IndexByte(s[from:], '(')
		if i < 0 {
			return s
		}
		i += from
		j, depth := i, 0
		for ; j < len(s); j++ {
			if s[j] == '(' {
				depth++
			} else if s[j] == ')' {
				depth--
				if depth == 0 {
					break
				}
			}
		}
		if j == len(s) {
			return s
		}
		if j+1-i <= maxAside || len(keyTokens(s[i:j+1])) > 0 {
			from = j + 1
			continue
		}
		pre := strings.TrimRight(s[:i], " ")
		s = pre + s[j+1:]
		from = len(pre)
	}
}

// errorSignature is what makes two problems the same error: their compact
// text (for a line filed by a word, the clause with that word) as its
// significant words, without numbers, commit ids and words of repetition
// ("again", "a third time"): the fetcher failed on shard 3, on shard 7, and
// again: one error, counted.
func errorSignature(c cand) string {
	s := c.compact
	if c.score == scoreKeyword {
		if cl, _, ok := wordClause(stripMarkup(c.text), c.cat); ok {
			s = cl
		}
	}
	var ws []string
	for _, w := range sigWords(s) {
		if isCommitID(w) || repeatWords()[w] {
			continue
		}
		ws = append(ws, w)
	}
	return strings.Join(ws, " ")
}

// repeatWords say that something happened again, not what happened.
var repeatWords = sync.OnceValue(func() map[string]bool {
	return wordSet(strings.Fields(`again still once twice thrice third fourth fifth time another same more`))
})

// quoted returns the "double-quoted" parts of s of two words or more (an
// error's message), up to 80 bytes each.
func quoted(s string) []string {
	var out []string
	for {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(s[i+1:], '"')
		if j < 0 {
			return out
		}
		if q := s[i+1 : i+1+j]; strings.Contains(q, " ") && len(q) <= 80 {
			out = append(out, q)
		}
		s = s[i+j+2:]
	}
}
