package store

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The multi-process tests re-execute the test binary as workers: TestMain
// hands over to runWorker when workerEnv is set.
const workerEnv = "MF_STORE_TEST_WORKER"

const (
	sharedNote = "shared/entry.md"
	bigNote    = "big/note.md"
	crashExit  = 42
)

func workerCmd(t testing.TB, role string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{workerEnv + "=" + role}, env...)...)
	cmd.Stderr = os.Stderr
	return cmd
}

func runWorker(role string) int {
	root := os.Getenv("MF_STORE_ROOT")
	var err error
	switch role {
	case "rmw":
		err = rmwWorker(root)
	case "big":
		err = bigWorker(root)
	case "crashat":
		point := os.Getenv("MF_STORE_CRASH")
		crash := func(p string) {
			if p == point {
				os.Exit(crashExit)
			}
		}
		content := []byte(os.Getenv("MF_STORE_CONTENT"))
		_, err = update(root, os.Getenv("MF_STORE_PATH"), &Expect{Revision: atoi(os.Getenv("MF_STORE_REV")), Hash: os.Getenv("MF_STORE_HASH")},
			func([]byte, bool) ([]byte, error) { return content, nil }, crash)
		if err == nil {
			err = errors.New("the crash point was never reached")
		}
	case "hold":
		var unlock func() error
		if unlock, err = Lock(root); err == nil {
			fmt.Println("locked")
			io.Copy(io.Discard, os.Stdin) // hold until the parent closes stdin
			err = unlock()
		}
	default:
		err = fmt.Errorf("unknown worker role %q", role)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 2
	}
	return 0
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

func sharedBody(worker, attempt int) string {
	return fmt.Sprintf("worker %d attempt %d", worker, attempt)
}

var sharedBodyRe = regexp.MustCompile(`(?m)^worker (\d+) attempt (\d+)$`)

// rmwWorker does read-modify-write cycles on sharedNote and logs each outcome:
// "accepted <revision written> <attempt>" or "refused <expected> <found> <attempt>".
func rmwWorker(root string) error {
	id, n := atoi(os.Getenv("MF_STORE_ID")), atoi(os.Getenv("MF_STORE_N"))
	logf, err := os.Create(os.Getenv("MF_STORE_LOG"))
	if err != nil {
		return err
	}
	defer logf.Close()
	rng := rand.New(rand.NewSource(int64(id)))
	p := filepath.Join(root, sharedNote)
	for i := 0; i < n; i++ {
		cur, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		exp := Expect{}
		if err == nil {
			rev, ok := RevisionOf(cur)
			if !ok {
				return fmt.Errorf("read an unparseable note: %q", cur)
			}
			exp = Expect{Revision: rev, Hash: Hash(cur)}
		}
		next := note(exp.Revision+1, sharedBody(id, i))
		time.Sleep(time.Duration(rng.Intn(300)) * time.Microsecond) // widen the race
		if i%2 == 0 {
			err = Write(root, sharedNote, next, exp)
		} else {
			_, err = Update(root, sharedNote, exp, func(b []byte, exists bool) ([]byte, error) {
				if exists != exp.exists() || Hash(b) != Hash(cur) {
					return nil, fmt.Errorf("fn called with bytes other than the checked ones")
				}
				return next, nil
			})
		}
		if st, ok := IsStale(err); ok {
			fmt.Fprintf(logf, "refused %d %d %d\n", exp.Revision, st.Revision, i)
			continue
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(logf, "accepted %d %d\n", exp.Revision+1, i)
	}
	return logf.Sync()
}

// TestProcessesWriteSameNote: four processes race read-modify-write cycles on
// one note while this process reads it continuously.
func TestProcessesWriteSameNote(t *testing.T) {
	const workers, attempts = 4, 50
	root := t.TempDir()
	logs := t.TempDir()

	type seen struct {
		body string
		rev  int
	}
	var (
		stop    = make(chan struct{})
		checked sync.WaitGroup
		views   = map[int]string{} // revision -> body the checker saw
		reads   int
		bad     []string
	)
	checked.Add(1)
	go func() {
		defer checked.Done()
		last := 0
		p := filepath.Join(root, sharedNote)
		for {
			select {
			case <-stop:
				return
			default:
			}
			b, err := os.ReadFile(p)
			if errors.Is(err, os.ErrNotExist) {
				if last > 0 {
					bad = append(bad, "note vanished after revision "+strconv.Itoa(last))
				}
				continue
			}
			if err != nil {
				bad = append(bad, err.Error())
				continue
			}
			reads++
			rev, ok := RevisionOf(b)
			m := sharedBodyRe.FindStringSubmatch(string(b))
			if !ok || m == nil || !bytes.Equal(b, note(rev, m[0])) {
				bad = append(bad, fmt.Sprintf("torn or unparseable note: %q", b))
				continue
			}
			if rev < last {
				bad = append(bad, fmt.Sprintf("revision went back from %d to %d", last, rev))
			}
			if prev, ok := views[rev]; ok && prev != m[0] {
				bad = append(bad, fmt.Sprintf("revision %d seen as %q and as %q", rev, prev, m[0]))
			}
			views[rev], last = m[0], rev
			// A loader listing the folder sees the note and nothing else.
			entries, _ := os.ReadDir(filepath.Dir(p))
			for _, e := range entries {
				if !strings.HasPrefix(e.Name(), ".") && e.Name() != "entry.md" {
					bad = append(bad, "a loader would read "+e.Name())
				}
			}
		}
	}()

	var cmds []*exec.Cmd
	for w := 0; w < workers; w++ {
		cmd := workerCmd(t, "rmw", "MF_STORE_ROOT="+root, "MF_STORE_ID="+strconv.Itoa(w),
			"MF_STORE_N="+strconv.Itoa(attempts), "MF_STORE_LOG="+filepath.Join(logs, strconv.Itoa(w)))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("worker: %v", err)
		}
	}
	close(stop)
	checked.Wait()
	if t.Failed() {
		t.FailNow()
	}

	accepted := map[int]string{} // revision -> body
	refused := 0
	for w := 0; w < workers; w++ {
		f, err := os.Open(filepath.Join(logs, strconv.Itoa(w)))
		if err != nil {
			t.Fatal(err)
		}
		lines := 0
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			lines++
			var rev, exp, found, i int
			switch {
			case strings.HasPrefix(sc.Text(), "accepted"):
				fmt.Sscanf(sc.Text(), "accepted %d %d", &rev, &i)
				if prev, dup := accepted[rev]; dup {
					t.Errorf("revision %d accepted twice: %q and %q", rev, prev, sharedBody(w, i))
				}
				accepted[rev] = sharedBody(w, i)
			default:
				fmt.Sscanf(sc.Text(), "refused %d %d %d", &exp, &found, &i)
				if found == exp {
					t.Errorf("worker %d attempt %d refused although revision %d was current", w, i, exp)
				}
				refused++
			}
		}
		f.Close()
		if lines != attempts {
			t.Errorf("worker %d logged %d attempts, want %d", w, lines, attempts)
		}
	}
	n := len(accepted)
	final := mustRead(t, filepath.Join(root, sharedNote))
	rev, ok := RevisionOf(final)
	if !ok || rev != n {
		t.Fatalf("final revision %d (readable %v), want %d = number of accepted writes", rev, ok, n)
	}
	for r := 1; r <= n; r++ {
		if _, ok := accepted[r]; !ok {
			t.Errorf("no accepted write for revision %d", r)
		}
	}
	if !bytes.Equal(final, note(n, accepted[n])) {
		t.Errorf("final note %q is not the last accepted write %q", final, accepted[n])
	}
	for r, body := range views {
		if accepted[r] != body {
			t.Errorf("checker saw revision %d as %q, accepted write was %q", r, body, accepted[r])
		}
	}
	for _, b := range bad {
		t.Error(b)
	}
	if n+refused != workers*attempts {
		t.Errorf("%d accepted + %d refused != %d attempts", n, refused, workers*attempts)
	}
	t.Logf("%d accepted, %d refused; the checker read the note %d times and saw %d revisions", n, refused, reads, len(views))
}

