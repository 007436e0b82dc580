package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/magicfrog/mf-lsp/engine/schedule"
	"github.com/magicfrog/mf-lsp/session"
)

func runSchedule(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCLI("schedule", "mf-lsp schedule install|status|remove [--systemd] [flags]", `
Run the journal's rollups on the seed's schedule from the user's own
scheduler: nightly at 23:30 (refine the day), Sunday at 23:45 (roll up the
week), the 1st at 00:15 (roll up the month). Every job runs "mf-lsp rollup
due", so a night the machine was off is caught up by the next run.

install  puts the three jobs into the user's crontab (crontab -l / crontab -),
         between two marker lines naming this project's schedule; installing
         again replaces them, every other line is kept. With --systemd, writes
         systemd user units (a service and a persistent timer per job) and
         enables the timers.
status   shows the installed jobs and when each last ran (from its log).
remove   takes them out again (with --systemd: disables and deletes the units).

The jobs work in cron's bare environment: the binary, --data-dir and
--project are absolute, the summarizer's folder is put on PATH, and each job
appends its report to <data>/schedule/<id>-<job>.log. Lessons are promoted by
the jobs when the project's config.json says "promote": "auto".`, stdout, stderr)
	systemd := c.FS.Bool("systemd", false, "use systemd user timers instead of the crontab")
	crontab := c.FS.String("crontab", "crontab", "the crontab `PROGRAM`")
	systemctl := c.FS.String("systemctl", "systemctl", "the systemctl `PROGRAM`")
	binary := c.FS.String("binary", "", "the mf-lsp `PATH` the jobs run (default: this one)")
	skillsInto := c.FS.String("skills-into", "", "install: also run `mf-lsp skills --into DIR` hourly (e.g. the project's .claude/skills)")
	pos, code, done := c.Parse(args, 1, 1)
	if done {
		return code
	}
	verb := pos[0]
	if verb != "install" && verb != "status" && verb != "remove" {
		return c.UsageError("unknown action %q: want install, status or remove", verb)
	}
	m, err := c.Open(verb == "install")
	if err != nil {
		return c.Fail("%v", err)
	}
	if *binary == "" {
		*binary = selfPath()
	}
	t, warnings, err := session.ScheduleTarget(m, *binary)
	if err != nil {
		return c.Fail("%v", err)
	}
	if *skillsInto != "" {
		if t.SkillsDir, err = filepath.Abs(*skillsInto); err != nil {
			return c.Fail("%v", err)
		}
		if err := session.CheckHostFolder(m.Paths, t.SkillsDir); err != nil {
			fmt.Fprintf(stderr, "mf-lsp schedule: --skills-into: %v\n", err)
			return exitUsage
		}
	}
	if verb == "install" {
		if err := c.RequireDataDir(m); err != nil {
			return c.Fail("%v", err)
		}
		if err := session.CheckScheduleInstall(m); err != nil {
			return c.Fail("%v", err)
		}
		for _, w := range warnings {
			fmt.Fprintf(stderr, "mf-lsp schedule: warning: %s\n", w)
		}
	}
	if *systemd {
		return scheduleSystemd(c, verb, t, *systemctl)
	}
	return scheduleCron(c, verb, t, *crontab)
}

// selfPath is this binary as the user reached it: a symbolic link such as
// /usr/local/bin/mf-lsp stays a link, so an upgrade behind it is picked up.
func selfPath() string {
	if strings.ContainsRune(os.Args[0], filepath.Separator) {
		return os.Args[0]
	}
	if p, err := exec.LookPath(os.Args[0]); err == nil {
		return p
	}
	p, _ := os.Executable()
	return p
}

func scheduleCron(c *cli, verb string, t schedule.Target, crontab string) int {
	id := session.ScheduleID(t)
	switch verb {
	case "install":
		jobs, changed, err := session.CronInstall(crontab, t)
		if err != nil {
			return c.Fail("%v", err)
		}
		state := "installed"
		if !changed {
			state = "already installed"
		}
		fmt.Fprintf(c.Stdout, "%s: schedule %s in the crontab (journal rollups of %s)\n", state, id, t.ProjectDir)
		for _, j := range jobs {
			fmt.Fprintf(c.Stdout, "  %-7s %-12s %s\n", j.Name, j.When, j.Command)
		}
	case "remove":
		changed, err := session.CronRemove(crontab, t)
		if err != nil {
			return c.Fail("%v", err)
		}
		if !changed {
			fmt.Fprintf(c.Stdout, "not installed: no schedule %s in the crontab\n", id)
			return exitOK
		}
		fmt.Fprintf(c.Stdout, "removed: schedule %s from the crontab\n", id)
	case "status":
		jobs, differs, err := session.CronStatus(crontab, t)
		if err != nil {
			return c.Fail("%v", err)
		}
		if len(jobs) == 0 {
			fmt.Fprintf(c.Stdout, "not installed: no schedule %s in the crontab (mf-lsp schedule install)\n", id)
			return exitOK
		}
		fmt.Fprintf(c.Stdout, "schedule %s in the crontab (journal rollups of %s):\n", id, t.ProjectDir)
		for _, j := range jobs {
			printJobStatus(c.Stdout, j)
		}
		if differs {
			fmt.Fprintf(c.Stdout, "the installed lines differ from what install writes now: run mf-lsp schedule install\n")
		}
	}
	return exitOK
}

func printJobStatus(w io.Writer, j session.JobStatus) {
	fmt.Fprintf(w, "  %-7s %s\n          %s\n", j.Name, j.LastRun, j.Line)
}

func scheduleSystemd(c *cli, verb string, t schedule.Target, systemctl string) int {
	sd, err := session.NewSystemd(systemctl, os.Getenv)
	if err != nil {
		return c.Fail("%v", err)
	}
	id := session.ScheduleID(t)
	switch verb {
	case "install":
		jobs, written, changed, err := sd.Install(t)
		if written {
			state := "installed"
			if !changed {
				state = "already installed"
			}
			fmt.Fprintf(c.Stdout, "%s: schedule %s as systemd user units in %s\n", state, id, sd.Dir)
		}
		if err != nil {
			return c.Fail("%v", err)
		}
		for _, j := range jobs {
			fmt.Fprintf(c.Stdout, "  %-7s %-20s %s\n", j.Name, j.When, j.Timer)
		}
	case "remove":
		present, removed, err := sd.Remove(t)
		if !present {
			fmt.Fprintf(c.Stdout, "not installed: no units of schedule %s in %s\n", id, sd.Dir)
			return exitOK
		}
		if removed {
			fmt.Fprintf(c.Stdout, "removed: schedule %s units from %s\n", id, sd.Dir)
		}
		if err != nil {
			return c.Fail("%v", err)
		}
	case "status":
		jobs := sd.Status(t)
		if len(jobs) == 0 {
			fmt.Fprintf(c.Stdout, "not installed: no units of schedule %s in %s (mf-lsp schedule install --systemd)\n", id, sd.Dir)
			return exitOK
		}
		fmt.Fprintf(c.Stdout, "schedule %s as systemd user timers in %s:\n", id, sd.Dir)
		for _, j := range jobs {
			printJobStatus(c.Stdout, j)
		}
	}
	return exitOK
}
