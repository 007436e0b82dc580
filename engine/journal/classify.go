package journal

import (
	"fmt"
	"strings"
)

// Kind is what a file of the journal layer is.
type Kind int

// The kinds of journal files. Other is a file that is not part of the journal's
// structure (notes.md at the root, anything in a folder the journal does not own);
// Invalid is a file in a journal place whose name breaks the rules (Classify then
// also returns a Problem).
const (
	Other Kind = iota
	Daily
	Refined
	Weekly
	Monthly
	LongTerm
	Sticky
	Invalid
)

var kindNames = [...]string{"other", "daily", "refined", "weekly", "monthly", "long-term", "sticky", "invalid"}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// The folders and names the journal owns, relative to the layer root.
const (
	RefinedDir   = "refined"
	WeeklyDir    = "weekly"
	MonthlyDir   = "monthly"
	StickyDir    = "sticky-notes"
	MemoryFile   = "MEMORY.md"
	noteExt      = ".md"
	noteExtUpper = ".MD"
)

// File is a classified journal path. Day is set for Daily and Refined, Week for
// Weekly, Month for Monthly.
type File struct {
	Rel   string
	Kind  Kind
	Day   Day
	Week  Week
	Month Month
}

// Problem codes. They are stable: diagnostics and tests match on them.
const (
	// CodeImpossibleDate: a YYYY-MM-DD name for a date that does not exist.
	CodeImpossibleDate = "journal/impossible-date"
	// CodeNoSuchWeek: a YYYY-Www name for week 00, or 53 in a 52-week year.
	CodeNoSuchWeek = "journal/no-such-week"
	// CodeNoSuchMonth: a YYYY-MM name for month 00 or 13 and above.
	CodeNoSuchMonth = "journal/no-such-month"
	// CodeWrongFolder: a well-formed period name in the folder of another kind.
	CodeWrongFolder = "journal/wrong-folder"
	// CodeMisnamed: almost the right name (lower-case w, missing zero padding,
	// memory.md); Suggest holds the right one.
	CodeMisnamed = "journal/misnamed"
	// CodeUnknownName: a file in refined/, weekly/ or monthly/ that is not a period.
	CodeUnknownName = "journal/unknown-name"
)

// Problem is a misnamed journal file: a stable Code, a message for a person, and
// when there is an obvious fix, Suggest, the path the file should have.
type Problem struct {
	Code    string
	Message string
	Suggest string
}

func (p *Problem) Error() string { return p.Message }

// shape is what a file's base name (without .md) looks like.
type shape int

const (
	shapeNone  shape = iota
	shapeDay         // dddd-dd-dd
	shapeWeek        // dddd-Wdd
	shapeMonth       // dddd-dd
	shapeLoose       // dddd-d-d, dddd-wdd, dddd-d: a period with sloppy padding or case
)

// nameShape inspects a base name. For shapeLoose, fixed is the canonical name when
// the loose one denotes a valid period, and kind says which period it is.
func nameShape(name string) (s shape, fixed string, fixedKind shape) {
	if len(name) < 6 || name[4] != '-' {
		return shapeNone, "", 0
	}
	if _, ok := digits(name[:4]); !ok {
		return shapeNone, "", 0
	}
	rest := name[5:]
	if len(rest) == 3 && rest[0] == 'W' && isDigits(rest[1:]) {
		return shapeWeek, "", 0
	}
	if len(rest) == 2 && isDigits(rest) {
		return shapeMonth, "", 0
	}
	if len(rest) == 5 && rest[2] == '-' && isDigits(rest[:2]) && isDigits(rest[3:]) {
		return shapeDay, "", 0
	}
	// Loose forms.
	if (rest[0] == 'w' || rest[0] == 'W') && len(rest) >= 2 && len(rest) <= 3 && isDigits(rest[1:]) {
		n, _ := digits(rest[1:])
		return shapeLoose, fmt.Sprintf("%s-W%02d", name[:4], n), shapeWeek
	}
	if len(rest) == 1 && isDigits(rest) {
		n, _ := digits(rest)
		return shapeLoose, fmt.Sprintf("%s-%02d", name[:4], n), shapeMonth
	}
	if i := strings.IndexByte(rest, '-'); i >= 1 && i <= 2 && len(rest)-i-1 >= 1 && len(rest)-i-1 <= 2 &&
		isDigits(rest[:i]) && isDigits(rest[i+1:]) {
		m, _ := digits(rest[:i])
		d, _ := digits(rest[i+1:])
		return shapeLoose, fmt.Sprintf("%s-%02d-%02d", name[:4], m, d), shapeDay
	}
	return shapeNone, "", 0
}

func isDigits(s string) bool {
	_, ok := digits(s)
	return ok
}

