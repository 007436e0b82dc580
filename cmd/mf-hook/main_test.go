package main

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestMain removes the binaries the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// build compiles ./cmd/mf-lsp and ./cmd/mf-hook into one folder, once per
// test run: the tests run the binaries as a hook does.
func build(t *testing.T) (mfLSP, mfHook string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds both binaries")
	}
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "mf-hook-test-"); buildErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", binDir+string(filepath.Separator), "../mf-lsp", ".")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(binDir, "mf-lsp"), filepath.Join(binDir, "mf-hook")
}

// parityCase is one line of testdata/parity.txtar's cases.
type parityCase struct {
	name, stdin string
	args        []string
	want        int
}

func parityCases(t *testing.T, a *txtar.Archive) []parityCase {
	t.Helper()
	var cases []parityCase
	for _, f := range a.Files {
		if f.Name != "cases" {
			continue
		}
		for i, line := range strings.Split(string(f.Data), "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			cols := strings.Split(line, "|")
			if len(cols) != 4 {
				t.Fatalf("cases line %d: want NAME | STDIN | ARGS | want N: %q", i+1, line)
			}
			c := parityCase{name: strings.TrimSpace(cols[0]), args: strings.Fields(cols[2])}
			if s := strings.TrimSpace(cols[1]); s != "" {
				var err error
				if c.stdin, err = strconv.Unquote(s); err != nil {
					t.Fatalf("cases line %d: stdin %s: %v", i+1, s, err)
				}
			}
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(cols[3]), "want")))
			if err != nil {
				t.Fatalf("cases line %d: %q: want \"want N\"", i+1, cols[3])
			}
			c.want = n
			cases = append(cases, c)
		}
	}
	if len(cases) == 0 {
		t.Fatal("testdata/parity.txtar has no cases")
	}
	return cases
}

