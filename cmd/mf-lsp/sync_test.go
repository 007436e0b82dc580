package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sync exits 5 and names rule and line when a note to send holds a secret;
// the token is assembled here so that no file of the repository holds one.
func TestSyncHoldsSecrets(t *testing.T) {
	dir := t.TempDir()
	data, proj := filepath.Join(dir, "data"), filepath.Join(dir, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	run1 := func(stdin string, args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := run(append(args, "--data-dir", data, "--project", proj), strings.NewReader(stdin), &out, &errb)
		return code, out.String() + errb.String()
	}
	if code, out := run1("", "init"); code != 0 {
		t.Fatal(out)
	}
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
