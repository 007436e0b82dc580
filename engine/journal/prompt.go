package journal

import (
	"fmt"
	"strings"
)

// sectionGuide says what goes in each section, for the prompt.
var sectionGuide = map[string]string{
	SecDecisions:  "decisions made and why, one per line",
	SecBuilt:      "what was built, shipped, fixed or finished",
	SecProblems:   "problems, errors and bugs hit, with their exact messages and how they were resolved",
	SecBlockers:   "what is blocked and on what",
	SecNext:       "next steps and open TODOs still open at the end of the day",
	SecThemes:     "the dominant themes of the week",
	SecTrajectory: "how the week went, day by day in order, with dates",
	SecWorked:     "what worked, lessons that held",
	SecDidnt:      "what did not work, problems and blockers",
	SecArc:        "the overall arc of the month, week by week",
	SecLessons:    "lessons seen in two or more different weeks, one per line, each worth keeping in long-term memory (every one is proposed for MEMORY.md as written)",
	SecChanges:    "what changed in how we work: tools, process, conventions",
}

// Prompt returns the prompt given on stdin to a user-configured summarizer
// command (any LLM CLI) for a rollup: what to distill, the exact title and
// sections to write, and every source (sorted by key) between
// <source key="…"> and </source> lines. A line "</source>" inside a source is
// written as "<\/source>" so a source cannot end early.
func Prompt(kind RollupKind, period string, sources []Source) string {
	var b strings.Builder
	var what, from string
	switch kind {
	case RefineDay:
		what, from = "a refined daily note for "+period, "the raw daily notes (and any session transcripts) of that day"
	case RollupWeek:
		what, from = "a weekly summary for ISO week "+period, "the refined daily notes of that week"
	case RollupMonth:
		what, from = "a monthly overview for "+period, "the weekly summaries of that month"
	default:
		what, from = "a summary for "+period, "the sources"
	}
	fmt.Fprintf(&b, "You maintain an AI agent's journal memory. Write %s from %s below.\n\n", what, from)
	b.WriteString("Output Markdown only, with no preamble and no closing remarks, exactly in this form:\n\n")
	fmt.Fprintf(&b, "# %s\n", Title(kind, period))
	for _, s := range SectionsFor(kind) {
		fmt.Fprintf(&b, "\n## %s\n\n- …\n", s)
	}
	b.WriteString("\nThe sections, in this order, with these exact headings:\n")
	for _, s := range SectionsFor(kind) {
		fmt.Fprintf(&b, "- %s: %s.\n", s, sectionGuide[s])
	}
	b.WriteString("\nRules:\n")
	b.WriteString("- Every section is a list of \"- \" items, one line each. Write \"- (none)\" under a section with nothing to report.\n")
	switch kind {
	case RefineDay:
		b.WriteString("- Keep what matters and drop the rest: chatter, command output, code and stack traces go. About a fifth of the length of the sources.\n")
	case RollupWeek:
		b.WriteString("- Move from events to patterns. Mention days by date in the trajectory.\n")
	case RollupMonth:
		b.WriteString("- Zoom out to the strategic level. A lesson must stand on its own, without this month's context.\n")
	}
	b.WriteString("- Keep names, numbers, file paths, commands and error messages exact. Invent nothing that the sources do not say.\n")
	b.WriteString("\nSources:\n")
	srcs := sortedSources(sources)
	for _, s := range srcs {
		fmt.Fprintf(&b, "\n<source key=%q>\n", s.Key)
		body := strings.ReplaceAll(string(s.Body), "</source>", "<\\/source>")
		b.WriteString(body)
		if !strings.HasSuffix(body, "\n") {
			b.WriteString("\n")
		}
		b.WriteString("</source>\n")
	}
	if len(srcs) == 0 {
		b.WriteString("\n(no sources)\n")
	}
	return b.String()
}
