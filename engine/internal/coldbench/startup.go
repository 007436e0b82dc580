package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/magicfrog/mf-lsp/engine/internal/synth"
)

// minimalProgram is the start-up floor: a Go program that starts, reads one
// file and prints its length. It is built in the same run as the rows it is
// compared with, by the same toolchain.
const minimalProgram = `package main

import (
	"fmt"
	"os"
)

func main() {
	b, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(len(b))
}
`

// startupTarget is the issue's: a CLI call uses at most twice the CPU of the
// minimal program.
const startupTarget = 2.0

// startupRow is one start-up path: its arguments and its stdin.
type startupRow struct {
	name  string
	args  []string
	stdin string
}

// startupBin is one binary the start-up rows run: mf-lsp, and mf-hook, the
// lean binary of the hook commands (the same commands, flags and output).
type startupBin struct{ name, path string }

// startup measures what an agent's hook pays per call: version, append and
// render on a one-note tree, run by mf-lsp and by mf-hook beside the minimal
// program, in -runs rounds interleaved (each at least 21), and, when valgrind
// is on PATH, the instructions each executes. The target is mf-hook's (the
// binary the installed hooks call), and it is the issue's: CPU, user and
// system, the median of the rounds. Callgrind's count is the same run to
// run on a busy machine, which CPU time is not, but it counts only the
// program's own instructions: most of an append's CPU is the kernel's (page
// faults, the fsyncs, the runtime's sleeps while they wait), and most of the
// minimal program's instructions are the runtime's start, so it is shown,
// not decided by.
func startup(c config, tmp string) error {
	dir := filepath.Join(tmp, "startup")
	t, err := synth.Generate(filepath.Join(dir, "tree"), 1)
	if err != nil {
		return err
	}
	floorBin, err := buildMinimal(dir)
	if err != nil {
		return err
	}
	floorFile := filepath.Join(t.ProjectDir, ".magicfrog", "config.json")
	env := benchEnv(filepath.Join(dir, "cache"))
	common := []string{"--data-dir", t.DataDir, "--project", t.ProjectDir}
	rows := []startupRow{
		{name: "version", args: []string{"version"}},
		{name: "append", args: append([]string{"append", "--today", "2026-01-02"}, common...), stdin: "- 10:00 a line a hook appends\n"},
		{name: "render", args: append([]string{"render"}, common...)},
	}
	bins := []startupBin{{"mf-lsp", c.bin}, {"mf-hook", c.hook}}
	floorCmd := func() *exec.Cmd { return exec.Command(floorBin, floorFile) }
	rowCmd := func(b startupBin, r startupRow) *exec.Cmd {
		cmd := exec.Command(b.path, r.args...)
		if r.stdin != "" {
			cmd.Stdin = strings.NewReader(r.stdin)
		}
		return cmd
	}
	// Warm up the page cache and make append's note.
	if _, err := runProcess(floorCmd(), t.ProjectDir, env, nil); err != nil {
		return fmt.Errorf("minimal program: %v", err)
	}
	for _, b := range bins {
		for _, r := range rows {
			if _, err := runProcess(rowCmd(b, r), t.ProjectDir, env, nil); err != nil {
				return fmt.Errorf("%s %s: %v", b.name, r.name, err)
			}
		}
	}
	runs := max(c.runs, 21)
	var floors []sample
	got := make([][][]sample, len(bins)) // [binary][row]
	for i := range bins {
		got[i] = make([][]sample, len(rows))
	}
	for range runs {
		s, err := runProcess(floorCmd(), t.ProjectDir, env, nil)
		if err != nil {
			return fmt.Errorf("minimal program: %v", err)
		}
		floors = append(floors, s)
		for i, r := range rows {
			for j, b := range bins {
				s, err := runProcess(rowCmd(b, r), t.ProjectDir, env, nil)
				if err != nil {
					return fmt.Errorf("%s %s: %v", b.name, r.name, err)
				}
				got[j][i] = append(got[j][i], s)
			}
		}
	}
	floorIns, insErr := instructions(floorCmd(), t.ProjectDir, env)
	floorCPU := medianCPU(floors)
	fmt.Fprintf(c.out, "\nstart-up on a one-note tree, %d runs each; CPU: median user+system, which the target is met by; the floor is a minimal Go program that reads one file (CPU %s, wall %s); %d CPUs, load average %s\n\n",
		runs, ms(floorCPU), ms(median(floors)), runtime.NumCPU(), loadAverage())
	fmt.Fprintln(c.out, "| start-up | binary | CPU floor | CPU | CPU ratio | instructions floor | instructions | instructions ratio | target | met |")
	fmt.Fprintln(c.out, "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	for i, r := range rows {
		for j, b := range bins {
			cpu := medianCPU(got[j][i])
			ratio := float64(cpu) / float64(floorCPU)
			insF, insM, insR, met := "—", "—", "—", yesNo(ratio <= startupTarget)
			if insErr == nil {
				n, err := instructions(rowCmd(b, r), t.ProjectDir, env)
				if err == nil {
					insRatio := float64(n) / float64(floorIns)
					insF, insM, insR = mega(floorIns), mega(n), fmt.Sprintf("%.1f×", insRatio)
				} else {
					fmt.Fprintf(c.out, "(%s %s under callgrind: %v)\n", b.name, r.name, strings.SplitN(err.Error(), "\n", 2)[0])
				}
			}
			target := fmt.Sprintf("≤ %.1f×", startupTarget)
			if b.name != "mf-hook" {
				target, met = "—", "—" // the hooks call mf-hook; mf-lsp's row is for comparison
			}
			fmt.Fprintf(c.out, "| %s | %s | %s | %s | %.2f× | %s | %s | %s | %s | %s |\n", r.name, b.name, ms(floorCPU), ms(cpu), ratio, insF, insM, insR, target, met)
		}
	}
	if insErr != nil {
		fmt.Fprintf(c.out, "\n(no instruction counts: %v)\n", insErr)
	}
	fmt.Fprintln(c.out)
	return nil
}

