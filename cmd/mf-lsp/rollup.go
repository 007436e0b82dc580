package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/errcode"
	"github.com/magicfrog/mf-lsp/engine/journal"
	"github.com/magicfrog/mf-lsp/engine/rollup"
	"github.com/magicfrog/mf-lsp/session"
)

func runRollup(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	c, f := newRollupCLI(stdout, stderr)
	pos, code, done := c.Parse(args, 1, 2)
	if done {
		return code
	}
	if *f.log != "" {
		log, err := openRollupLog(*f.log)
		if err != nil {
			return c.Fail("--log: %v", err)
		}
		fmt.Fprintf(log, "=== %s mf-lsp rollup %s\n", time.Now().UTC().Format(time.RFC3339), strings.Join(args, " "))
		c.Stdout, c.Stderr = log, log
		defer func() {
			fmt.Fprintf(log, "=== exit %d\n", code)
			log.Close()
		}()
	}
	r, code, ok := f.request(c, pos)
	if !ok {
		return code
	}
	if code, ok := r.open(); !ok {
		return code
	}
	if f.dry {
		return r.printPlan()
	}
	return r.run()
}

// rollupFlags are the flags of mf-lsp rollup.
type rollupFlags struct {
	journal     journalFlags
	summarizer  *string
	timeout     *time.Duration
	promote     *bool
	transcripts *string
	dayOver     *bool
	today       *string
	dry         bool
	log         *string
}

func newRollupCLI(stdout, stderr io.Writer) (*cli, *rollupFlags) {
	c := newCLI("rollup", "mf-lsp rollup day YYYY-MM-DD | week YYYY-Www | month YYYY-MM | due [flags]", `
Roll up the Fractal journal (SPEC §6): refine a day's raw daily into
refined/YYYY-MM-DD.md, roll a week's refined days into weekly/YYYY-Www.md, a
month's weeklies into monthly/YYYY-MM.md, or run everything that is due: every
complete period whose rollup is missing or stale (a source changed since),
oldest first, days before the weeks that read them before the months. A
rollup records its sources (key, revision, hash) in its frontmatter; rerunning
an up-to-date rollup does nothing. Raw dailies are only read.

The summarizer is --summarizer, else the project's config.json "summarizer",
else the built-in extractive one ("builtin" names it). A command gets the
prompt on stdin and prints Markdown on stdout; it is split like a shell line
(quotes, backslashes) and run directly, not by a shell.

Session transcripts (--transcripts DIR, else config.json "transcripts") join
the sources of the day refines of the project's journals: Claude Code and
Codex JSONL logs (user and assistant text), Markdown and text files; one that
cannot be parsed is reported on stderr and skipped. With config.json
"promote": "auto", lessons are promoted as with --promote.

Prints one line per job: "written REF: ...", "up to date REF: ...",
"failed REF: ...", a "lesson REF: TEXT" line per lesson a monthly proposes for
MEMORY.md (--promote writes them), then a summary. Exit code 1 when a job
failed (3 when every failure is a stale write: nothing was written).`, stdout, stderr)
	f := &rollupFlags{}
	f.journal.register(c, "", "only the journals of this `DIMENSION` (default: every journal)")
	f.summarizer = c.FS.String("summarizer", "", "the summarizer `COMMAND` line, or builtin (default: config.json summarizer, else builtin)")
	f.timeout = c.FS.Duration("timeout", rollup.DefaultTimeout, "how long the summarizer may run per rollup (`DURATION`)")
	f.promote = c.FS.Bool("promote", false, "write the lessons monthly rollups propose into the journal's MEMORY.md (default: config.json \"promote\": \"auto\")")
	f.transcripts = c.FS.String("transcripts", "", "a folder of session transcripts (`DIR`: Claude Code or Codex JSONL, Markdown, text) that day refines read (default: config.json transcripts)")
	f.dayOver = c.FS.Bool("day-over", false, "count today as over: refine it (and roll up its week on a Sunday, its month on its last day); the scheduled evening jobs use it")
	f.today = c.FS.String("today", "", "the journal's today, `YYYY-MM-DD`, for due (default: the local date)")
	c.FS.BoolVar(&f.dry, "dry-run", false, "print the plan; run and write nothing")
	f.log = c.FS.String("log", "", "append the report (stdout and stderr) to `FILE`, between a \"=== TIME\" and an \"=== exit N\" line (the scheduled jobs use it)")
	return c, f
}

// rollupRun is one mf-lsp rollup: its request, the memory it runs on and
// the options it runs with.
type rollupRun struct {
	c       *cli
	req     rollup.Request
	setup   session.RollupSetup
	promote bool
	label   string
	m       *engine.Memory
	opts    rollup.Options
}

// request checks the positional words and the flags: a bad one is a usage
// error (ok false, with its exit code).
func (f *rollupFlags) request(c *cli, pos []string) (r *rollupRun, code int, ok bool) {
	req, err := session.ParseRollupWords(pos)
	if err != nil {
		return nil, c.UsageError("%v", err), false
	}
	dim, err := f.journal.dim()
	if err != nil {
		return nil, c.UsageError("--dimension: %v", err), false
	}
	day, err := session.RollupToday(*f.today, *f.dayOver)
	if err != nil {
		return nil, c.UsageError("--today: %v", err), false
	}
	r = &rollupRun{c: c, req: req, promote: *f.promote, label: "rollup " + strings.Join(pos, " "),
		setup: session.RollupSetup{Dimension: dim, Today: day, Summarizer: *f.summarizer, Timeout: *f.timeout, Transcripts: *f.transcripts}}
	if c.IsSet("scope") {
		r.setup.Owner = &f.journal.scope
	}
	return r, exitOK, true
}

