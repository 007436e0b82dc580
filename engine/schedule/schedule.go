// Package schedule puts the Fractal journal's rollups on the user's real
// scheduler (SPEC §6: "nightly 23:30, Sunday 23:45, the 1st at 00:15"): lines in
// the user's crontab (Debian's cron, edited with `crontab -l` / `crontab -`) or
// systemd user timers. Every job runs `mf-lsp rollup due`, so a night the
// machine was off is caught up by the next run.
//
// A job must work in cron's bare environment (PATH=/usr/bin:/bin, no
// MAGICFROG_HOME, the home folder as working directory): its command line
// names the binary, the data directory and the project by absolute path, puts
// the directory of the project's summarizer command on PATH, and appends its
// report to a log file in the data directory, which Status reads to say when
// each job last ran.
//
// Crontab lines are kept between two marker comments naming the schedule's
// ID (a hash of the data directory and the project), so installing again
// replaces them in place, removing takes exactly them out, and every other
// line of the user's crontab is kept byte for byte. Systemd units are files
// named mf-lsp-<ID>-<job>.{service,timer} in the user's unit folder; their
// timers are Persistent, so systemd itself also runs a missed job at boot.
package schedule

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Job is one of the seed's three rollup runs.
type Job struct {
	Name string // nightly, weekly, monthly
	// Cron is the job's five crontab time fields; Calendar the systemd
	// OnCalendar expression of the same times.
	Cron, Calendar string
	// DayOver runs `rollup due --day-over`: the evening jobs count today as
	// over, so that 23:30 refines today and Sunday 23:45 rolls up this week.
	DayOver bool
	What    string
	// Skills runs `mf-lsp skills --into` (Target.SkillsDir) instead of a rollup.
	Skills bool
}

// Jobs are the seed's: "one at 11:30 PM nightly for daily refinement, one
// Sunday at 11:45 PM for weekly rollup, one on the first of each month" (at
// 00:15, SPEC §6).
var Jobs = []Job{
	{Name: "nightly", Cron: "30 23 * * *", Calendar: "*-*-* 23:30:00", DayOver: true, What: "refine today (and catch up what is due)"},
	{Name: "weekly", Cron: "45 23 * * 0", Calendar: "Sun *-*-* 23:45:00", DayOver: true, What: "roll up this week on Sunday night"},
	{Name: "monthly", Cron: "15 0 1 * *", Calendar: "*-*-01 00:15:00", What: "roll up last month on the 1st"},
}

// SkillsJob keeps an agent host's skill folder in step with the skills in
// scope (`mf-lsp skills --into`): hourly, at 5 past. It is a job of a target
// with a SkillsDir only.
var SkillsJob = Job{Name: "skills", Cron: "5 * * * *", Calendar: "*-*-* *:05:00", Skills: true, What: "write the skills in scope into the host's skill folder"}

// AllJobs are every job a schedule may hold: what status and remove look for.
func AllJobs() []Job { return append(append([]Job(nil), Jobs...), SkillsJob) }

// Jobs are the target's jobs: the rollups, and SkillsJob when it has a
// SkillsDir.
func (t Target) Jobs() []Job {
	if t.SkillsDir == "" {
		return Jobs
	}
	return AllJobs()
}

// Target is what the jobs run: the binary and the memory they roll up.
type Target struct {
	Binary     string // absolute path of mf-lsp
	DataDir    string // absolute
	ProjectDir string // absolute
	// PathDirs are put before cron's /usr/bin:/bin on the job's PATH (the
	// folder of the project's summarizer command).
	PathDirs []string
	// SkillsDir, absolute, is the folder SkillsJob writes the skills into;
	// "" is no such job.
	SkillsDir string
}

// ID names a target's schedule: the first 8 hex digits of the SHA-256 of its
// data directory and project, so each project has its own jobs.
func (t Target) ID() string {
	h := sha256.Sum256([]byte(t.DataDir + "\n" + t.ProjectDir))
	return hex.EncodeToString(h[:])[:8]
}

// LogFile is where job j appends its reports.
func (t Target) LogFile(j Job) string {
	return filepath.Join(t.DataDir, "schedule", t.ID()+"-"+j.Name+".log")
}

// PATH is the job's PATH: PathDirs, then cron's default.
func (t Target) PATH() string {
	return strings.Join(append(append([]string(nil), t.PathDirs...), "/usr/bin", "/bin"), ":")
}

