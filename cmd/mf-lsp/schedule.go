package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/rollup"
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
	systemd := c.fs.Bool("systemd", false, "use systemd user timers instead of the crontab")
	crontab := c.fs.String("crontab", "crontab", "the crontab `PROGRAM`")
	systemctl := c.fs.String("systemctl", "systemctl", "the systemctl `PROGRAM`")
	binary := c.fs.String("binary", "", "the mf-lsp `PATH` the jobs run (default: this one)")
	skillsInto := c.fs.String("skills-into", "", "install: also run `mf-lsp skills --into DIR` hourly (e.g. the project's .claude/skills)")
	pos, code, done := c.parse(args, 1, 1)
	if done {
		return code
	}
	verb := pos[0]
	if verb != "install" && verb != "status" && verb != "remove" {
		return c.usageError("unknown action %q: want install, status or remove", verb)
	}
	m, err := c.open(verb == "install")
	if err != nil {
		return c.fail("%v", err)
	}
	t, warnings, err := scheduleTarget(m, *binary)
	if err != nil {
		return c.fail("%v", err)
	}
	if *skillsInto != "" {
		if t.SkillsDir, err = filepath.Abs(*skillsInto); err != nil {
			return c.fail("%v", err)
		}
		if err := session.CheckHostFolder(m.Paths, t.SkillsDir); err != nil {
			fmt.Fprintf(stderr, "mf-lsp schedule: --skills-into: %v\n", err)
			return exitUsage
		}
	}
	if verb == "install" {
		if err := c.requireDataDir(m); err != nil {
			return c.fail("%v", err)
		}
		if _, err := rollup.FractalLayer(m); err != nil {
			return c.fail("%v", err)
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

// scheduleTarget is what the jobs run for this memory: this binary (or
// --binary), the data directory and project as absolute paths, and the folder
// of the project's summarizer command (resolved on this PATH, as cron's will
// not have it).
func scheduleTarget(m *engine.Memory, binary string) (schedule.Target, []string, error) {
	var warnings []string
	if binary == "" {
		binary = selfPath()
	}
	bin, err := filepath.Abs(binary)
	if err != nil {
		return schedule.Target{}, nil, err
	}
	data, err := filepath.Abs(m.Paths.DataDir)
	if err != nil {
		return schedule.Target{}, nil, err
	}
	project, err := filepath.Abs(m.Paths.ProjectDir)
	if err != nil {
		return schedule.Target{}, nil, err
	}
	t := schedule.Target{Binary: bin, DataDir: data, ProjectDir: project}
	if s := strings.TrimSpace(m.Binding().Summarizer); s != "" && s != "builtin" {
		words, err := rollup.SplitCommand(s)
		switch {
		case err != nil || len(words) == 0:
			warnings = append(warnings, fmt.Sprintf("the project's summarizer %q does not parse: the jobs will fail until it does", s))
		case strings.ContainsRune(words[0], filepath.Separator):
			if filepath.IsAbs(words[0]) {
				t.PathDirs = append(t.PathDirs, filepath.Dir(words[0]))
			} else {
				warnings = append(warnings, fmt.Sprintf("the project's summarizer %q is a relative path: the jobs run in the home folder", words[0]))
			}
		default:
			if p, err := exec.LookPath(words[0]); err == nil {
				if abs, err := filepath.Abs(p); err == nil && filepath.Dir(abs) != "/usr/bin" && filepath.Dir(abs) != "/bin" {
					t.PathDirs = append(t.PathDirs, filepath.Dir(abs))
				}
			} else {
				warnings = append(warnings, fmt.Sprintf("the project's summarizer %q is not on PATH: the jobs will fail until it is", words[0]))
			}
		}
	}
	return t, warnings, t.Check()
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
	cur, err := readCrontab(crontab)
	if err != nil {
		return c.fail("%v", err)
	}
	id := t.ID()
	switch verb {
	case "install":
		next, changed, err := schedule.Install(cur, t)
		if err != nil {
			return c.fail("%v", err)
		}
		if changed {
			if err := writeCrontab(crontab, next); err != nil {
				return c.fail("%v", err)
			}
		}
		state := "installed"
		if !changed {
			state = "already installed"
		}
		fmt.Fprintf(c.stdout, "%s: schedule %s in the crontab (journal rollups of %s)\n", state, id, t.ProjectDir)
		for _, j := range t.Jobs() {
			fmt.Fprintf(c.stdout, "  %-7s %-12s %s\n", j.Name, j.Cron, t.Command(j))
		}
	case "remove":
		next, changed, err := schedule.Remove(cur, id)
		if err != nil {
			return c.fail("%v", err)
		}
		if !changed {
			fmt.Fprintf(c.stdout, "not installed: no schedule %s in the crontab\n", id)
			return exitOK
		}
		if err := writeCrontab(crontab, next); err != nil {
			return c.fail("%v", err)
		}
		fmt.Fprintf(c.stdout, "removed: schedule %s from the crontab\n", id)
	case "status":
		found, err := schedule.Find(cur, id)
		if err != nil {
			return c.fail("%v", err)
		}
		if len(found) == 0 {
			fmt.Fprintf(c.stdout, "not installed: no schedule %s in the crontab (mf-lsp schedule install)\n", id)
			return exitOK
		}
		fmt.Fprintf(c.stdout, "schedule %s in the crontab (journal rollups of %s):\n", id, t.ProjectDir)
		skills := false
		for _, in := range found {
			printJobStatus(c.stdout, t, in.Job, in.Line)
			skills = skills || in.Job == schedule.SkillsJob.Name
		}
		// The skills job's folder is install's flag: compared only when given.
		if want := schedule.CronBlock(t); !strings.Contains(cur, want) && (t.SkillsDir != "" || !skills) {
			fmt.Fprintf(c.stdout, "the installed lines differ from what install writes now: run mf-lsp schedule install\n")
		}
	}
	return exitOK
}

func printJobStatus(w io.Writer, t schedule.Target, name, line string) {
	last := "never ran"
	for _, j := range schedule.AllJobs() {
		if j.Name == name {
			if when, res := schedule.LastRun(t, j); when != "" {
				last = "last ran " + when + ", " + res
			}
		}
	}
	fmt.Fprintf(w, "  %-7s %s\n          %s\n", name, last, line)
}

// readCrontab runs `crontab -l`; a user without a crontab has an empty one.
func readCrontab(prog string) (string, error) {
	var out, errb bytes.Buffer
	cmd := exec.Command(prog, "-l")
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.String(), nil
	case errors.As(err, &ee) && strings.Contains(strings.ToLower(errb.String()), "no crontab"):
		return "", nil
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, os.ErrNotExist):
		return "", fmt.Errorf("%s not found: install cron (Debian: apt-get install cron), or use --systemd", prog)
	}
	return "", fmt.Errorf("%s -l: %v: %s", prog, err, strings.TrimSpace(errb.String()))
}