// Classify says what a path of the journal layer is. rel is slash-separated and
// relative to the layer root ("2026-11-30.md", "weekly/2026-W48.md").
//
// Rules:
//   - YYYY-MM-DD.md at the root is a Daily; refined/YYYY-MM-DD.md a Refined;
//     weekly/YYYY-Www.md a Weekly; monthly/YYYY-MM.md a Monthly; MEMORY.md a
//     LongTerm; any .md under sticky-notes/ (nested folders too) a Sticky.
//   - A period name that does not exist (2026-02-30, 2026-W53 in a short year,
//     W00, month 13) is a Problem wherever it is.
//   - A valid period name in the wrong place (a week at the root or in refined/, a
//     day in weekly/ or monthly/, a month anywhere but monthly/) is a Problem
//     (CodeWrongFolder) suggesting the right place.
//   - Sloppy names (2026-w48, 2026-1-5, memory.md) are CodeMisnamed with a fix.
//   - In refined/, weekly/ and monthly/ every .md must be a period of that folder's
//     kind directly inside it; anything else is CodeUnknownName.
//   - Any other .md at the root ("notes.md") or in another folder is Kind Other
//     with no problem: the layer may hold notes of its own beside the journal.
//   - Files that are not .md, and names starting with "." anywhere in the path,
//     are not journal entries at all: Kind Other, no problem.
//
// When a Problem is returned the File has Kind Invalid.
func Classify(rel string) (File, *Problem) {
	f := File{Rel: rel}
	if rel == "" || strings.HasPrefix(rel, "/") {
		return f, nil
	}
	parts := strings.Split(rel, "/")
	for _, p := range parts {
		if p == "" || strings.HasPrefix(p, ".") {
			return f, nil
		}
	}
	base := parts[len(parts)-1]
	if !strings.HasSuffix(base, noteExt) {
		if strings.HasSuffix(base, noteExtUpper) || strings.HasSuffix(strings.ToLower(base), noteExt) {
			// An upper-case extension in a journal place is a misnamed note.
			if isJournalPlace(parts) {
				fixed := strings.Join(append(parts[:len(parts)-1:len(parts)-1], base[:len(base)-3]+noteExt), "/")
				if rel2, _ := Classify(fixed); rel2.Kind != Other && rel2.Kind != Invalid {
					return invalid(f, CodeMisnamed, fmt.Sprintf("%s: journal notes end in .md", rel), fixed)
				}
			}
		}
		return f, nil
	}
	name := strings.TrimSuffix(base, noteExt)

	if len(parts) == 1 {
		return classifyRoot(f, name)
	}
	dir := parts[0]
	switch dir {
	case StickyDir:
		f.Kind = Sticky
		return f, nil
	case RefinedDir, WeeklyDir, MonthlyDir:
	default:
		return f, nil
	}
	if len(parts) > 2 {
		return invalid(f, CodeUnknownName,
			fmt.Sprintf("%s: %s/ holds %s notes directly, not in subfolders", rel, dir, folderWants(dir)), "")
	}
	return classifyPeriodDir(f, dir, name)
}

func isJournalPlace(parts []string) bool {
	if len(parts) == 1 {
		return true
	}
	switch parts[0] {
	case RefinedDir, WeeklyDir, MonthlyDir:
		return len(parts) == 2
	}
	return false
}

func folderWants(dir string) string {
	switch dir {
	case RefinedDir:
		return "refined daily (YYYY-MM-DD.md)"
	case WeeklyDir:
		return "weekly (YYYY-Www.md)"
	case MonthlyDir:
		return "monthly (YYYY-MM.md)"
	}
	return ""
}

func invalid(f File, code, msg, suggest string) (File, *Problem) {
	f.Kind = Invalid
	f.Day, f.Week, f.Month = Day{}, Week{}, Month{}
	return f, &Problem{Code: code, Message: msg, Suggest: suggest}
}

// checkName validates a period-shaped name; it fills f and returns a problem for
// a period that does not exist.
func checkName(f *File, s shape, name string) *Problem {
	switch s {
	case shapeDay:
		d, err := ParseDay(name)
		if err != nil {
			return &Problem{Code: CodeImpossibleDate, Message: fmt.Sprintf("%s: %s is not a date that exists", f.Rel, name)}
		}
		f.Day = d
	case shapeWeek:
		w, err := ParseWeek(name)
		if err != nil {
			y, _ := digits(name[:4])
			return &Problem{Code: CodeNoSuchWeek, Message: fmt.Sprintf("%s: week %s does not exist (ISO year %04d has weeks 01–%02d)", f.Rel, name, y, weeksInYearSafe(y))}
		}
		f.Week = w
	case shapeMonth:
		m, err := ParseMonth(name)
		if err != nil {
			return &Problem{Code: CodeNoSuchMonth, Message: fmt.Sprintf("%s: month %s does not exist (months are 01–12)", f.Rel, name)}
		}
		f.Month = m
	}
	return nil
}