// Args is job j's command line, binary first.
func (t Target) Args(j Job) []string {
	if j.Skills {
		return []string{t.Binary, "skills", "--into", t.SkillsDir, "--data-dir", t.DataDir, "--project", t.ProjectDir, "--log", t.LogFile(j)}
	}
	a := []string{t.Binary, "rollup", "due"}
	if j.DayOver {
		a = append(a, "--day-over")
	}
	return append(a, "--data-dir", t.DataDir, "--project", t.ProjectDir, "--log", t.LogFile(j))
}

// Check refuses paths a crontab line cannot carry: relative ones, and those
// with a newline or a "%" (cron turns "%" into a newline).
func (t Target) Check() error {
	paths := append([]string{t.Binary, t.DataDir, t.ProjectDir}, t.PathDirs...)
	if t.SkillsDir != "" {
		paths = append(paths, t.SkillsDir)
	}
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return fmt.Errorf("schedule: %q is not an absolute path", p)
		}
		if strings.ContainsAny(p, "%\n\r") {
			return fmt.Errorf("schedule: %q holds %% or a line break, which a crontab line cannot carry", p)
		}
	}
	for _, p := range t.PathDirs {
		if strings.Contains(p, ":") {
			return fmt.Errorf("schedule: %q holds a colon and cannot be on PATH", p)
		}
	}
	return nil
}

