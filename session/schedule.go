package session

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/rollup"
	"github.com/magicfrog/mf-lsp/engine/schedule"
)

// The journal's rollup jobs in the user's own scheduler (`mf-lsp schedule`,
// docs/journal.md): what the jobs run (ScheduleTarget), and their install,
// removal and status in the crontab (crontab -l / crontab -) or as systemd
// user units (systemctl --user). engine/schedule is the pure text; running
// the programs and writing the unit files is here.

// ScheduleTarget is what the jobs run for m: binary (made absolute), the
// data directory and project as absolute paths, and the folder of the
// project's summarizer command (resolved on this PATH, as cron's will not
// have it). The warnings say why the jobs may fail.
func ScheduleTarget(m *engine.Memory, binary string) (schedule.Target, []string, error) {
	var warnings []string
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

// CheckScheduleInstall refuses to install jobs for a memory without a
// journal layer: every run would fail.
func CheckScheduleInstall(m *engine.Memory) error {
	_, err := rollup.FractalLayer(m)
	return err
}

// ScheduledJob is one job as a schedule lists it: its name, when it runs
// (a crontab line's time fields, or systemd's OnCalendar), what it runs,
// and its timer unit (systemd).
type ScheduledJob struct {
	Name    string
	When    string
	Command string
	Timer   string
}

// JobStatus is an installed job: its name, when it last ran (from its log:
// "never ran", or "last ran WHEN, RESULT") and the line that installs it.
type JobStatus struct {
	Name    string
	LastRun string
	Line    string
}

// jobLastRun is when the job named name last ran, from its log.
func jobLastRun(t schedule.Target, name string) string {
	last := "never ran"
	for _, j := range schedule.AllJobs() {
		if j.Name == name {
			if when, res := schedule.LastRun(t, j); when != "" {
				last = "last ran " + when + ", " + res
			}
		}
	}
	return last
}

// ScheduleID is the schedule's name for the project t runs: the marker of
// its crontab block and of its units.
func ScheduleID(t schedule.Target) string { return t.ID() }

// CronInstall puts t's jobs into the crontab of program crontab, replacing
// the schedule's block when there is one; changed is false when the block
// was already as it is. It returns the jobs installed.
func CronInstall(crontab string, t schedule.Target) (jobs []ScheduledJob, changed bool, err error) {
	cur, err := readCrontab(crontab)
	if err != nil {
		return nil, false, err
	}
	next, changed, err := schedule.Install(cur, t)
	if err != nil {
		return nil, false, err
	}
	if changed {
		if err := writeCrontab(crontab, next); err != nil {
			return nil, false, err
		}
	}
	for _, j := range t.Jobs() {
		jobs = append(jobs, ScheduledJob{Name: j.Name, When: j.Cron, Command: t.Command(j)})
	}
	return jobs, changed, nil
}

// CronRemove takes t's schedule out of the crontab; changed is false when
// it was not there.
func CronRemove(crontab string, t schedule.Target) (changed bool, err error) {
	cur, err := readCrontab(crontab)
	if err != nil {
		return false, err
	}
	next, changed, err := schedule.Remove(cur, t.ID())
	if err != nil || !changed {
		return false, err
	}
	return true, writeCrontab(crontab, next)
}

// CronStatus lists t's jobs in the crontab (none: not installed); differs
// says the installed lines are not what install writes now.
func CronStatus(crontab string, t schedule.Target) (jobs []JobStatus, differs bool, err error) {
	cur, err := readCrontab(crontab)
	if err != nil {
		return nil, false, err
	}
	found, err := schedule.Find(cur, t.ID())
	if err != nil || len(found) == 0 {
		return nil, false, err
	}
	skills := false
	for _, in := range found {
		jobs = append(jobs, JobStatus{Name: in.Job, LastRun: jobLastRun(t, in.Job), Line: in.Line})
		skills = skills || in.Job == schedule.SkillsJob.Name
	}
	// The skills job's folder is install's flag: compared only when given.
	differs = !strings.Contains(cur, schedule.CronBlock(t)) && (t.SkillsDir != "" || !skills)
	return jobs, differs, nil
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

// Systemd is a schedule's systemd user units: the folder they live in
// (schedule.UnitDir) and the systemctl program that enables them.
type Systemd struct {
	Dir       string
	Systemctl string
}

// NewSystemd finds the user's unit folder in the environment getenv reads.
func NewSystemd(systemctl string, getenv func(string) string) (Systemd, error) {
	dir, err := schedule.UnitDir(getenv)
	return Systemd{Dir: dir, Systemctl: systemctl}, err
}

// jobs are the jobs a schedule of t may hold: for install t's own, else
// every job, the skills job only when its timer is there (its folder only
// matters to install).
func (s Systemd) jobs(t *schedule.Target, install bool) []schedule.Job {
	if install {
		return t.Jobs()
	}
	if t.SkillsDir == "" {
		t.SkillsDir = "/"
	}
	var jobs []schedule.Job
	for _, j := range schedule.AllJobs() {
		if _, err := os.Stat(filepath.Join(s.Dir, schedule.UnitBase(*t, j)+".timer")); err == nil || j.Name != schedule.SkillsJob.Name {
			jobs = append(jobs, j)
		}
	}
	return jobs
}

func (s Systemd) timers(t schedule.Target, jobs []schedule.Job) []string {
	var timers []string
	for _, j := range jobs {
		timers = append(timers, schedule.UnitBase(t, j)+".timer")
	}
	return timers
}

func (s Systemd) ctl(args ...string) error {
	var errb bytes.Buffer
	cmd := exec.Command(s.Systemctl, append([]string{"--user"}, args...)...)
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s --user %s: %v: %s", s.Systemctl, strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return nil
}

// Install writes t's units (those that differ), reloads systemd and enables
// the timers. written: the units are on disk (changed: some were new or
// different), also when err says systemctl failed after.
func (s Systemd) Install(t schedule.Target) (jobs []ScheduledJob, written, changed bool, err error) {
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return nil, false, false, err
	}
	units := schedule.Units(t)
	names := make([]string, 0, len(units))
	for name := range units {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := filepath.Join(s.Dir, name)
		if old, err := os.ReadFile(p); err == nil && string(old) == units[name] {
			continue
		}
		if err := writeFileAtomic(p, []byte(units[name])); err != nil {
			return nil, false, false, err
		}
		changed = true
	}
	all := s.jobs(&t, true)
	timers := s.timers(t, all)
	if err := s.ctl("daemon-reload"); err != nil {
		return nil, true, changed, fmt.Errorf("units written, but %v; run: systemctl --user daemon-reload && systemctl --user enable --now %s", err, strings.Join(timers, " "))
	}
	if err := s.ctl(append([]string{"enable", "--now"}, timers...)...); err != nil {
		return nil, true, changed, fmt.Errorf("units written, but %v", err)
	}
	for _, j := range all {
		jobs = append(jobs, ScheduledJob{Name: j.Name, When: j.Calendar, Timer: schedule.UnitBase(t, j) + ".timer"})
	}
	return jobs, true, changed, nil
}

// Remove disables t's timers and deletes its units. present is false when
// none was there; removed: the files are gone, also when err says
// systemctl failed.
func (s Systemd) Remove(t schedule.Target) (present, removed bool, err error) {
	jobs := s.jobs(&t, false)
	units := schedule.Units(t)
	for name := range units {
		if _, err := os.Stat(filepath.Join(s.Dir, name)); err == nil {
			present = true
		}
	}
	if !present {
		return false, false, nil
	}
	// Disabling a timer that is already gone is fine; a failing systemctl
	// is reported, and the files are removed anyway.
	ctlErr := s.ctl(append([]string{"disable", "--now"}, s.timers(t, jobs)...)...)
	for name := range units {
		if err := os.Remove(filepath.Join(s.Dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return true, false, err
		}
	}
	if err := s.ctl("daemon-reload"); ctlErr == nil {
		ctlErr = err
	}
	return true, true, ctlErr
}

// Status lists t's timers that are installed (none: not installed).
func (s Systemd) Status(t schedule.Target) []JobStatus {
	var out []JobStatus
	for _, j := range s.jobs(&t, false) {
		p := filepath.Join(s.Dir, schedule.UnitBase(t, j)+".timer")
		if _, err := os.Stat(p); err != nil {
			continue
		}
		out = append(out, JobStatus{Name: j.Name, LastRun: jobLastRun(t, j.Name), Line: "OnCalendar=" + j.Calendar + "  " + filepath.Base(p)})
	}
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
