package journal

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Vocabulary of the generated journal.
var (
	genTopics = []string{"telegram bot", "credential vault", "sqlite cache", "markdown parser", "deploy pipeline",
		"search index", "auth flow", "rate limiter", "webhook handler", "backup job", "cron scheduler",
		"embedding store", "session replay", "billing export", "plugin loader"}
	genParts = []string{"retry logic", "config loader", "error handling", "schema migration", "integration tests",
		"logging", "CLI flags", "HTTP client", "file watcher", "token refresh", "metrics", "docs"}
	genTech = []string{"SQLite", "Postgres", "Redis", "a plain JSON file", "goroutines with a semaphore",
		"exponential backoff", "systemd timers", "a worker pool", "content hashes", "ULIDs", "fsnotify", "flock"}
	genReasons = []string{"it keeps the moving parts small", "the old approach leaked file handles",
		"it survives a restart", "we need it offline", "it is easier to test", "the API rate limits us",
		"it halves the memory use", "nobody could debug the old one"}
	genErrors = []string{"context deadline exceeded", "database is locked", "connection reset by peer",
		"nil pointer dereference", "permission denied", "unexpected EOF", "too many open files",
		"401 Unauthorized", "invalid character '}' looking for beginning of value", "address already in use"}
	genFiles = []string{"bot/handler.go", "vault/store.go", "cache/sqlite.go", "parser/block.go", "deploy/run.sh",
		"index/build.go", "auth/token.go", "limit/bucket.go", "hooks/server.go", "backup/job.go"}
	genPeople = []string{"Sam", "the ops team", "Priya", "the upstream maintainer", "Dana", "legal"}
	genWaits  = []string{"an API key", "a review", "the staging database", "a decision on pricing", "access to the VPS", "the new certificate"}
	genChat   = []string{"Coffee first, then read yesterday's notes.", "Spent a while rereading the code before touching anything.",
		"Quick call, mostly catching up.", "Lunch.", "Not much energy this afternoon, kept to small things.",
		"Tidied the desk and the issue tracker.", "Long thread about naming, no conclusion.",
		"Read an article about event sourcing, interesting but not for now.", "Music on, heads down.",
		"Looked around the repo to remember where things are.", "Short break, walked the dog."}
	genLessons = []string{"always run the migration in a transaction", "write the failing test before the fix",
		"check the lock file before blaming the network", "keep secrets out of the journal",
		"small commits make the bisect painless", "read the error message twice before googling",
		"never deploy on a Friday afternoon", "measure before optimising"}
	genProcess = []string{"Switched to reviewing PRs in the morning instead of the evening",
		"From now on every bug gets a regression test first", "Moved the standup notes into the daily log",
		"Stopped running the full suite locally, CI does it", "Adopted conventional commit messages",
		"No longer deploy without a rollback plan"}
)

// GenerateHistory returns days raw daily notes from start on, keyed by their path
// in the layer ("2026-11-30.md"), made up deterministically from seed: a few
// hundred words each, in the styles people write (timestamped bullets, inline
// "Decision:" / "TODO:" / "BLOCKED:" markers and checkboxes on some days, section
// headings on others), with decisions, things built, errors and their command
// output in code blocks, TODOs that get done on later days, blockers, lessons,
// changes of practice, and chatter. Topics run for several days so weeks and
// months have themes. For benchmarks and tests of long journals.
func GenerateHistory(days int, start Day, seed int64) map[string][]byte {
	r := rand.New(rand.NewPCG(uint64(seed), 0x6a6f75726e616c)) // "journal"
	out := make(map[string][]byte, max(days, 0))
	topic := genTopics[r.IntN(len(genTopics))]
	var pending []string // TODOs that a later day ticks off
	for i := 0; i < days; i++ {
		day := start.AddDays(i)
		if r.IntN(6) == 0 {
			topic = genTopics[r.IntN(len(genTopics))]
		}
		g := &gen{r: r, topic: topic}
		var b strings.Builder
		fmt.Fprintf(&b, "# %s\n\n", day)
		if r.IntN(3) == 0 {
			g.headed(&b, &pending)
		} else {
			g.timeline(&b, &pending)
		}
		out[day.String()+noteExt] = []byte(b.String())
	}
	return out
}

type gen struct {
	r     *rand.Rand
	topic string
}

func (g *gen) pick(list []string) string { return list[g.r.IntN(len(list))] }

func (g *gen) decision() string {
	switch g.r.IntN(3) {
	case 0:
		return fmt.Sprintf("Decision: use %s for the %s %s, because %s.", g.pick(genTech), g.topic, g.pick(genParts), g.pick(genReasons))
	case 1:
		return fmt.Sprintf("Decided to rewrite the %s of the %s with %s; %s.", g.pick(genParts), g.topic, g.pick(genTech), g.pick(genReasons))
	}
	return fmt.Sprintf("Going with %s over %s for the %s.", g.pick(genTech), g.pick(genTech), g.topic)
}

func (g *gen) built() string {
	verbs := []string{"Implemented", "Shipped", "Finished", "Merged", "Built"}
	return fmt.Sprintf("%s the %s %s (%s).", g.pick(verbs), g.topic, g.pick(genParts), g.pick(genFiles))
}

