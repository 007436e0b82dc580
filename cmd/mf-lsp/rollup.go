package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/journal"
	"github.com/magicfrog/mf-lsp/engine/rollup"
)

func runRollup(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
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
	var jf journalFlags
	jf.register(c, "", "only the journals of this `DIMENSION` (default: every journal)")
	summ := c.fs.String("summarizer", "", "the summarizer `COMMAND` line, or builtin (default: config.json summarizer, else builtin)")
	timeout := c.fs.Duration("timeout", rollup.DefaultTimeout, "how long the summarizer may run per rollup (`DURATION`)")
	promote := c.fs.Bool("promote", false, "write the lessons monthly rollups propose into the journal's MEMORY.md (default: config.json \"promote\": \"auto\")")
	transcripts := c.fs.String("transcripts", "", "a folder of session transcripts (`DIR`: Claude Code or Codex JSONL, Markdown, text) that day refines read (default: config.json transcripts)")
	dayOver := c.fs.Bool("day-over", false, "count today as over: refine it (and roll up its week on a Sunday, its month on its last day); the scheduled evening jobs use it")
	today := c.fs.String("today", "", "the journal's today, `YYYY-MM-DD`, for due (default: the local date)")
	dry := c.fs.Bool("dry-run", false, "print the plan; run and write nothing")
	logPath := c.fs.String("log", "", "append the report (stdout and stderr) to `FILE`, between a \"=== TIME\" and an \"=== exit N\" line (the scheduled jobs use it)")
	pos, code, done := c.parse(args, 1, 2)
	if done {
		return code
	}
	if *logPath != "" {
		f, err := openRollupLog(*logPath)
		if err != nil {
			return c.fail("--log: %v", err)
		}
		fmt.Fprintf(f, "=== %s mf-lsp rollup %s\n", time.Now().UTC().Format(time.RFC3339), strings.Join(args, " "))
		stdout, stderr, c.stdout, c.stderr = f, f, f, f
		defer func() {
			fmt.Fprintf(f, "=== exit %d\n", code)
			f.Close()
		}()
	}
	req, err := rollup.ParseRequest(pos)
	if err != nil {
		return c.usageError("%v", err)
	}
	dim, err := jf.dim()
	if err != nil {
		return c.usageError("--dimension: %v", err)
	}
	day, err := engine.Today(*today)
	if err != nil {
		return c.usageError("--today: %v", err)
	}
	m, err := c.openDataDir()
	if err != nil {
		return c.fail("%v", err)
	}
	if _, err := rollup.FractalLayer(m); err != nil {
		return c.fail("%v", err)
	}
	s, err := rollup.Resolve(*timeout, *summ, m.Binding().Summarizer)
	if err != nil {
		return c.fail("%v", err)
	}
	auto, err := rollup.PromoteAuto(m.Binding().Promote)
	if err != nil {
		return c.fail("%v", err)
	}
	*promote = *promote || auto
	if *dayOver {
		day = day.AddDays(1)
	}
	opts := rollup.Options{Dimension: dim, Owner: jf.scope, OwnerSet: c.isSet("scope"), Today: day, Summarizer: s}
	tdir, err := rollup.TranscriptsDir(*transcripts, m.Binding().Transcripts, m.Paths.ProjectDir)
	if err != nil {
		return c.fail("%v", err)
	}
	if tdir != "" {
		t, err := rollup.LoadTranscripts(tdir, time.Local)
		if err != nil {
			return c.fail("%v (set by %s)", err, map[bool]string{true: "--transcripts", false: ".magicfrog/config.json"}[*transcripts != ""])
		}
		for _, why := range t.Skipped {
			fmt.Fprintf(stderr, "mf-lsp rollup: warning: transcript skipped: %s\n", why)
		}
		opts.Transcripts = t
	}
	label := "rollup " + strings.Join(pos, " ")
	if *dry {
		jobs, err := rollup.Plan(m, req, opts)
		if err != nil {
			return c.fail("%v", err)
		}
		for _, j := range jobs {
			verb := "would write"
			if j.UpToDate {
				verb = "up to date"
			}
			fmt.Fprintf(stdout, "%s %s: %s (%s)\n", verb, j.Journal.String()+j.Output, j.Rollup, j.Reason)
		}
		if len(jobs) == 0 {
			fmt.Fprintf(stdout, "%s: nothing to do\n", label)
		}
		return exitOK
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	wrote, current, failed, stale := 0, 0, 0, 0
	outs, err := rollup.RunPlan(ctx, m, req, opts, func(o rollup.Outcome) {
		ref := o.Job.Journal.String() + o.Job.Output
		switch {
		case o.Err != nil:
			failed++
			if _, ok := engine.IsStale(o.Err); ok {
				stale++
			}
			fmt.Fprintf(stdout, "failed %s: %v\n", ref, o.Err)
		case o.Status == rollup.UpToDate:
			current++
			fmt.Fprintf(stdout, "up to date %s: %s\n", ref, o.Job.Rollup)
		default:
			wrote++
			again := ""
			if o.Attempts > 1 {
				again = ", summarized again: a source changed meanwhile"
			}
			fmt.Fprintf(stdout, "written %s: %s (%s), revision %d, %s, %s%s\n", ref, o.Job.Rollup, o.Job.Reason, o.Revision, plural(len(o.Sources), "source"), s.Name(), again)
			for _, w := range o.Warnings {
				fmt.Fprintf(stderr, "mf-lsp rollup: warning: %s: %s\n", ref, w)
			}
		}
		for _, l := range o.Lessons {
			fmt.Fprintf(stdout, "lesson %s: %s\n", ref, l)
		}
	})
	if err != nil {
		fmt.Fprintf(stderr, "mf-lsp rollup: %v\n", err)
		failed++
	}
	if *promote {
		for _, o := range outs {
			if o.Err != nil || len(o.Lessons) == 0 {
				continue
			}
			pr, err := rollup.Promote(m, o.Job.Journal, o.Lessons)
			ref := o.Job.Journal.String() + journal.MemoryFile
			if err != nil {
				failed++
				if _, ok := engine.IsStale(err); ok {
					stale++
				}
				fmt.Fprintf(stdout, "failed %s: %v\n", ref, err)
				continue
			}
			if len(pr.Added) > 0 {
				fmt.Fprintf(stdout, "promoted %s: %s, revision %d\n", ref, plural(len(pr.Added), "lesson"), pr.Revision)
			}
		}
	}
	if len(outs) == 0 && failed == 0 {
		what := "nothing to do"
		if !req.Due {
			what = "nothing to do: no journal has sources for " + req.Rollup.String()
		}
		fmt.Fprintf(stdout, "%s: %s\n", label, what)
		return exitOK
	}
	fmt.Fprintf(stdout, "%s: wrote %d, up to date %d, failed %d\n", label, wrote, current, failed)
	switch {
	case failed > 0 && failed == stale:
		return exitStale
	case failed > 0:
		return exitError
	}
	return exitOK
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
