package journal

import "strings"

// Section headings of a refined day (SPEC §6), in the order they are written.
const (
	SecDecisions = "Decisions Made"
	SecBuilt     = "Things Built"
	SecProblems  = "Problems Encountered"
	SecBlockers  = "Blockers"
	SecNext      = "Next Steps"
)

// Section headings of a weekly.
const (
	SecThemes     = "Themes"
	SecTrajectory = "Trajectory"
	SecWorked     = "What Worked"
	SecDidnt      = "What Didn't"
)

// Section headings of a monthly.
const (
	SecArc     = "The Arc"
	SecLessons = "Lessons"
	SecChanges = "Changes in How We Work"
)

// RefinedSections, WeeklySections and MonthlySections are the "## " sections of
// each rollup, in order.
var (
	RefinedSections = []string{SecDecisions, SecBuilt, SecProblems, SecBlockers, SecNext}
	WeeklySections  = []string{SecThemes, SecTrajectory, SecWorked, SecDidnt}
	MonthlySections = []string{SecArc, SecLessons, SecChanges}
)

// SectionsFor returns the sections a rollup of kind k writes.
func SectionsFor(k RollupKind) []string {
	switch k {
	case RefineDay:
		return RefinedSections
	case RollupWeek:
		return WeeklySections
	case RollupMonth:
		return MonthlySections
	}
	return nil
}

// Section is one "## " section of a note body. Offsets are bytes into the body
// given to ParseSections.
type Section struct {
	Title      string // heading text, without "## " and closing #s, trimmed
	Start      int    // offset of the heading line
	HeadingEnd int    // end of the heading line, before its line ending
	End        int    // end of the section: start of the next heading of level 1 or 2, or len(body)
	Items      []Item
}

// Item is one line of content in a section.
type Item struct {
	Text   string // the line without indentation, list marker and trailing space
	Marker string // "-", "*", "+", "1." (the number as written), or "" for a plain line
	Start  int    // offset of the line's first byte
	End    int    // offset after the line's last byte, before its line ending
}

// ParseSections splits a Markdown body (frontmatter already removed) into its
// level-2 ("## ") sections. Each non-blank line of a section is an item: list
// items ("- ", "* ", "+ ", "1. " / "1) ") with the marker taken off, or plain lines.
// Not items: blank lines, deeper headings ("### …"), fenced code blocks (``` or ~~~,
// fences included) and HTML comment lines. A level-1 heading ends the section
// before it and starts none; text before the first "## " belongs to no section.
// Line endings may be LF or CRLF.
func ParseSections(body []byte) []Section {
	var out []Section
	var cur *Section
	eachBodyLine(body, func(l bodyLine) {
		if l.level > 0 {
			if l.level <= 2 && cur != nil {
				cur.End = l.start
				out = append(out, *cur)
				cur = nil
			}
			if l.level == 2 {
				cur = &Section{Title: l.title, Start: l.start, HeadingEnd: l.end}
			}
			return
		}
		if cur == nil {
			return
		}
		marker, text := listMarker(l.trimmed)
		text = strings.TrimRight(text, " \t")
		if text == "" {
			return
		}
		cur.Items = append(cur.Items, Item{Text: text, Marker: marker, Start: l.start, End: l.end})
	})
	if cur != nil {
		cur.End = len(body)
		out = append(out, *cur)
	}
	return out
}

// FindSection returns the first section titled title (case-insensitive), or nil.
func FindSection(secs []Section, title string) *Section {
	for i := range secs {
		if strings.EqualFold(secs[i].Title, title) {
			return &secs[i]
		}
	}
	return nil
}

// eachLine calls fn for every line of b with its byte range, excluding the line
// ending (LF or CRLF).
func eachLine(b []byte, fn func(start, end int, line string)) {
	for start := 0; start < len(b); {
		i := start
		for i < len(b) && b[i] != '\n' {
			i++
		}
		end := i
		if end > start && b[end-1] == '\r' {
			end--
		}
		fn(start, end, string(b[start:end]))
		start = i + 1
	}
}

// bodyLine is a line of a note body that the journal's parsers read: a heading
// (level > 0) or any other line with text.
type bodyLine struct {
	start, end int    // byte range in the body, without the line ending
	text       string // the whole line
	trimmed    string // the line without its indentation
	level      int    // the heading's level (1–6), 0 for a line that is no heading
	title      string // the heading's title
}

// eachBodyLine calls fn for the lines of body that hold Markdown text: lines of
// fenced code blocks (``` or ~~~, fences included), blank lines and HTML
// comment lines are passed over. Refining a raw daily and ParseSections both
// read a body through it, so they agree on what is text.
func eachBodyLine(body []byte, fn func(l bodyLine)) {
	fence := ""
	eachLine(body, func(start, end int, line string) {
		trimmed := strings.TrimLeft(line, " \t")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.TrimSpace(strings.TrimLeft(trimmed, fence[:1])) == "" {
				fence = ""
			}
			return
		}
		if f := fenceOpen(trimmed); f != "" {
			fence = f
			return
		}
		l := bodyLine{start: start, end: end, text: line, trimmed: trimmed}
		l.level, l.title = heading(line)
		if l.level == 0 && (strings.TrimSpace(line) == "" || strings.HasPrefix(trimmed, "<!--")) {
			return
		}
		fn(l)
	})
}

// heading returns the ATX heading level (1–6) and title of line, or 0. Up to three
// spaces of indentation are allowed, as in CommonMark.
func heading(line string) (int, string) {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	n := 0
	for i+n < len(line) && line[i+n] == '#' {
		n++
	}
	if n == 0 || n > 6 {
		return 0, ""
	}
	rest := line[i+n:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return 0, ""
	}
	title := strings.TrimSpace(rest)
	// A closing sequence of #s, preceded by a space, is not part of the title.
	if t := strings.TrimRight(title, "#"); t != title && (t == "" || strings.HasSuffix(t, " ")) {
		title = strings.TrimSpace(t)
	}
	return n, title
}

func fenceOpen(trimmed string) string {
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(trimmed, f) {
			n := 0
			for n < len(trimmed) && trimmed[n] == f[0] {
				n++
			}
			return trimmed[:n]
		}
	}
	return ""
}

// listMarker splits a list marker off an unindented line.
func listMarker(s string) (marker, text string) {
	if len(s) >= 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && (s[1] == ' ' || s[1] == '\t') {
		return s[:1], strings.TrimLeft(s[2:], " \t")
	}
	if len(s) == 1 && (s[0] == '-' || s[0] == '*' || s[0] == '+') {
		return s, ""
	}
	n := 0
	for n < len(s) && n < 9 && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if n > 0 && n+1 < len(s) && (s[n] == '.' || s[n] == ')') && (s[n+1] == ' ' || s[n+1] == '\t') {
		return s[:n+1], strings.TrimLeft(s[n+2:], " \t")
	}
	return "", s
}
