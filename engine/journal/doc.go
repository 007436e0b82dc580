// Package journal holds the pure rules of the Fractal journal (SPEC §6): which
// files a journal layer holds and which periods they cover, the boot set, the
// sections of rollups, the built-in extractive summarizer and the prompt for a
// configured one, lesson promotion into MEMORY.md, open loops, and which rollups
// are due. It reads no files, keeps no clock and imports only the standard
// library: the engine hands it paths relative to the layer root
// ("2026-11-30.md", "refined/2026-11-30.md", "weekly/2026-W48.md",
// "monthly/2026-11.md", "MEMORY.md", "sticky-notes/devices.md"), bodies, and
// today's date, and acts on what it returns.
//
// # Periods
//
// Day is a civil date (year, month, day) with no time zone: the caller decides
// which day "today" is. ParseDay takes YYYY-MM-DD only and rejects dates that do
// not exist (2026-02-30, 2027-02-29). Week is an ISO 8601 week, YYYY-Www: weeks
// start on Monday, week 1 holds the year's first Thursday, and week 53 exists
// only in long years (those starting on a Thursday, or leap years starting on a
// Wednesday: 2015, 2020, 2026, 2032, 2037). So 2027-01-01 is in 2026-W53 and
// 2024-12-30 in 2025-W01. Month is YYYY-MM.
//
// A month's weeks are the ISO weeks whose Thursday falls in the month
// (Month.Weeks). That is the rule ISO uses to give a week to a year; it gives
// every week to exactly one month (four or five each), so every weekly is read by
// exactly one monthly. The price: a month's last week can end up to three days
// into the next month (2026-W53, Dec 28 – Jan 3, is December's), and its first
// can start up to three days before it.
//
// # Files
//
// Classify names what a path is (see its documentation for every rule). A
// period name that does not exist, a period in the wrong folder, a sloppy name
// (2026-w48, 2026-1-5, memory.md) and an unknown name inside refined/, weekly/
// or monthly/ are Problems with a stable Code and, where there is one, the path
// it should have. Any other .md at the root ("notes.md") or in another folder is
// Kind Other with no problem: the layer may hold notes beside the journal.
//
// # Boot set
//
// BootRank, in the seed's order: today's raw daily, yesterday's raw daily, (on
// request, the refined days of the N days before yesterday, oldest first), the
// weekly of the last completed ISO week, MEMORY.md, then every sticky note.
// The weekly is the previous week's only: none when it is missing (an older one
// is stale context), and not this week's, which is not over. No monthly and no
// other refined day. The boot cost is thus flat from day 1 to day 1000 (tested
// over 1,000 days).
//
// # Sections
//
// A refined day has "## Decisions Made", "## Things Built", "## Problems
// Encountered", "## Blockers", "## Next Steps"; a weekly "## Themes",
// "## Trajectory", "## What Worked", "## What Didn't"; a monthly "## The Arc",
// "## Lessons", "## Changes in How We Work". ParseSections reads any body into
// its "## " sections with the byte ranges of headings and items (list items or
// plain lines; code fences, deeper headings and comments are not items).
//
// # The built-in summarizer
//
// Summarize is offline and deterministic: sources are read sorted by key, with
// any frontmatter skipped, and the same input gives the same bytes. Output is a
// "# " title naming the period and the rollup's sections; an empty section is
// "- (none)".
//
// A refined day keeps the items of the raw notes (decisions, errors, commit
// ids, file paths) and files each line in one section. Per line, first match
// wins:
//  1. an explicit marker at the start, after any list marker, checkbox and time
//     stamp ("09:14", "[09:14]"): "BLOCKED:", "Blocker:", "Blocked on", "Waiting
//     on" → Blockers; "TODO", "Next:", "Tomorrow:", "FIXME:" → Next Steps;
//     "Decision:", "Decided", "Going with", "Lesson:", "Learned" → Decisions Made
//     (a lesson is a decision about how to work, and flows on to the weekly's
//     What Worked and the monthly's Lessons); "Error:", "Bug:", "Fixed", "Failed",
//     "Broke", "panic:" → Problems Encountered (a fix is recorded with its
//     problem); "Done:", "Built", "Shipped", "Implemented", "Merged", … → Things
//     Built. Label markers ("TODO:", "Decision:", "BLOCKED:") are taken off;
//     words ("Fixed …", "Error: …") stay;
//  2. a checkbox: "[x]" → Things Built, "[ ]" → Next Steps;
//  3. the heading the line is under, when its words name a section: "Decisions",
//     "Done", "Shipped", "What I did", "Problems", "Errors", "Bugs", "Issues",
//     "Blocked", "TODO", "Next", "Tomorrow", "Plan", … (any level below the "# "
//     title; a "# " heading resets it);
//  4. a telling word anywhere: blocked; todo, need to; decided, chose, agreed,
//     switched, from now on; error, bug, broke, failed, crash, panic, flaky,
//     flaked, leak, dies, timeout, fixed, an HTTP error status ("502 Bad
//     Gateway"); built, shipped, added, merged, deployed, committed, … (that
//     priority).
//
// A line is a list item with its indented continuation lines, or a sentence of
// a paragraph; a "Name: " turn of a conversation starts a new one. A later
// sentence of a list item that is a decision or a problem of its own
// ("Deployed to staging. The first request returned 502 Bad Gateway …") is a
// line too. Everything
// else is dropped: chatter, fenced code, indented code, command lines and
// output ("$ …", "--- FAIL", "ok  …", "exit status", stack frames), one-word
// lines. A word only denied ("nothing blocked", "no errors"), used as an
// adjective ("a fixed delay", "built in"), quoted (a message, a commit's
// subject) or part of an identifier or path (lock_timeout, error_page.go)
// files nothing. Lines are
// deduplicated on their normalized text (case, punctuation and spacing aside);
// problems that differ only in numbers and commit ids are one, with a count
// ("(×3)"); a next step that was ticked off or built the same day is dropped.
//
// Items. A refine keeps, whatever the day's length, every must line: each
// decision and lesson, each problem (an error, by marker, heading or word; a
// fix told on its own, "Fixed …", only when it names a commit or a path),
// each explicit line (blockers and next steps by marker or heading, "[x]",
// "[ ]", "Done:"), and each line that names a commit id or a file path
// (keyTokens: 7 to 40 hex digits with a letter and a digit; a word with a
// slash and an extension, or two slashes, or starting "./", "../", "~/"; a
// file name with a known extension). The commit ids and paths of lines that
// file under no section are listed after the title, "Also named: …". Command
// output is not read for items: the error a day names is the one its prose
// names.
//
// Compact form. A must line is shown compact: markup ("`", "**"; a code span
// of several words, a message, is kept as a "quoted" one), a speaker's
// "Name: " (one that leads two lines or more, or user/assistant/…), filler
// openings ("Ok so", "Then", "Turns out") and words ("just", "basically"),
// and a redundant label ("Decided to", "Error:") off; then only the clause that
// holds the item: the first clause (up to ". ", "; ", ", because", ", so", ",
// and", ", which", " while ", …) of a marked line, the clause with
// the filing word of a line filed by a word (a problem: from that clause on),
// cut past 56 bytes (76 for an error message, 80 for a decision or lesson,
// which the weekly, the monthly and MEMORY.md carry on) at its first comma
// past half of that, else at a word, never inside a "quoted" message or commit
// subject, a commit id or a path, and without the function words the cut
// leaves dangling; asides in parentheses over 24 bytes
// dropped; and every commit id, path (and, for a problem, quoted message) of
// the line that the clause lost, appended in parentheses. Lines of one section
// whose first commit or path is the same are merged into one ("hooks/retry.go:
// …; …").
//
// Size bound: the whole refine, title and sections included, is at most a
// quarter (RefineBudget) of the sources' body bytes, frontmatter not counted.
// Within it, after the must lines: the best other line of every section that
// has none, then the decisions in full (their why), then the other lines
// compact by score and source order, then the rest in full (problems,
// blockers, next steps, things built), each if it still fits. When the must
// lines alone do not fit, every one is kept all the same: the empty sections
// are left out, and a closing comment line, "<!-- over its bound: N bytes, a
// quarter of the day is Q; every item kept -->", says so (an HTML comment, so
// no section takes it for an item). A day so short that its empty sections
// alone are more than its quarter (under about 700 bytes) is bound by its own
// length instead (frontmatter included): its refine is never longer than the
// day, the empty sections and then the title left out if need be; only a
// source shorter than a section heading and its one line can end up shorter
// than its refined day. Measured on realistic days (testdata/refine, body
// bytes): coding days 24.3% of 2,157 and 24.9% of 5,496, an incident day 24.9%
// of 7,722, days with session transcripts 24.4% of 5,723 and 24.6% of 9,554,
// a day of three sessions over five sources 25.0% of 21,301, a research day
// 24.7% of 2,853, a chatty day 23.9% of 1,577; a day of terse lines, nearly
// each one an item, 47.5% of 1,824, over its bound. A refine within its bound
// fills its room, so it sits just under the quarter. The generated days of
// GenerateHistory, every line an item, are over but one: 44.9% of the raw.
//
// A week reads its refined days, in date order:
//   - Themes: significant words and word pairs recurring on two or more days
//     (stopwords and item-kind words like "error", "fixed" left out; a pair
//     preferred over its word when three quarters as frequent), by number of
//     days, with the first item naming each, one theme per item, at most five;
//     with nothing recurring, the decisions and things built;
//   - Trajectory: one line per day with its date and weekday: the day's first
//     thing built (else decision, next step, blocker) and its first problem;
//   - What Worked: lessons (never capped away), decisions that change how we
//     work, things built;
//   - What Didn't: blockers, then problems.
//
// A month reads its weeklies, in week order:
//   - The Arc: one line per week: its top three themes and how it ended (its
//     last trajectory line);
//   - Lessons: every item with the weeks it was seen in, near-duplicates (each
//     holding 60% of the other's significant words) merged into one:
//     "Lesson (2026-W06, 2026-W08): …" for explicit lessons, "Recurring problem
//     (weeks): …" for What Didn't items of two or more weeks, "Worked repeatedly
//     (weeks): …" for changes of practice in What Worked of two or more weeks
//     (things merely built again are a theme, not a lesson); items of two or
//     more weeks first;
//   - Changes in How We Work: items naming a change of practice ("switched to",
//     "from now on", "instead of", "no longer", "adopted", "workflow", …).
//
// Weekly and monthly sections are capped (What Worked and What Didn't 8, Lessons
// 8, Changes 6); a capped section ends with "- … and N more": nothing is cut
// silently.
//
// Prompt gives a configured LLM command the same contract: the exact title and
// sections, what goes in each, the rules, and every source between
// <source key="…"> and </source> lines.
//
// # Lessons into MEMORY.md
//
// ProposeLessons returns the monthly's lessons worth promoting: those seen in
// at least two different weeks (the weeks of the same lesson in earlier
// monthlies count), near-duplicates once, none that MEMORY.md already holds
// (as whole words after normalizing case, punctuation and whitespace, or as a
// near-duplicate line). A lesson without weeks (hand-written, or by a
// configured summarizer) is proposed as it is. AppendLessons adds them under
// "## Lessons" (created at the end if missing), skipping those already there,
// keeping every other byte and the body's line endings. Proposing after
// appending gives nothing: a lesson is never added twice.
//
// # Open loops
//
// OpenLoops reports blockers and next steps of refined days, at least afterDays
// old, that no later document (a refined day, weekly or MEMORY.md whose Day is
// after the item's) mentions again. A line mentions an item when it holds at
// least 60% of the item's significant words (LoopOverlap), line by line. A
// weekly's "What Didn't" is not a mention: the summarizer echoes blockers there.
//
// # Due rollups
//
// Due returns what can run and has not: a day once it is over (before today), a
// week once its Sunday is over, a month once its last day and its last week are
// over (a month waits up to three days for its last week; see Periods), with a
// source present (or planned earlier in the same list) and no output yet. The
// list is oldest first and in dependency order (day, then the week reading it,
// then the month). Staleness (a source changed since) is the engine's: Sources
// tells which files a rollup reads, for the hashes it records.
//
// GenerateHistory makes realistic raw dailies for tests and benchmarks of long
// journals.
package journal
