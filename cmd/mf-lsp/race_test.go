package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/magicfrog/mf-lsp/engine/frontmatter"
)

// TestWriteProcessesRace runs several `mf-lsp write` processes (the real
// binary) that race on one note, each in a loop: read the revision and body,
// append its own line, write with that expected revision. Every accepted write
// (exit 0) must be on disk in revision order, every refused one (exit 3) must
// have changed nothing, and the file must parse whenever anyone looks.
func TestWriteProcessesRace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs processes")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "mf-lsp")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	data := filepath.Join(dir, "data")
	project := filepath.Join(dir, "project")
	for _, d := range []string{filepath.Join(data, "memory"), project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	note := filepath.Join(data, "memory", "user", "race.md")

	const workers, attempts = 6, 20
	type accepted struct {
		rev  int
		line string
	}
	var (
		mu       sync.Mutex
		accepts  []accepted
		refusals []string
		wg       sync.WaitGroup
		done     atomic.Bool
	)

	// The watcher reads the note as often as it can: it must always parse,
	// its revision never goes back, and its body has one line per revision.
	watchErr := make(chan error, 1)
	go func() {
		last, reads := 0, 0
		for !done.Load() {
			src, err := os.ReadFile(note)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				watchErr <- err
				return
			}
			rev, body, err := parseNote(src)
			if err != nil {
				watchErr <- fmt.Errorf("read %d: %v\n%s", reads, err, src)
				return
			}
			if rev < last {
				watchErr <- fmt.Errorf("revision went back from %d to %d", last, rev)
				return
			}
			if n := strings.Count(body, "\n"); n != rev {
				watchErr <- fmt.Errorf("revision %d has %d lines:\n%s", rev, n, body)
				return
			}
			last = rev
			reads++
		}
		t.Logf("watcher: %d reads", reads)
		watchErr <- nil
	}()

	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < attempts; i++ {
				rev, body := 0, ""
				if src, err := os.ReadFile(note); err == nil {
					if rev, body, err = parseNote(src); err != nil {
						t.Errorf("worker %d: %v", w, err)
						return
					}
				} else if !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("worker %d: %v", w, err)
					return
				}
				line := fmt.Sprintf("worker %d attempt %d read revision %d", w, i, rev)
				cmd := exec.Command(bin, "write", "--data-dir", data, "--project", project,
					"--dimension", "user", "--key", "race.md", "--expect-revision", strconv.Itoa(rev))
				cmd.Stdin = strings.NewReader(body + line + "\n")
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				code := 0
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					code = ee.ExitCode()
				} else if err != nil {
					t.Errorf("worker %d: %v", w, err)
					return
				}
				switch code {
				case 0:
					if got := strings.TrimSpace(stdout.String()); got != strconv.Itoa(rev+1) {
						t.Errorf("worker %d: accepted write printed %q, want %d", w, got, rev+1)
					}
					mu.Lock()
					accepts = append(accepts, accepted{rev: rev + 1, line: line})
					mu.Unlock()
				case 3:
					first, _, _ := strings.Cut(stderr.String(), "\n")
					cur, ok := strings.CutPrefix(first, "stale: current revision ")
					n, err := strconv.Atoi(cur)
					if !ok || err != nil || n <= rev {
						t.Errorf("worker %d: stale write (expected revision %d) said %q", w, rev, first)
					}
					mu.Lock()
					refusals = append(refusals, line)
					mu.Unlock()
				default:
					t.Errorf("worker %d: exit %d\n%s", w, code, stderr.String())
					return
				}
			}
		}(w)
	}
	wg.Wait()
	done.Store(true)
	if err := <-watchErr; err != nil {
		t.Fatalf("watcher: %v", err)
	}

	src, err := os.ReadFile(note)
	if err != nil {
		t.Fatal(err)
	}
	rev, body, err := parseNote(src)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d accepted, %d refused, final revision %d", len(accepts), len(refusals), rev)
	if len(accepts)+len(refusals) != workers*attempts {
		t.Fatalf("%d accepted + %d refused, want %d attempts", len(accepts), len(refusals), workers*attempts)
	}
	if rev != len(accepts) {
		t.Fatalf("final revision %d, but %d writes were accepted", rev, len(accepts))
	}
	// Line k of the body is the write accepted as revision k: no accepted write
	// was lost or reordered.
	byRev := map[int]string{}
	for _, a := range accepts {
		if prev, dup := byRev[a.rev]; dup {
			t.Fatalf("revision %d accepted twice: %q and %q", a.rev, prev, a.line)
		}
		byRev[a.rev] = a.line
	}
	sc := bufio.NewScanner(strings.NewReader(body))
	k := 0
	for sc.Scan() {
		k++
		if want := byRev[k]; sc.Text() != want {
			t.Fatalf("line %d of the note is %q, want the write accepted as revision %d: %q", k, sc.Text(), k, want)
		}
	}
	if k != rev {
		t.Fatalf("%d lines, revision %d", k, rev)
	}
	// A refused write left no trace.
	for _, line := range refusals {
		if strings.Contains(body, line+"\n") {
			t.Fatalf("refused write %q is on disk", line)
		}
	}
}

// parseNote reads a note's revision and body; an error when the frontmatter is
// missing, broken or has no revision.
func parseNote(src []byte) (int, string, error) {
	d := frontmatter.Parse(src)
	if !d.Has() || len(d.Errors) > 0 {
		return 0, "", fmt.Errorf("frontmatter does not parse: %v", d.Errors)
	}
	rev, ok := d.Int("revision")
	if !ok {
		return 0, "", errors.New("no revision")
	}
	return rev, string(src[d.Body:]), nil
}
