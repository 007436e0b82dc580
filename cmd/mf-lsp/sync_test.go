package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/engine/roam"
)

// syncCLI makes a data directory and a project, runs init, and returns a
// runner of mf-lsp commands on them (exit code, stdout and stderr).
func syncCLI(t *testing.T) (dir, data string, run1 func(stdin string, args ...string) (int, string)) {
	t.Helper()
	dir = t.TempDir()
	data, proj := filepath.Join(dir, "data"), filepath.Join(dir, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	run1 = func(stdin string, args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := run(append(args, "--data-dir", data, "--project", proj), strings.NewReader(stdin), &out, &errb)
		return code, out.String() + errb.String()
	}
	if code, out := run1("", "init"); code != 0 {
		t.Fatal(out)
	}
	return dir, data, run1
}

// sync exits 5 and names rule and line when a note to send holds a secret;
// the token is assembled here so that no file of the repository holds one.
func TestSyncHoldsSecrets(t *testing.T) {
	dir, data, run1 := syncCLI(t)
	token := "ghp_" + strings.Repeat("aB3dE5fG7h", 3) + "123456"
	if code, out := run1("GitHub: octo\ntoken: "+token+"\n", "write", "--dimension", "user", "--key", "sticky-notes/accounts.md", "--expect-revision", "0"); code != 0 {
		t.Fatal(out)
	}
	code, out := run1("", "sync", "--remote", filepath.Join(dir, "remote.git"))
	if code != exitSecret || !strings.Contains(out, "held back: user/sticky-notes/accounts.md:6: secret (github-pat)") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	code, out = run1("", "check", filepath.Join(data, "memory", "user", "sticky-notes", "accounts.md"))
	if !strings.Contains(out, "secret") {
		t.Fatalf("check: exit %d\n%s", code, out)
	}
}

// Issue 22: a token in magicfrog.json, or used as a note's file name, is held
// back like one in a body (exit 5), and the notes beside it still go.
func TestSyncHoldsSecretsInConfigAndNames(t *testing.T) {
	dir, data, run1 := syncCLI(t)
	token := "ghp_" + strings.Repeat("aB3dE5fG7h", 3) + "123456"
	if err := os.WriteFile(filepath.Join(data, "magicfrog.json"), []byte(`{"agents":[],"github":"`+token+`"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{token + ".md", "plain.md"} {
		if code, out := run1("nothing secret\n", "write", "--dimension", "user", "--key", key, "--expect-revision", "0"); code != 0 {
			t.Fatal(out)
		}
	}
	code, out := run1("", "sync", "--remote", filepath.Join(dir, "remote.git"))
	for _, want := range []string{
		"held back: magicfrog.json:1: secret (github-pat)",
		"held back: user/" + token + ".md: secret in the file name (github-pat); rename it",
		"sent: add user/plain.md (revision 1)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q", want)
		}
	}
	if code != exitSecret {
		t.Errorf("exit %d", code)
	}
	if t.Failed() {
		t.Log(out)
	}
}

// A name a remote chose is printed quoted when it holds a control
// character: it can neither split a line nor reach the terminal as an
// escape sequence.
func TestSyncReportQuotesControlCharacters(t *testing.T) {
	var out bytes.Buffer
	printSyncReport(&out, &roam.Report{
		Ignored:    []roam.Held{{Path: "user/x\x1b[2J.md", Reason: "bound to machine \x1b]0;owned\x07"}},
		HeldConfig: []roam.HeldConfig{{Path: "magicfrog.json", Exposes: []string{"agent/moe/a\nb.md: would be every agent's"}}},
	}, false)
	if strings.ContainsAny(out.String(), "\x1b\x07") || strings.Contains(out.String(), "a\nb.md") {
		t.Fatalf("%q", out.String())
	}
	if !strings.Contains(out.String(), `not taken: "user/x\x1b[2J.md"`) {
		t.Errorf("%s", out.String())
	}
}
