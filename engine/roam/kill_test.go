//go:build unix

package roam

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
)

// TestMain lets the kill test run a sync in a child process that SIGKILLs
// itself at a chosen step.
func TestMain(m *testing.M) {
	if at := os.Getenv("MF_ROAM_KILL_AT"); at != "" {
		kill := func(s string) {
			if s == at {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
		}
		mem, err := engine.Open(engine.Options{DataDir: os.Getenv("MF_ROAM_DATA"), ProjectDir: os.Getenv("MF_ROAM_PROJECT")})
		if err == nil {
			_, err = Sync(context.Background(), Options{Memory: mem, Remote: os.Getenv("MF_ROAM_REMOTE"), OnStep: kill})
		}
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0) // the step was never reached
	}
	os.Exit(m.Run())
}

// TestKillDuringSync: a sync SIGKILLed at each step leaves the memory tree
// unchanged or fully merged, and the next sync completes with nothing lost.
func TestKillDuringSync(t *testing.T) {
	for _, at := range []string{"fetched", "local-written", "pushed"} {
		t.Run(at, func(t *testing.T) {
			dir := t.TempDir()
			remote := bareRemote(t, dir)
			a, b := newMachine(t, dir, "a"), newMachine(t, dir, "b")
			a.write(engine.User, "", "style.md", "one\ntwo\nthree\n")
			syncUntilQuiet(t, remote, a, b)
			a.write(engine.User, "", "style.md", "ONE\ntwo\nthree\n")
			a.write(engine.User, "", "new-a.md", "from a\n")
			a.sync(remote)
			b.write(engine.User, "", "style.md", "one\ntwo\nTHREE\n")
			b.write(engine.User, "", "new-b.md", "from b\n")

			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "MF_ROAM_KILL_AT="+at, "MF_ROAM_DATA="+b.data, "MF_ROAM_PROJECT="+b.proj, "MF_ROAM_REMOTE="+remote)
			out, err := cmd.CombinedOutput()
			ee, ok := err.(*exec.ExitError)
			if !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("the child was not killed at %s: %v\n%s", at, err, out)
			}
			b.reopen()
			// Unchanged or fully merged: the note is one of the two versions
			// or their merge, never torn.
			got, _ := b.read("user/style.md")
			if !strings.Contains(got, "one\ntwo\nTHREE\n") && !strings.Contains(got, "ONE\ntwo\nTHREE\n") {
				t.Fatalf("after the kill:\n%s", got)
			}
			syncUntilQuiet(t, remote, a, b)
			sameChains(t, a, b)
			got, _ = a.read("user/style.md")
			if !strings.Contains(got, "ONE\ntwo\nTHREE\n") {
				t.Fatalf("not merged:\n%s", got)
			}
			for _, p := range []string{"user/new-a.md", "user/new-b.md"} {
				if _, ok := a.read(p); !ok {
					t.Errorf("%s lost", p)
				}
			}
			if _, err := os.Stat(filepath.Join(b.data, "sync", "state.json")); err != nil {
				t.Error(err)
			}
		})
	}
}