func (g *gen) todo() string {
	return fmt.Sprintf("add %s to the %s %s", []string{"tests", "a timeout", "metrics", "docs", "a retry"}[g.r.IntN(5)], g.topic, g.pick(genParts))
}

func (g *gen) errBlock(b *strings.Builder) {
	e := g.pick(genErrors)
	f := g.pick(genFiles)
	fmt.Fprintf(b, "Error: %s in %s while testing the %s.\n\n", e, f, g.topic)
	fmt.Fprintf(b, "```\n$ go test ./...\n--- FAIL: TestRun (0.%02ds)\n    %s:%d: %s\nFAIL\nexit status 1\n```\n\n", g.r.IntN(99), f, 10+g.r.IntN(300), e)
	if g.r.IntN(2) == 0 {
		fmt.Fprintf(b, "Fixed it: the %s was not closing its handle.\n\n", g.pick(genParts))
	}
}

// timeline writes a day as timestamped bullets across one to three sessions.
func (g *gen) timeline(b *strings.Builder, pending *[]string) {
	sessions := 2 + g.r.IntN(3)
	h := 8 + g.r.IntN(3)
	for s := 0; s < sessions; s++ {
		fmt.Fprintf(b, "## Session %d\n\n", s+1)
		n := 6 + g.r.IntN(6)
		for k := 0; k < n; k++ {
			m := g.r.IntN(60)
			stamp := fmt.Sprintf("%02d:%02d", h, m)
			switch x := g.r.IntN(20); {
			case x < 6:
				fmt.Fprintf(b, "- %s %s\n", stamp, g.pick(genChat))
			case x < 9:
				fmt.Fprintf(b, "- %s %s\n", stamp, g.decision())
			case x < 12:
				fmt.Fprintf(b, "- %s %s\n", stamp, g.built())
			case x < 14:
				t := g.todo()
				*pending = append(*pending, t)
				fmt.Fprintf(b, "- %s TODO: %s\n", stamp, t)
			case x < 15 && len(*pending) > 0:
				fmt.Fprintf(b, "- [x] %s\n", (*pending)[0])
				*pending = (*pending)[1:]
			case x < 16:
				fmt.Fprintf(b, "- %s BLOCKED: waiting on %s for %s.\n", stamp, g.pick(genPeople), g.pick(genWaits))
			case x < 17:
				fmt.Fprintf(b, "- %s Lesson: %s.\n", stamp, g.pick(genLessons))
			case x < 18:
				fmt.Fprintf(b, "- %s %s.\n", stamp, g.pick(genProcess))
			default:
				fmt.Fprintf(b, "- %s Ran the %s tests again.\n\n", stamp, g.topic)
				g.errBlock(b)
			}
		}
		b.WriteString("\n")
		h += 2 + g.r.IntN(3)
	}
	fmt.Fprintf(b, "Notes to self: the %s feels %s. %s\n", g.topic, []string{"close", "messy", "solid", "slow"}[g.r.IntN(4)], g.pick(genChat))
}

// headed writes a day under section headings, the other common style.
func (g *gen) headed(b *strings.Builder, pending *[]string) {
	fmt.Fprintf(b, "Working on the %s today. %s %s\n\n", g.topic, g.pick(genChat), g.pick(genChat))
	b.WriteString("## Decisions\n\n")
	for k := 0; k < 1+g.r.IntN(2); k++ {
		fmt.Fprintf(b, "- %s\n", strings.TrimPrefix(g.decision(), "Decision: "))
	}
	b.WriteString("\n## Done\n\n")
	for k := 0; k < 1+g.r.IntN(3); k++ {
		fmt.Fprintf(b, "- %s\n", g.built())
	}
	if len(*pending) > 0 && g.r.IntN(2) == 0 {
		fmt.Fprintf(b, "- [x] %s\n", (*pending)[0])
		*pending = (*pending)[1:]
	}
	b.WriteString("\n## Problems\n\n")
	g.errBlock(b)
	fmt.Fprintf(b, "%s\n\n", g.pick(genChat))
	if g.r.IntN(3) == 0 {
		fmt.Fprintf(b, "## Blocked\n\n- waiting on %s for %s\n\n", g.pick(genPeople), g.pick(genWaits))
	}
	b.WriteString("## TODO\n\n")
	for k := 0; k < 1+g.r.IntN(2); k++ {
		t := g.todo()
		*pending = append(*pending, t)
		fmt.Fprintf(b, "- [ ] %s\n", t)
	}
	if g.r.IntN(4) == 0 {
		fmt.Fprintf(b, "\nLesson: %s.\n", g.pick(genLessons))
	}
	b.WriteString("\n## Log\n\n")
	h := 9 + g.r.IntN(2)
	for k := 0; k < 6+g.r.IntN(5); k++ {
		fmt.Fprintf(b, "- %02d:%02d %s\n", h+k, g.r.IntN(60), g.pick(genChat))
	}
	fmt.Fprintf(b, "- Ran the %s tests again.\n\n", g.topic)
	g.errBlock(b)
	fmt.Fprintf(b, "\n```\n$ git log --oneline | head -3\n%07x wip %s\n%07x fix tests\n%07x docs\n```\n", g.r.IntN(1<<28), g.topic, g.r.IntN(1<<28), g.r.IntN(1<<28))
}
