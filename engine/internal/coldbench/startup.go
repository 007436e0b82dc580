package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
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

// writeFloorProgram is append's own floor: a Go program that does only the
// I/O SPEC §7 asks of a hook's append, written straight with the standard
// library and no check of anything. It reads the configuration files and
// stdin, takes the write lock, reads the note, puts the next revision and the
// line in a temporary file, fsyncs it, renames it over the note and fsyncs
// the folder; then, under the history's shared lock, reads the note's log,
// stores the version as a loose object in stored zlib blocks (a fan-out
// folder made when missing, a file created and renamed) and appends its log
// and sums lines, as the local history does. It parses no JSON or YAML and
// checks no revision, link or size: what mf-hook append does beyond it is
// the price of those checks and of being the product.
//
// Arguments: the note, the lock file, the history folder (its own, so that
// its made-up entries confuse no reader), then the configuration files.
const writeFloorProgram = `package main

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"hash/adler32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

func main() {
	note, lockPath, hist := os.Args[1], os.Args[2], os.Args[3]
	for _, f := range os.Args[4:] {
		os.ReadFile(f)
	}
	line, _ := io.ReadAll(os.Stdin)
	lock, err := os.OpenFile(lockPath, os.O_RDONLY|os.O_CREATE, 0o644)
	check(err)
	check(syscall.Flock(int(lock.Fd()), syscall.LOCK_EX))
	b, err := os.ReadFile(note)
	check(err)
	i := bytes.Index(b, []byte("revision: "))
	if i < 0 {
		check(fmt.Errorf("%s has no revision", note))
	}
	j := i + bytes.IndexByte(b[i:], '\n')
	rev, _ := strconv.Atoi(string(b[i+10 : j]))
	out := append(append(append([]byte{}, b[:i+10]...), strconv.Itoa(rev+1)...), b[j:]...)
	out = append(out, line...)
	tmp := filepath.Join(filepath.Dir(note), "."+filepath.Base(note)+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	check(err)
	_, err = f.Write(out)
	check(err)
	check(f.Sync())
	check(f.Close())
	check(os.Rename(tmp, note))
	d, err := os.Open(filepath.Dir(note))
	check(err)
	check(d.Sync())
	d.Close()
	lock.Close()

	check(os.MkdirAll(filepath.Join(hist, "objects"), 0o755))
	hl, err := os.OpenFile(filepath.Join(hist, "lock"), os.O_RDONLY|os.O_CREATE, 0o644)
	check(err)
	check(syscall.Flock(int(hl.Fd()), syscall.LOCK_SH))
	logPath := filepath.Join(hist, "note.log")
	os.ReadFile(logPath)
	raw := append([]byte(fmt.Sprintf("blob %d\x00", len(out))), out...)
	sum := sha1.Sum(raw)
	id := hex.EncodeToString(sum[:])
	z := []byte{0x78, 0x01}
	for off := 0; ; {
		n := min(len(raw)-off, 65535)
		final := byte(0)
		if off+n == len(raw) {
			final = 1
		}
		z = append(z, final, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8))
		z = append(z, raw[off:off+n]...)
		off += n
		if final == 1 {
			break
		}
	}
	a := adler32.Checksum(raw)
	z = append(z, byte(a>>24), byte(a>>16), byte(a>>8), byte(a))
	fan := filepath.Join(hist, "objects", id[:2])
	if err := os.Mkdir(fan, 0o755); err != nil && !os.IsExist(err) {
		check(err)
	}
	otmp := filepath.Join(hist, "objects", "tmp_obj")
	check(os.WriteFile(otmp, z, 0o444))
	check(os.Rename(otmp, filepath.Join(fan, id[2:])))
	lf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	check(err)
	fmt.Fprintf(lf, "{\"t\":\"2026-01-02T10:00:00Z\",\"how\":\"written\",\"rev\":%d,\"blob\":\"%s\"}\n", rev+1, id)
	lf.Close()
	sf, err := os.OpenFile(filepath.Join(hist, "sums"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	check(err)
	fmt.Fprintf(sf, "%s %s\n", id[:16], id)
	sf.Close()
	fmt.Println(note)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
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
	writeFloor, err := newWriteFloor(c, dir)
	if err != nil {
		return err
	}
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
	if _, err := runProcess(writeFloor.cmd(), writeFloor.dir, env, nil); err != nil {
		return fmt.Errorf("append's write floor: %v", err)
	}
	for _, b := range bins {
		for _, r := range rows {
			if _, err := runProcess(rowCmd(b, r), t.ProjectDir, env, nil); err != nil {
				return fmt.Errorf("%s %s: %v", b.name, r.name, err)
			}
		}
	}
	runs := max(c.runs, 21)
	var floors, writeFloors []sample
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
		if s, err = runProcess(writeFloor.cmd(), writeFloor.dir, env, nil); err != nil {
			return fmt.Errorf("append's write floor: %v", err)
		}
		writeFloors = append(writeFloors, s)
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
	// The same rounds, against append's own floor: what SPEC §7's I/O alone costs.
	wfCPU := medianCPU(writeFloors)
	for j, b := range bins {
		if b.name != "mf-hook" {
			continue
		}
		app := medianCPU(got[j][slices.IndexFunc(rows, func(r startupRow) bool { return r.name == "append" })])
		fmt.Fprintf(c.out, "\nappend's write floor (writeFloorProgram: only the durable write and the history's version, no check): CPU %s, %.2f× the minimal program; %s append is %.2f× it.\n",
			ms(wfCPU), float64(wfCPU)/float64(floorCPU), b.name, float64(app)/float64(wfCPU))
	}
	fmt.Fprintln(c.out)
	return nil
}

// writeFloor is writeFloorProgram built, with a one-note tree of its own whose
// journal note mf-hook append made.
type writeFloor struct {
	bin, dir string
	args     []string
}

func (w writeFloor) cmd() *exec.Cmd {
	cmd := exec.Command(w.bin, w.args...)
	cmd.Stdin = strings.NewReader("- 10:00 a line a hook appends\n")
	return cmd
}

func newWriteFloor(c config, dir string) (writeFloor, error) {
	bin, err := buildProgram(dir, "writefloor", writeFloorProgram)
	if err != nil {
		return writeFloor{}, err
	}
	t, err := synth.Generate(filepath.Join(dir, "writefloor-tree"), 1)
	if err != nil {
		return writeFloor{}, err
	}
	mk := exec.Command(c.hook, "append", "--today", "2026-01-02", "--data-dir", t.DataDir, "--project", t.ProjectDir)
	mk.Dir, mk.Stdin = t.ProjectDir, strings.NewReader("- 09:00 the day's first line\n")
	out, err := mk.Output()
	if err != nil {
		return writeFloor{}, fmt.Errorf("mf-hook append, making the write floor's note: %v", err)
	}
	note := strings.TrimSpace(string(out))
	mem := filepath.Dir(filepath.Dir(note))
	args := []string{note, filepath.Join(mem, ".mf-lsp", "lock"), filepath.Join(mem, ".mf-lsp", "writefloor-history"),
		filepath.Join(t.DataDir, "memory", "layers.json"), filepath.Join(t.DataDir, "magicfrog.json"),
		filepath.Join(t.ProjectDir, ".magicfrog", "config.json"), filepath.Join(t.DataDir, "machine-id")}
	return writeFloor{bin: bin, dir: t.ProjectDir, args: args}, nil
}

// buildMinimal writes and builds the minimal program into dir.
func buildMinimal(dir string) (string, error) { return buildProgram(dir, "minimal", minimalProgram) }

// buildProgram writes the Go program src as module name in dir and builds it.
func buildProgram(dir, name, src string) (string, error) {
	srcDir := filepath.Join(dir, name)
	if err := os.MkdirAll(srcDir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(srcDir, "go.mod"), []byte("module "+name+"\n\ngo 1.22\n"), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(srcDir, "main.go"), []byte(src), 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, name+"-bin")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = srcDir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build the %s program: %v\n%s", name, err, out)
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
