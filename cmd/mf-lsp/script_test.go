package main

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/magicfrog/mf-lsp/engine/schedule"
)

// TestMain lets the scripts run `mf-lsp` in-process: the test binary is the
// command.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"mf-lsp": func() { os.Exit(mainExit(os.Args[1:])) },
	})
}

// TestScript runs testdata/script/*.txtar. Besides the standard commands a
// script can say
//
//	demo DIR                  copy testdata/demo (data/ and project/) into $WORK/DIR
//	exitcode N PROG [ARGS...] run PROG like exec, and want exit code N exactly
//	mkfifo PATH               make a named pipe (hostile trees)
//	cronrun FILE              run every job line of the mf-lsp blocks of the
//	                          crontab FILE as cron would: /bin/sh -c, under
//	                          env -i with cron's PATH=/usr/bin:/bin, in $HOME
//	                          (set to $WORK)
//
// (`! exec` only says "not 0"; the CLI's exit codes 1, 2 and 3 mean different
// things.)
func TestScript(t *testing.T) {
	demo, err := filepath.Abs(filepath.Join("..", "..", "testdata", "demo"))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("..", "..", "testdata", "script"),
		Setup: func(env *testscript.Env) error {
			// Nothing may fall back to a real data directory.
			env.Setenv("MAGICFROG_HOME", "")
			env.Setenv("XDG_DATA_HOME", "")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"demo": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: demo DIR")
				}
				ts.Check(copyTree(demo, ts.MkAbs(args[0])))
			},
			"mkfifo": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: mkfifo PATH")
				}
				ts.Check(mkfifo(ts.MkAbs(args[0])))
			},
			"cronrun": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: cronrun FILE")
				}
				ran := 0
				for _, cmdline := range schedule.BlockCommands(ts.ReadFile(args[0])) {
					work := ts.Getenv("WORK")
					cmd := exec.Command("env", "-i", "HOME="+work, "LOGNAME=cron", "SHELL=/bin/sh", "PATH=/usr/bin:/bin", "/bin/sh", "-c", cmdline)
					cmd.Dir = work
					out, err := cmd.CombinedOutput()
					ts.Logf("cron: %s\n%s", cmdline, out)
					if err != nil {
						ts.Fatalf("cron job %q: %v", cmdline, err)
					}
					ran++
				}
				if ran == 0 {
					ts.Fatalf("no job lines in %s", args[0])
				}
			},
			"exitcode": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: exitcode N PROG [ARGS...]")
				}
				want, err := strconv.Atoi(args[0])
				ts.Check(err)
				err = ts.Exec(args[1], args[2:]...)
				got := 0
				var ee *exec.ExitError
				switch {
				case errors.As(err, &ee):
					got = ee.ExitCode()
				case err != nil:
					ts.Fatalf("%s: %v", args[1], err)
				}
				if got != want {
					ts.Fatalf("%s exited %d, want %d", args[1], got, want)
				}
			},
		},
	})
}

// copyTree copies the regular files and folders below src into dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}