// shellQuote quotes s for /bin/sh when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=+,@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Command is job j's crontab command: PATH set for it alone, then its Args.
func (t Target) Command(j Job) string {
	parts := []string{"PATH=" + shellQuote(t.PATH())}
	for _, a := range t.Args(j) {
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
}

func beginMarker(id string) string { return "# mf-lsp schedule " + id + " begin" }
func endMarker(id string) string   { return "# mf-lsp schedule " + id + " end" }

// CronBlock is the target's crontab lines, markers included, each line ending
// in "\n".
func CronBlock(t Target) string {
	var b strings.Builder
	id := t.ID()
	fmt.Fprintf(&b, "%s: journal rollups of %s (data %s); managed by `mf-lsp schedule`, edits here are replaced\n", beginMarker(id), t.ProjectDir, t.DataDir)
	for _, j := range t.Jobs() {
		fmt.Fprintf(&b, "# %s: %s\n%s %s\n", j.Name, j.What, j.Cron, t.Command(j))
	}
	b.WriteString(endMarker(id) + "\n")
	return b.String()
}

// block finds schedule id's block in a crontab: the byte range from its begin
// marker line to the end of its end marker line. ok is false without one; an
// begin marker without an end is an error (a hand edit: nothing is guessed).
func block(crontab, id string) (start, end int, ok bool, err error) {
	begin := beginMarker(id)
	i := lineStart(crontab, begin)
	if i < 0 {
		return 0, 0, false, nil
	}
	rest := crontab[i:]
	j := lineStart(rest, endMarker(id))
	if j < 0 {
		return 0, 0, false, fmt.Errorf("schedule: the crontab has the line %q but not %q: fix it by hand (crontab -e)", begin, endMarker(id))
	}
	e := i + j + len(endMarker(id))
	if e < len(crontab) && crontab[e] == '\n' {
		e++
	}
	return i, e, true, nil
}

// lineStart returns the offset of the first line of s that starts with
// prefix, or -1.
func lineStart(s, prefix string) int {
	off := 0
	for off <= len(s) {
		if strings.HasPrefix(s[off:], prefix) {
			return off
		}
		nl := strings.IndexByte(s[off:], '\n')
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	return -1
}

// Install returns crontab with the target's block: in place of the old one,
// else appended (after a line break if the crontab lacks a final one).
// changed is false when the crontab already holds exactly this block.
func Install(crontab string, t Target) (out string, changed bool, err error) {
	want := CronBlock(t)
	start, end, ok, err := block(crontab, t.ID())
	if err != nil {
		return crontab, false, err
	}
	if ok {
		if crontab[start:end] == want {
			return crontab, false, nil
		}
		return crontab[:start] + want + crontab[end:], true, nil
	}
	if crontab != "" && !strings.HasSuffix(crontab, "\n") {
		crontab += "\n"
	}
	return crontab + want, true, nil
}

// Remove returns crontab without schedule id's block; changed is false when
// there was none.
func Remove(crontab, id string) (out string, changed bool, err error) {
	start, end, ok, err := block(crontab, id)
	if err != nil || !ok {
		return crontab, false, err
	}
	return crontab[:start] + crontab[end:], true, nil
}

// Installed is a job line found in a crontab's block.
type Installed struct {
	Job     string // the job's name, from the comment line before it
	Line    string // the whole crontab line
	Command string // the line without its five time fields
}

// Find returns the job lines of schedule id's block in crontab.
func Find(crontab, id string) ([]Installed, error) {
	start, end, ok, err := block(crontab, id)
	if err != nil || !ok {
		return nil, err
	}
	var out []Installed
	name := ""
	for _, l := range strings.Split(strings.TrimSuffix(crontab[start:end], "\n"), "\n") {
		if strings.HasPrefix(l, "#") {
			if n, _, ok := strings.Cut(strings.TrimPrefix(l, "# "), ":"); ok && !strings.Contains(n, " ") {
				name = n
			}
			continue
		}
		f := strings.Fields(l)
		if len(f) < 6 {
			continue
		}
		out = append(out, Installed{Job: name, Line: l, Command: LineCommand(l)})
	}
	return out, nil
}

// LineCommand is the command of a crontab job line: the line without its five
// time fields ("" when it has fewer than six fields).
func LineCommand(line string) string {
	if len(strings.Fields(line)) < 6 {
		return ""
	}
	cmd := line
	for i := 0; i < 5; i++ {
		cmd = strings.TrimLeft(cmd, " \t")
		cmd = cmd[strings.IndexAny(cmd, " \t"):]
	}
	return strings.TrimLeft(cmd, " \t")
}

// BlockCommands returns the commands of every mf-lsp schedule block in a
// crontab, in order (what cron would run).
func BlockCommands(crontab string) []string {
	var out []string
	in := false
	for _, l := range strings.Split(crontab, "\n") {
		if strings.HasPrefix(l, "# mf-lsp schedule ") {
			in = strings.Contains(l, " begin")
			continue
		}
		if in && !strings.HasPrefix(l, "#") {
			if c := LineCommand(l); c != "" {
				out = append(out, c)
			}
		}
	}
	return out
}

// Units are the systemd user units of the target: per job a oneshot service
// running its command and a persistent timer, by file name.
func Units(t Target) map[string]string {
	out := map[string]string{}
	for _, j := range t.Jobs() {
		base := UnitBase(t, j)
		var exec []string
		for _, a := range t.Args(j) {
			exec = append(exec, systemdQuote(a))
		}
		out[base+".service"] = fmt.Sprintf(`# Managed by mf-lsp schedule: %s
[Unit]
Description=mf-lsp journal rollups (%s) of %s

[Service]
Type=oneshot
Environment=%s
ExecStart=%s
`, j.What, j.Name, t.ProjectDir, systemdQuote("PATH="+t.PATH()), strings.Join(exec, " "))
		out[base+".timer"] = fmt.Sprintf(`# Managed by mf-lsp schedule: %s
[Unit]
Description=mf-lsp journal rollups (%s) of %s

[Timer]
OnCalendar=%s
Persistent=true

[Install]
WantedBy=timers.target
`, j.What, j.Name, t.ProjectDir, j.Calendar)
	}
	return out
}

// UnitBase is the file name of job j's units without the extension.
func UnitBase(t Target, j Job) string { return "mf-lsp-" + t.ID() + "-" + j.Name }

// systemdQuote quotes a word for a unit file's ExecStart or Environment.
func systemdQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"'\\$%;") {
		return s
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", "$$", "%", "%%")
	return `"` + r.Replace(s) + `"`
}

// UnitDir is the user's systemd unit folder: $XDG_CONFIG_HOME/systemd/user,
// else ~/.config/systemd/user.
func UnitDir(getenv func(string) string) (string, error) {
	if x := getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "systemd", "user"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".config", "systemd", "user"), nil
}

// LastRun reads job j's log: the time of its last run and how it ended
// ("exit 0"), or "" when it never ran.
func LastRun(t Target, j Job) (when, result string) {
	data, err := os.ReadFile(t.LogFile(j))
	if err != nil {
		return "", ""
	}
	for _, l := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(l, "=== exit "):
			result = strings.TrimPrefix(l, "=== ")
		case strings.HasPrefix(l, "=== "):
			f := strings.Fields(l)
			if len(f) >= 2 {
				when, result = f[1], "running or interrupted"
			}
		}
	}
	return when, result
}