func TestLockTimeoutAcrossProcesses(t *testing.T) {
	setLockTimeout(t, 200*time.Millisecond)
	root := t.TempDir()
	cmd := workerCmd(t, "hold", "MF_STORE_ROOT="+root)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if line != "locked\n" {
		stdin.Close()
		cmd.Wait()
		t.Fatalf("worker said %q", line)
	}
	err := Write(root, "n.md", note(1, "x"), Expect{})
	if !errors.Is(err, ErrLockTimeout) || !strings.Contains(err.Error(), "another process") {
		t.Errorf("err = %v, want ErrLockTimeout naming another process", err)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if err := Write(root, "n.md", note(1, "x"), Expect{}); err != nil {
		t.Fatal(err)
	}
}

// bigContent is the whole note at revision rev: about 1 MB, every byte
// determined by rev, so a torn or mixed file cannot pass for a good one.
func bigContent(rev int) []byte {
	line := fmt.Sprintf("revision %d says hello to the disk, filling the note.\n", rev)
	body := strings.Repeat(line, (1<<20)/len(line))
	return note(rev, body+"end of revision "+strconv.Itoa(rev))
}

// bigWorker rewrites bigNote forever, each time with the next revision. It
// reads the note once and then trusts its own writes, so that most of its time
// is spent inside Write. It says "ready" after its first write, so every run
// makes progress.
func bigWorker(root string) error {
	cur, err := os.ReadFile(filepath.Join(root, bigNote))
	exp := Expect{}
	if err == nil {
		rev, ok := RevisionOf(cur)
		if !ok || !bytes.Equal(cur, bigContent(rev)) {
			return fmt.Errorf("found a damaged note (revision %d)", rev)
		}
		exp = Expect{Revision: rev, Hash: Hash(cur)}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for first := true; ; first = false {
		next := bigContent(exp.Revision + 1)
		if err := Write(root, bigNote, next, exp); err != nil {
			return err
		}
		exp = Expect{Revision: exp.Revision + 1, Hash: Hash(next)}
		if first {
			fmt.Println("ready")
		}
	}
}

// checkBig asserts the note is exactly some revision ≥ min and that a loader
// listing its folder finds nothing else; it returns the revision.
func checkBig(t *testing.T, root string, min int) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, bigNote))
	if errors.Is(err, os.ErrNotExist) && min == 0 {
		return 0
	}
	if err != nil {
		t.Fatalf("note lost: %v", err)
	}
	rev, ok := RevisionOf(b)
	if !ok || rev < min || !bytes.Equal(b, bigContent(rev)) {
		t.Fatalf("note damaged: revision %d (readable %v, at least %d expected), %d bytes", rev, ok, min, len(b))
	}
	entries, _ := os.ReadDir(filepath.Join(root, filepath.Dir(bigNote)))
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") && e.Name() != "note.md" {
			t.Fatalf("a loader would read %s", e.Name())
		}
		if strings.HasPrefix(e.Name(), ".") && !strings.HasPrefix(e.Name(), ".note.md"+tempMarker) {
			t.Fatalf("unexpected file %s", e.Name())
		}
	}
	return rev
}