// tree makes a fresh copy of testdata/demo with the archive's files (all but
// cases) laid over it, in a new folder.
func tree(t *testing.T, a *txtar.Archive) string {
	t.Helper()
	work := t.TempDir()
	if err := os.CopyFS(work, os.DirFS(filepath.Join("..", "..", "testdata", "demo"))); err != nil {
		t.Fatal(err)
	}
	for _, f := range a.Files {
		if f.Name == "cases" {
			continue
		}
		p := filepath.Join(work, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return work
}

type result struct {
	stdout, stderr string
	code           int
}

// runIn runs bin with c's arguments on the tree in work, its own cache and no
// data directory to fall back to, and puts $WORK back for work's path.
func runIn(t *testing.T, bin, work string, c parityCase) result {
	t.Helper()
	args := make([]string, len(c.args))
	for i, a := range c.args {
		a = strings.ReplaceAll(a, "$DATA", filepath.Join(work, "data"))
		a = strings.ReplaceAll(a, "$PROJECT", filepath.Join(work, "project"))
		args[i] = strings.ReplaceAll(a, "$WORK", work)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "MAGICFROG_HOME=", "XDG_DATA_HOME=", "MAGICFROG_AGENT=", "XDG_CACHE_HOME="+filepath.Join(work, ".cache"))
	cmd.Stdin = strings.NewReader(c.stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("%s: %v", c.name, err)
	}
	put := func(s string) string { return strings.ReplaceAll(s, work, "$WORK") }
	return result{stdout: put(stdout.String()), stderr: put(stderr.String()), code: cmd.ProcessState.ExitCode()}
}

// TestSameAsMfLSP: mf-hook's version, append and render print the same
// stdout and stderr as mf-lsp's and exit with the same code, on the same
// trees, in every case of testdata/parity.txtar (its errors included:
// several agents, an unregistered agent or folder, a body that is not a
// note, a stale generation, a refused --into, bad flags).
func TestSameAsMfLSP(t *testing.T) {
	mfLSP, mfHook := build(t)
	a, err := txtar.ParseFile(filepath.Join("testdata", "parity.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range parityCases(t, a) {
		t.Run(c.name, func(t *testing.T) {
			want := runIn(t, mfLSP, tree(t, a), c)
			got := runIn(t, mfHook, tree(t, a), c)
			if got != want {
				t.Errorf("mf-hook %s:\nexit %d, stdout:\n%s\nstderr:\n%s\nmf-lsp:\nexit %d, stdout:\n%s\nstderr:\n%s",
					strings.Join(c.args, " "), got.code, got.stdout, got.stderr, want.code, want.stdout, want.stderr)
			}
			if want.code != c.want {
				t.Errorf("mf-lsp %s exits %d, the case wants %d; stderr:\n%s", strings.Join(c.args, " "), want.code, c.want, want.stderr)
			}
		})
	}
}

// TestOtherCommandsAreMfLSPs: mf-hook refuses every other command (exit 2,
// naming mf-lsp) rather than half-run it, and with no command prints its
// usage.
func TestOtherCommandsAreMfLSPs(t *testing.T) {
	_, mfHook := build(t)
	for _, args := range [][]string{{"tree"}, {"check"}, {}} {
		cmd := exec.Command(mfHook, args...)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 {
			t.Errorf("mf-hook %v: %v, want exit 2\n%s", args, err, out)
		}
		if !strings.Contains(string(out), "mf-lsp") {
			t.Errorf("mf-hook %v does not point to mf-lsp:\n%s", args, out)
		}
	}
}

// TestInitNamesTheHookBinary: mf-lsp init's next steps name mf-hook for the
// hook's render when mf-hook sits beside the mf-lsp that runs, and mf-lsp
// when it does not.
func TestInitNamesTheHookBinary(t *testing.T) {
	mfLSP, _ := build(t)
	alone := filepath.Join(t.TempDir(), "mf-lsp")
	b, err := os.ReadFile(mfLSP)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, b, 0o755); err != nil {
		t.Fatal(err)
	}
	for bin, want := range map[string]string{mfLSP: "  mf-hook render ", alone: "  mf-lsp render "} {
		work := t.TempDir()
		cmd := exec.Command(bin, "init", "--task", "T-1", "--data-dir", filepath.Join(work, "data"), "--project", work)
		cmd.Env = append(os.Environ(), "MAGICFROG_HOME=", "XDG_DATA_HOME=", "XDG_CACHE_HOME="+filepath.Join(work, ".cache"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s init: %v\n%s", bin, err, out)
		}
		if !strings.Contains(string(out), want) {
			t.Errorf("%s init's next steps do not say %q:\n%s", bin, want, out)
		}
	}
}

// ownInitMax is the most a package of this module may allocate while it
// initializes: a few small values. A table (a checksum's, a regexp, a word
// list) is built where it is first used, so a hook that does not use it does
// not pay for it at every call.
const ownInitMax = 1024

// TestOwnInitsAreSmall: no package of this module that mf-hook links builds
// a table at start-up (GODEBUG=inittrace=1 prints each initializer's
// allocations; the count is the same run to run, unlike its time).
func TestOwnInitsAreSmall(t *testing.T) {
	_, mfHook := build(t)
	cmd := exec.Command(mfHook, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mf-hook version: %v\n%s", err, out)
	}
	seen := 0
	for _, line := range strings.Split(string(out), "\n") {
		// init PKG @T ms, C ms clock, B bytes, N allocs
		f := strings.Fields(line)
		if len(f) < 10 || f[0] != "init" || !strings.HasPrefix(f[1], "github.com/magicfrog/mf-lsp/") {
			continue
		}
		seen++
		bytes, err := strconv.Atoi(f[7])
		if err != nil || f[8] != "bytes," {
			t.Fatalf("unexpected inittrace line %q", line)
		}
		if bytes > ownInitMax {
			t.Errorf("%s allocates %d bytes at init (at most %d): build its tables on first use", f[1], bytes, ownInitMax)
		}
	}
	if seen == 0 {
		t.Fatalf("no initializer of this module in mf-hook's inittrace:\n%s", out)
	}
}

// unlinked are packages mf-hook must not link: net and the HTTP client
// (engine/embed's, for search's embeddings, which no hook command runs)
// bring crypto/tls's and net's initializers, and cgo makes the binary
// dynamic, so the loader's relocations and cgo's start run at every call.
// net/url is the language server's (file URIs): its net/netip made a
// goroutine at init (unique's cleanup), a thread woken at every hook call.
var unlinked = []string{"net", "net/http", "net/url", "net/netip", "crypto/tls", "runtime/cgo", "github.com/magicfrog/mf-lsp/engine/embed",
	"github.com/fsnotify/fsnotify", "github.com/magicfrog/mf-lsp/engine/watch"} // no hook command watches

// TestLeanDeps: mf-hook links none of unlinked, and the binary is static.
func TestLeanDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		deps[p] = true
	}
	for _, p := range unlinked {
		if deps[p] {
			t.Errorf("mf-hook links %s: what imports it must not be reachable from the hook commands (go list -deps; embeddings come in through engine/participant/embedenv)", p)
		}
	}
	if testing.Short() {
		return
	}
	_, mfHook := build(t)
	f, err := elf.Open(mfHook)
	if err != nil {
		t.Skipf("not an ELF binary: %v", err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("mf-hook is dynamically linked (it has an interpreter): it links cgo")
		}
	}
}
