package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/engine/schedule"
)

// TestScheduleRealCrontab installs the schedule into the real crontab of the
// user running the tests (Debian's cron), runs every installed line the way
// cron does (env -i, PATH=/usr/bin:/bin, /bin/sh -c, in $HOME), checks that
// the journal was rolled up and that status reads the logs, then removes the
// schedule and checks that the crontab is exactly what it was. It touches a
// real crontab, so it runs only with MF_LSP_REAL_CRONTAB=1 (as .ci/run sets,
// with cron installed and $MF_LSP built); the same steps run against a
// stand-in crontab in testdata/script/schedule.txtar everywhere.
func TestScheduleRealCrontab(t *testing.T) {
	if os.Getenv("MF_LSP_REAL_CRONTAB") != "1" {
		t.Skip("set MF_LSP_REAL_CRONTAB=1 (and MF_LSP) to edit the real crontab")
	}
	bin := os.Getenv("MF_LSP")
	if bin == "" {
		t.Fatal("MF_LSP_REAL_CRONTAB=1 needs MF_LSP, the mf-lsp binary the jobs run")
	}
	bin, _ = filepath.Abs(bin)
	if _, err := exec.LookPath("crontab"); err != nil {
		t.Fatalf("MF_LSP_REAL_CRONTAB=1 but no crontab: %v (Debian: apt-get install cron)", err)
	}
	before, had := crontabList(t)
	t.Cleanup(func() {
		// Put the user's crontab back whatever happened.
		if had {
			cmd := exec.Command("crontab", "-")
			cmd.Stdin = strings.NewReader(before)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("restoring the crontab: %v: %s", err, out)
			}
		} else {
			_ = exec.Command("crontab", "-r").Run()
		}
	})

	dir := t.TempDir()
	demo, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "demo"))
	if err := copyTree(demo, dir); err != nil {
		t.Fatal(err)
	}
	data, project := filepath.Join(dir, "data"), filepath.Join(dir, "project")
	mf := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = project
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("mf-lsp %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	out := mf("schedule", "install", "--data-dir", data)
	if !strings.HasPrefix(out, "installed: schedule ") {
		t.Fatalf("install: %s", out)
	}
	if again := mf("schedule", "install", "--data-dir", data); !strings.HasPrefix(again, "already installed: ") {
		t.Errorf("install again: %s", again)
	}
	table, _ := crontabList(t)
	if !strings.HasPrefix(table, before) {
		t.Errorf("the user's lines changed:\nbefore\n%s\nnow\n%s", before, table)
	}
	ran := 0
	for _, cmdline := range schedule.BlockCommands(table) {
		if !strings.Contains(cmdline, project) {
			continue // another project's schedule of this user
		}
		cmd := exec.Command("env", "-i", "HOME="+dir, "LOGNAME=cron", "SHELL=/bin/sh", "PATH=/usr/bin:/bin", "/bin/sh", "-c", cmdline)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("cron line %q: %v\n%s", cmdline, err, out)
		}
		ran++
	}
	if ran != 3 {
		t.Fatalf("ran %d installed lines, want 3:\n%s", ran, table)
	}
	if _, err := os.Stat(filepath.Join(project, ".magicfrog/memory/journal/refined/2026-11-23.md")); err != nil {
		t.Errorf("the nightly job did not refine 2026-11-23: %v", err)
	}
	if st := mf("schedule", "status", "--data-dir", data); strings.Count(st, ", exit 0") != 3 {
		t.Errorf("status:\n%s", st)
	}
	if out := mf("schedule", "remove", "--data-dir", data); !strings.HasPrefix(out, "removed: ") {
		t.Errorf("remove: %s", out)
	}
	if after, _ := crontabList(t); after != before {
		t.Errorf("after remove the crontab is\n%s\nwant\n%s", after, before)
	}
}

// crontabList returns the current crontab; had is false when there is none.
func crontabList(t *testing.T) (string, bool) {
	t.Helper()
	out, err := exec.Command("crontab", "-l").Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) && strings.Contains(string(ee.Stderr), "no crontab") {
		return "", false
	}
	if err != nil {
		t.Fatalf("crontab -l: %v", err)
	}
	return string(out), true
}