func countTemps(t *testing.T, root string) int {
	entries, err := os.ReadDir(filepath.Join(root, filepath.Dir(bigNote)))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if isTemp(e.Name()) {
			n++
		}
	}
	return n
}

// TestCrashKill SIGKILLs a process writing a 1 MB note at random moments.
func TestCrashKill(t *testing.T) {
	const kills = 30
	root := t.TempDir()
	rng := rand.New(rand.NewSource(1))
	rev, midWrite, temps := 0, 0, 0
	for k := 0; k < kills; k++ {
		cmd := workerCmd(t, "big", "MF_STORE_ROOT="+root)
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
			cmd.Wait()
			t.Fatalf("worker said %q", line)
		}
		time.Sleep(time.Duration(rng.Intn(20000)) * time.Microsecond)
		if err := cmd.Process.Kill(); err != nil { // SIGKILL on Unix
			t.Fatal(err)
		}
		err := cmd.Wait()
		if ee, ok := err.(*exec.ExitError); !ok || ee.Success() || ee.ExitCode() == 2 {
			t.Fatalf("worker did not die by the kill: %v", err)
		}
		next := checkBig(t, root, rev+1)
		if n := countTemps(t, root); n > temps {
			midWrite++ // the kill left a temporary file: it hit between create and rename
			temps = n
		}
		rev = next
	}
	t.Logf("%d kills, %d of them between creating and renaming a temporary file; note at revision %d", kills, midWrite, rev)
	// Killed writers leave temporary files; they stay while young, and the
	// next writer removes them once older than a minute.
	dir := filepath.Join(root, filepath.Dir(bigNote))
	entries, _ := os.ReadDir(dir)
	past := time.Now().Add(-2 * time.Minute)
	for _, e := range entries {
		if isTemp(e.Name()) {
			os.Chtimes(filepath.Join(dir, e.Name()), past, past)
		}
	}
	if err := Write(root, bigNote, bigContent(rev+1), Expect{Revision: rev, Hash: Hash(bigContent(rev))}); err != nil {
		t.Fatal(err)
	}
	entries, _ = os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("leftovers not cleaned: %d entries", len(entries))
	}
}