func classifyRoot(f File, name string) (File, *Problem) {
	if name+noteExt == MemoryFile {
		f.Kind = LongTerm
		return f, nil
	}
	if strings.EqualFold(name+noteExt, MemoryFile) {
		return invalid(f, CodeMisnamed, fmt.Sprintf("%s: long-term memory is spelled %s", f.Rel, MemoryFile), MemoryFile)
	}
	s, fixed, fixedKind := nameShape(name)
	switch s {
	case shapeNone:
		return f, nil
	case shapeLoose:
		return looseProblem(f, fixed, fixedKind, "")
	}
	if p := checkName(&f, s, name); p != nil {
		f2, _ := invalid(f, "", "", "")
		return f2, p
	}
	switch s {
	case shapeDay:
		f.Kind = Daily
		return f, nil
	case shapeWeek:
		return invalid(f, CodeWrongFolder, fmt.Sprintf("%s: a weekly summary belongs in %s/", f.Rel, WeeklyDir), WeeklyDir+"/"+name+noteExt)
	default: // shapeMonth
		return invalid(f, CodeWrongFolder, fmt.Sprintf("%s: a monthly overview belongs in %s/", f.Rel, MonthlyDir), MonthlyDir+"/"+name+noteExt)
	}
}

// placeFor is where a period of shape s belongs. A day found outside the root or
// refined/ could be either; it is suggested for refined/ when it came from a
// summary folder, since a misplaced summary is the likelier mistake.
func placeFor(s shape, name string) string {
	switch s {
	case shapeDay:
		return RefinedDir + "/" + name + noteExt
	case shapeWeek:
		return WeeklyDir + "/" + name + noteExt
	case shapeMonth:
		return MonthlyDir + "/" + name + noteExt
	}
	return ""
}

func looseProblem(f File, fixed string, fixedKind shape, dir string) (File, *Problem) {
	probe := File{Rel: f.Rel}
	if p := checkName(&probe, fixedKind, fixed); p != nil {
		f2, _ := invalid(f, "", "", "")
		return f2, p
	}
	var suggest string
	switch {
	case fixedKind == shapeDay && dir == "":
		suggest = fixed + noteExt
	case fixedKind == shapeDay && dir == RefinedDir:
		suggest = RefinedDir + "/" + fixed + noteExt
	default:
		suggest = placeFor(fixedKind, fixed)
	}
	return invalid(f, CodeMisnamed, fmt.Sprintf("%s: journal names are zero-padded with a capital W: %s", f.Rel, suggest), suggest)
}

func classifyPeriodDir(f File, dir, name string) (File, *Problem) {
	s, fixed, fixedKind := nameShape(name)
	want := map[string]shape{RefinedDir: shapeDay, WeeklyDir: shapeWeek, MonthlyDir: shapeMonth}[dir]
	switch s {
	case shapeNone:
		return invalid(f, CodeUnknownName,
			fmt.Sprintf("%s: %s/ holds only %s notes", f.Rel, dir, folderWants(dir)), "")
	case shapeLoose:
		return looseProblem(f, fixed, fixedKind, dir)
	}
	if p := checkName(&f, s, name); p != nil {
		f2, _ := invalid(f, "", "", "")
		return f2, p
	}
	if s != want {
		what := map[shape]string{shapeDay: "a day", shapeWeek: "a week", shapeMonth: "a month"}[s]
		suggest := placeFor(s, name)
		msg := fmt.Sprintf("%s: %s in %s/, which holds only %s notes; it belongs at %s", f.Rel, what, dir, folderWants(dir), suggest)
		if s == shapeDay {
			msg = fmt.Sprintf("%s: a day in %s/, which holds only %s notes; a refined day belongs at %s, a raw daily at %s", f.Rel, dir, folderWants(dir), suggest, name+noteExt)
		}
		return invalid(f, CodeWrongFolder, msg, suggest)
	}
	switch s {
	case shapeDay:
		f.Kind = Refined
	case shapeWeek:
		f.Kind = Weekly
	case shapeMonth:
		f.Kind = Monthly
	}
	return f, nil
}

// Path returns the canonical path of a journal file of kind k for the given
// period; "" for kinds without a period.
func Path(k Kind, d Day, w Week, m Month) string {
	switch k {
	case Daily:
		return d.String() + noteExt
	case Refined:
		return RefinedDir + "/" + d.String() + noteExt
	case Weekly:
		return WeeklyDir + "/" + w.String() + noteExt
	case Monthly:
		return MonthlyDir + "/" + m.String() + noteExt
	case LongTerm:
		return MemoryFile
	}
	return ""
}
