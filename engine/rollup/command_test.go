package rollup

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/engine/journal"
)

func needSh(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the summarizer scripts are POSIX sh")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
}

// script writes an executable sh script and returns its path.
func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "summarize.sh")
	must(t, os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755))
	return p
}

func TestSplitCommand(t *testing.T) {
	for in, want := range map[string][]string{
		`llm -m gemini-flash`:            {"llm", "-m", "gemini-flash"},
		`  claude  -p  `:                 {"claude", "-p"},
		`sh -c 'cat | llm "x y"'`:        {"sh", "-c", `cat | llm "x y"`},
		`a "b \"c\" \\ \$d" e\ f`:        {"a", `b "c" \ $d`, "e f"},
		`'' x`:                           {"", "x"},
		`/opt/My\ Tools/llm --sys='a b'`: {"/opt/My Tools/llm", "--sys=a b"},
	} {
		got, err := SplitCommand(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{`a 'b`, `a "b`} {
		if _, err := SplitCommand(bad); err == nil {
			t.Errorf("SplitCommand(%q) accepted", bad)
		}
	}
	if _, err := Command("   ", 0); err == nil {
		t.Error("an empty command is accepted")
	}
	if s, _ := Resolve(0, "", "builtin", "llm"); s != Builtin {
		t.Error("builtin is not chosen")
	}
	if s, _ := Resolve(0, "", "", ""); s != Builtin {
		t.Error("the default is not builtin")
	}
	if s, _ := Resolve(time.Second, "", "llm -m x", "other"); s.Name() != "llm -m x" || s.(*CommandSummarizer).Timeout != time.Second {
		t.Errorf("resolve: %v", s.Name())
	}
}

func TestCommandSummarizer(t *testing.T) {
	needSh(t)
	f := novemberFixture(t)
	raw := f.snapshot(t)
	dir := t.TempDir()
	stdin := filepath.Join(dir, "stdin.txt")
	ok := script(t, `cat > "`+stdin+`"
echo "rollup=$MAGICFROG_ROLLUP period=$MAGICFROG_PERIOD" >&2
printf '`+"```"+`markdown\n# 2026-11-06 (Friday), refined\n\n## Decisions Made\n\n- Decided by the model\n\n## Things Built\n\n- (none)\n`+"```"+`\n'
`)
	s, err := Command(ok+" --flag 'two words'", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	jobs, _ := Plan(f.m, Request{Rollup: journal.Rollup{Kind: journal.RefineDay, Day: day(t, "2026-11-06")}}, Options{})
	res, err := Run(ctx, f.m, jobs[0], s)
	if err != nil {
		t.Fatal(err)
	}
	out := f.read(t, "refined/2026-11-06.md")
	contains(t, "command rollup", out, "- Decided by the model\n")
	if strings.Contains(out, "```") {
		t.Errorf("the outer fence was kept:\n%s", out)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "Problems Encountered") {
		t.Errorf("warnings: %q", res.Warnings)
	}
	in, _ := os.ReadFile(stdin)
	contains(t, "prompt on stdin", string(in), `<source key="2026-11-06.md">`)
	contains(t, "prompt on stdin", string(in), "Decision: keep the export format flat (day 4)")

	fail := func(name, body string, timeout time.Duration, want ...string) {
		t.Helper()
		s, err := Command(script(t, body), timeout)
		if err != nil {
			t.Fatal(err)
		}
		jobs, _ := Plan(f.m, Request{Rollup: journal.Rollup{Kind: journal.RefineDay, Day: day(t, "2026-11-07")}}, Options{})
		start := time.Now()
		_, err = Run(ctx, f.m, jobs[0], s)
		if err == nil {
			t.Fatalf("%s: no error", name)
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: want %q in the error: %v", name, w, err)
			}
		}
		if d := time.Since(start); d > timeout+4*time.Second {
			t.Errorf("%s: took %s", name, d)
		}
		if _, err := os.Stat(f.path("refined/2026-11-07.md")); !os.IsNotExist(err) {
			t.Fatalf("%s: a rollup was written", name)
		}
	}
	fail("exit 1", "cat >/dev/null\necho 'model quota exceeded' >&2\nexit 1\n", 5*time.Second, "failed (exit status 1)", "stderr: model quota exceeded", "rollup day 2026-11-07")
	fail("timeout", "cat >/dev/null\nsleep 30\n", 300*time.Millisecond, "did not finish within 300ms")
	fail("timeout with a child holding stdout", "cat >/dev/null\n(sleep 30; echo late) &\nsleep 30\n", 300*time.Millisecond, "did not finish within 300ms")
	// Issue 14, row 3: 50 MB on stdout went past the cap (limitedBuffer's
	// embedded bytes.Buffer gave io.Copy a ReadFrom) and was written.
	fail("50 MB of output", "cat >/dev/null\nprintf '## Decisions Made\\n\\n- '\nhead -c 52428800 /dev/zero | tr '\\0' 'x'\n", 20*time.Second, "printed more than 4194304 bytes")
	fail("empty", "cat >/dev/null\necho 'warming up' >&2\n", 5*time.Second, "printed nothing on stdout", "warming up")
	fail("no sections", "cat >/dev/null\necho 'Sure! Here is your summary: all good.'\n", 5*time.Second, "none of the expected sections", "Sure! Here is")
	s, _ = Command("/nonexistent/llm -p", time.Second)
	jobs, _ = Plan(f.m, Request{Rollup: journal.Rollup{Kind: journal.RefineDay, Day: day(t, "2026-11-07")}}, Options{})
	if _, err := Run(ctx, f.m, jobs[0], s); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("missing program: %v", err)
	}
	if !reflect.DeepEqual(raw, f.snapshot(t)) {
		t.Fatal("a raw daily changed")
	}
}

// Issue 14, row 9: a summarizer that exits 0 with valid output, leaving a
// setsid child holding stdout, is taken (its output was thrown away with
// "WaitDelay expired").
func TestCommandStrayChildHoldsStdout(t *testing.T) {
	needSh(t)
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	f := novemberFixture(t)
	s, err := Command(script(t, `cat >/dev/null
setsid sh -c 'sleep 20' &
printf '# 2026-11-06 (Friday), refined\n\n## Decisions Made\n\n- Taken despite the stray child\n'
exit 0
`), 15*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	jobs, _ := Plan(f.m, Request{Rollup: journal.Rollup{Kind: journal.RefineDay, Day: day(t, "2026-11-06")}}, Options{})
	if _, err := Run(ctx, f.m, jobs[0], s); err != nil {
		t.Fatal(err)
	}
	contains(t, "rollup", f.read(t, "refined/2026-11-06.md"), "- Taken despite the stray child\n")
}

// A summarizer command that sleeps while another writer edits the raw note:
// the edit is neither overwritten nor left out (the summarizer runs again).
func TestCommandSleepsWhileRawEdited(t *testing.T) {
	needSh(t)
	f := novemberFixture(t)
	dir := t.TempDir()
	started := filepath.Join(dir, "started")
	// Echo the sources' "- Built" lines back as Things Built, after a nap.
	s, err := Command(script(t, `in=$(cat)
touch "`+started+`"
sleep 0.4
printf '# refined\n\n## Things Built\n\n'
printf '%s\n' "$in" | grep '^- .*Built' | sed 's/^- [0-9:]* *//; s/^/- /'
`), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	raw := f.path("2026-11-09.md")
	edited := make(chan error, 1)
	go func() {
		for i := 0; i < 500; i++ {
			if _, err := os.Stat(started); err == nil {
				b, _ := os.ReadFile(raw)
				edited <- os.WriteFile(raw, append(b, "- Built the edit made during the rollup\n"...), 0o644)
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		edited <- os.ErrDeadlineExceeded
	}()
	jobs, _ := Plan(f.m, Request{Rollup: journal.Rollup{Kind: journal.RefineDay, Day: day(t, "2026-11-09")}}, Options{})
	res, err := Run(ctx, f.m, jobs[0], s)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-edited; err != nil {
		t.Fatal(err)
	}
	if res.Attempts != 2 {
		t.Errorf("attempts: %d", res.Attempts)
	}
	contains(t, "refined day", f.read(t, "refined/2026-11-09.md"), "- Built the edit made during the rollup")
	contains(t, "raw daily", f.read(t, "2026-11-09.md"), "- Built the edit made during the rollup")
	if res.Sources[0].Hash != f.m.Note(raw).Hash() {
		t.Error("the recorded hash is not the edited raw daily's")
	}
}