// open opens the data directory and resolves the options: the journal layer,
// the summarizer, the transcripts (their skipped files are warnings) and
// config.json "promote".
func (r *rollupRun) open() (code int, ok bool) {
	c := r.c
	m, err := c.OpenDataDir()
	if err != nil {
		return c.Fail("%v", err), false
	}
	r.m = m
	r.opts, err = session.RollupOptions(m, r.setup)
	var terr *session.TranscriptsError
	if errors.As(err, &terr) {
		return c.Fail("%v (set by %s)", err, map[bool]string{true: "--transcripts", false: ".magicfrog/config.json"}[terr.FromCaller]), false
	}
	if err != nil {
		return c.Fail("%v", err), false
	}
	if r.promote, err = session.RollupPromotes(m, r.promote); err != nil {
		return c.Fail("%v", err), false
	}
	if r.opts.Transcripts != nil {
		for _, why := range r.opts.Transcripts.Skipped {
			fmt.Fprintf(c.Stderr, "mf-lsp rollup: warning: transcript skipped: %s\n", why)
		}
	}
	return exitOK, true
}

// printPlan is --dry-run: each job and why, nothing run.
func (r *rollupRun) printPlan() int {
	jobs, err := session.RollupJobs(r.m, r.req, r.opts)
	if err != nil {
		return r.c.Fail("%v", err)
	}
	for _, j := range jobs {
		verb := "would write"
		if j.UpToDate {
			verb = "up to date"
		}
		fmt.Fprintf(r.c.Stdout, "%s %s: %s (%s)\n", verb, j.Journal.String()+j.Output, j.Rollup, j.Reason)
	}
	if len(jobs) == 0 {
		fmt.Fprintf(r.c.Stdout, "%s: nothing to do\n", r.label)
	}
	return exitOK
}

// run runs the jobs, printing a line per job and per lesson, promotes the
// lessons when asked, and prints the summary. Exit 1 when a job failed, 3
// when every failure was a stale write.
func (r *rollupRun) run() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	report, outs, err := session.RunRollup(ctx, r.m, r.req, r.opts, r.printOutcome)
	failed, stale := len(report.Failed), report.Stale()
	if err != nil {
		fmt.Fprintf(r.c.Stderr, "mf-lsp rollup: %v\n", err)
		failed++
	}
	if r.promote {
		f, s := r.promoteLessons(outs)
		failed, stale = failed+f, stale+s
	}
	if len(outs) == 0 && failed == 0 {
		what := "nothing to do"
		if !r.req.Due {
			what = "nothing to do: no journal has sources for " + r.req.Rollup.String()
		}
		fmt.Fprintf(r.c.Stdout, "%s: %s\n", r.label, what)
		return exitOK
	}
	fmt.Fprintf(r.c.Stdout, "%s: wrote %d, up to date %d, failed %d\n", r.label, len(report.Written), report.UpToDate, failed)
	switch {
	case failed > 0 && failed == stale:
		return exitStale
	case failed > 0:
		return exitError
	}
	return exitOK
}

// printOutcome is a job's line: "written REF: …", "up to date REF: …" or
// "failed REF: …", then a "lesson REF: TEXT" line per lesson.
func (r *rollupRun) printOutcome(o rollup.Outcome, step session.RollupStep) {
	stdout := r.c.Stdout
	switch step.Verb {
	case session.RollupFailed:
		fmt.Fprintf(stdout, "failed %s: %v\n", step.Ref, o.Err)
	case session.RollupUpToDate:
		fmt.Fprintf(stdout, "up to date %s: %s\n", step.Ref, o.Job.Rollup)
	default:
		again := ""
		if o.Attempts > 1 {
			again = ", summarized again: a source changed meanwhile"
		}
		fmt.Fprintf(stdout, "written %s: %s (%s), revision %d, %s, %s%s\n", step.Ref, o.Job.Rollup, o.Job.Reason, o.Revision, plural(len(o.Sources), "source"), r.opts.Summarizer.Name(), again)
		for _, w := range o.Warnings {
			fmt.Fprintf(r.c.Stderr, "mf-lsp rollup: warning: %s: %s\n", step.Ref, w)
		}
	}
	for _, l := range o.Lessons {
		fmt.Fprintf(stdout, "lesson %s: %s\n", step.Ref, l)
	}
}

// promoteLessons writes each outcome's lessons into its journal's MEMORY.md
// (--promote), a line each; it returns how many failed and how many of
// those were stale.
func (r *rollupRun) promoteLessons(outs []rollup.Outcome) (failed, stale int) {
	for _, o := range outs {
		if o.Err != nil || len(o.Lessons) == 0 {
			continue
		}
		pr, err := session.PromoteRollupLessons(r.m, o.Job.Journal, o.Lessons)
		ref := o.Job.Journal.String() + journal.MemoryFile
		if err != nil {
			failed++
			if errcode.Of(err) == errcode.Stale {
				stale++
			}
			fmt.Fprintf(r.c.Stdout, "failed %s: %v\n", ref, err)
			continue
		}
		if len(pr.Added) > 0 {
			fmt.Fprintf(r.c.Stdout, "promoted %s: %s, revision %d\n", ref, plural(len(pr.Added), "lesson"), pr.Revision)
		}
	}
	return failed, stale
}

// plural writes "1 source", "3 sources".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// maxLogBytes: a rollup log larger than this is moved to FILE.1 (replacing the
// one before) when a run starts, so a schedule's logs stay small.
const maxLogBytes = 1 << 20

// openRollupLog opens the --log file for appending, making its folder.
func openRollupLog(p string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, err
	}
	if info, err := os.Stat(p); err == nil && info.Size() > maxLogBytes {
		_ = os.Rename(p, p+".1")
	}
	return os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
}