// TestCrashPoints makes the writer exit at each step of the atomic write.
func TestCrashPoints(t *testing.T) {
	for _, c := range []struct {
		point   string
		create  bool
		landed  bool // the new content is on disk afterwards
		leftTmp bool
	}{
		{"after-write", false, false, true},
		{"after-sync", false, false, true},
		{"after-rename", false, true, false},
		{"after-write", true, false, true},
		{"after-rename", true, true, false},
	} {
		name := c.point
		if c.create {
			name += "/create"
		}
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			old, neu := note(1, "old"), note(2, "new")
			exp := Expect{Revision: 1, Hash: Hash(old)}
			if c.create {
				neu, exp = note(1, "new"), Expect{}
			} else if err := Write(root, "d/n.md", old, Expect{}); err != nil {
				t.Fatal(err)
			}
			cmd := workerCmd(t, "crashat", "MF_STORE_ROOT="+root, "MF_STORE_CRASH="+c.point, "MF_STORE_PATH=d/n.md",
				"MF_STORE_CONTENT="+string(neu), "MF_STORE_REV="+strconv.Itoa(exp.Revision), "MF_STORE_HASH="+exp.Hash)
			err := cmd.Run()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != crashExit {
				t.Fatalf("worker exit: %v, want code %d", err, crashExit)
			}
			p := filepath.Join(root, "d", "n.md")
			got, err := os.ReadFile(p)
			switch {
			case c.landed:
				if !bytes.Equal(got, neu) {
					t.Fatalf("after %s: %q, want the new note", c.point, got)
				}
			case c.create:
				if !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("after %s: %q, %v; want no note yet", c.point, got, err)
				}
			default:
				if !bytes.Equal(got, old) {
					t.Fatalf("after %s: %q, want the old note", c.point, got)
				}
			}
			if err == nil {
				if _, ok := RevisionOf(got); !ok {
					t.Fatal("note does not parse")
				}
			}
			entries, _ := os.ReadDir(filepath.Dir(p))
			tmps := 0
			for _, e := range entries {
				switch {
				case isTemp(e.Name()) && strings.HasPrefix(e.Name(), ".n.md"+tempMarker):
					tmps++
				case e.Name() != "n.md":
					t.Errorf("unexpected %s", e.Name())
				}
			}
			if (tmps == 1) != c.leftTmp || tmps > 1 {
				t.Errorf("%d temporary files left, want leftover=%v", tmps, c.leftTmp)
			}
			// The next writer carries on from whatever is there.
			cur, _ := os.ReadFile(p)
			rev, _ := RevisionOf(cur)
			e := Expect{Revision: rev, Hash: Hash(cur)}
			if cur == nil {
				e = Expect{}
			}
			if err := Write(root, "d/n.md", note(rev+1, "after"), e); err != nil {
				t.Fatal(err)
			}
		})
	}
}