// buildMinimal writes and builds the minimal program into dir.
func buildMinimal(dir string) (string, error) {
	src := filepath.Join(dir, "minimal")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte("module minimal\n\ngo 1.22\n"), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte(minimalProgram), 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "minimal-bin")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build the minimal program: %v\n%s", err, out)
	}
	return bin, nil
}

var collected = regexp.MustCompile(`Collected : (\d+)`)

// instructions runs cmd once under callgrind and returns the instructions it
// executed (all threads). Go's asynchronous preemption signals crash
// valgrind, hence GODEBUG=asyncpreemptoff=1; valgrind runs one thread at a
// time anyway, and GOMAXPROCS=1 keeps the runtime's threads from contending
// (the same for both sides).
//
// valgrind 3.19 does not know RDTSCP, which the runtime's lock spinning may
// execute when threads contend: such a run dies, and is tried again.
func instructions(cmd *exec.Cmd, dir string, env []string) (n int64, err error) {
	for range 5 {
		if n, err = instructionsOnce(cmd, dir, env); err == nil || strings.Contains(err.Error(), "not on PATH") {
			return n, err
		}
	}
	return n, err
}

func instructionsOnce(cmd *exec.Cmd, dir string, env []string) (int64, error) {
	vg, err := exec.LookPath("valgrind")
	if err != nil {
		return 0, fmt.Errorf("valgrind is not on PATH")
	}
	args := append([]string{"--tool=callgrind", "--callgrind-out-file=" + os.DevNull, cmd.Path}, cmd.Args[1:]...)
	vgCmd := exec.Command(vg, args...)
	vgCmd.Dir, vgCmd.Env = dir, append(env, "GODEBUG=asyncpreemptoff=1", "GOMAXPROCS=1")
	if r, ok := cmd.Stdin.(*strings.Reader); ok {
		r.Seek(0, 0) // a retry reads the same stdin
		vgCmd.Stdin = r
	}
	start := time.Now()
	out, err := vgCmd.CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("%v after %v\n%s", err, time.Since(start).Round(time.Millisecond), out[:min(len(out), 2000)])
	}
	m := collected.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("no instruction count in callgrind's output:\n%s", tail(string(out)))
	}
	return strconv.ParseInt(string(m[1]), 10, 64)
}

// mega spells an instruction count in millions.
func mega(n int64) string { return fmt.Sprintf("%.2f M", float64(n)/1e6) }