// writeCrontab replaces the user's crontab with text (`crontab -`).
func writeCrontab(prog, text string) error {
	var errb bytes.Buffer
	cmd := exec.Command(prog, "-")
	cmd.Stdin, cmd.Stderr = strings.NewReader(text), &errb
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s -: %v: %s", prog, err, strings.TrimSpace(errb.String()))
	}
	return nil
}

func scheduleSystemd(c *cli, verb string, t schedule.Target, systemctl string) int {
	dir, err := schedule.UnitDir(os.Getenv)
	if err != nil {
		return c.fail("%v", err)
	}
	jobs := t.Jobs()
	if verb != "install" {
		// status and remove find every job a schedule may hold, the skills
		// job too (its folder only matters to install).
		if t.SkillsDir == "" {
			t.SkillsDir = "/"
		}
		jobs = nil
		for _, j := range schedule.AllJobs() {
			if _, err := os.Stat(filepath.Join(dir, schedule.UnitBase(t, j)+".timer")); err == nil || j.Name != schedule.SkillsJob.Name {
				jobs = append(jobs, j)
			}
		}
	}
	units := schedule.Units(t)
	var timers []string
	for _, j := range jobs {
		timers = append(timers, schedule.UnitBase(t, j)+".timer")
	}
	ctl := func(args ...string) error {
		var errb bytes.Buffer
		cmd := exec.Command(systemctl, append([]string{"--user"}, args...)...)
		cmd.Stderr = &errb
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s --user %s: %v: %s", systemctl, strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
		}
		return nil
	}
	switch verb {
	case "install":
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return c.fail("%v", err)
		}
		changed := 0
		for _, name := range sortedNames(units) {
			p := filepath.Join(dir, name)
			if old, err := os.ReadFile(p); err == nil && string(old) == units[name] {
				continue
			}
			if err := writeFileAtomic(p, []byte(units[name])); err != nil {
				return c.fail("%v", err)
			}
			changed++
		}
		state := "installed"
		if changed == 0 {
			state = "already installed"
		}
		fmt.Fprintf(c.stdout, "%s: schedule %s as systemd user units in %s\n", state, t.ID(), dir)
		if err := ctl("daemon-reload"); err != nil {
			return c.fail("units written, but %v; run: systemctl --user daemon-reload && systemctl --user enable --now %s", err, strings.Join(timers, " "))
		}
		if err := ctl(append([]string{"enable", "--now"}, timers...)...); err != nil {
			return c.fail("units written, but %v", err)
		}
		for _, j := range jobs {
			fmt.Fprintf(c.stdout, "  %-7s %-20s %s\n", j.Name, j.Calendar, schedule.UnitBase(t, j)+".timer")
		}
	case "remove":
		present := false
		for name := range units {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				present = true
			}
		}
		if !present {
			fmt.Fprintf(c.stdout, "not installed: no units of schedule %s in %s\n", t.ID(), dir)
			return exitOK
		}
		// Disabling a timer that is already gone is fine; a failing systemctl
		// is reported, and the files are removed anyway.
		ctlErr := ctl(append([]string{"disable", "--now"}, timers...)...)
		for name := range units {
			if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return c.fail("%v", err)
			}
		}
		if err := ctl("daemon-reload"); ctlErr == nil {
			ctlErr = err
		}
		fmt.Fprintf(c.stdout, "removed: schedule %s units from %s\n", t.ID(), dir)
		if ctlErr != nil {
			return c.fail("%v", ctlErr)
		}
	case "status":
		n := 0
		for _, j := range jobs {
			p := filepath.Join(dir, schedule.UnitBase(t, j)+".timer")
			if _, err := os.Stat(p); err != nil {
				continue
			}
			if n == 0 {
				fmt.Fprintf(c.stdout, "schedule %s as systemd user timers in %s:\n", t.ID(), dir)
			}
			n++
			printJobStatus(c.stdout, t, j.Name, "OnCalendar="+j.Calendar+"  "+filepath.Base(p))
		}
		if n == 0 {
			fmt.Fprintf(c.stdout, "not installed: no units of schedule %s in %s (mf-lsp schedule install --systemd)\n", t.ID(), dir)
		}
	}
	return exitOK
}

func sortedNames(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// writeFileAtomic writes a unit file through a temporary file and a rename.
func writeFileAtomic(p string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(p), ".mf-lsp-unit-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p)
}
