package roam

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
)

// TestGitDaemon runs two machines against a real git server: Debian's git
// daemon on a loopback port, receive-pack enabled. Only the test uses the git
// binary; mf-lsp speaks git:// through go-git.
func TestGitDaemon(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		if os.Getenv("MF_LSP_REQUIRE_GIT") != "" {
			t.Fatal("git is not installed, and .ci/run requires this test")
		}
		t.Skip("git is not installed (.ci/run installs it)")
	}
	dir := t.TempDir()
	base := filepath.Join(dir, "served")
	bareRemote(t, base) // served/remote.git
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	daemon := exec.Command(gitBin, "daemon", "--base-path="+base, "--export-all", "--enable=receive-pack",
		"--listen=127.0.0.1", fmt.Sprintf("--port=%d", port), "--reuseaddr", "--informative-errors", base)
	must(t, daemon.Start())
	defer func() {
		daemon.Process.Kill()
		daemon.Wait()
	}()
	for start := time.Now(); ; {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("git daemon did not listen: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	remote := fmt.Sprintf("git://127.0.0.1:%d/remote.git", port)
	a, b := newMachine(t, dir, "a"), newMachine(t, dir, "b")
	a.write(engine.User, "", "style.md", "one\ntwo\nthree\n")
	a.write(engine.Device, "", "gpu.md", "device-secret-of-a\n")
	b.write(engine.Agent, "larry", "review.md", "tests first\n")
	b.write(engine.Device, "", "gpu.md", "device-secret-of-b\n")
	syncUntilQuiet(t, remote, a, b)
	a.write(engine.User, "", "style.md", "ONE\ntwo\nthree\n")
	b.write(engine.User, "", "style.md", "one\ntwo\nTHREE\n")
	// b pushes while a is between its merge and its push: a's push is
	// rejected by the real server and retried.
	once := false
	beforePush := func() {
		if !once {
			once = true
			b.sync(remote)
		}
	}
	if rep := a.syncWith(Options{Remote: remote, BeforePush: beforePush}); rep.Retries != 1 {
		t.Errorf("retries = %d", rep.Retries)
	}
	syncUntilQuiet(t, remote, a, b)
	sameChains(t, a, b)
	if got, _ := b.read("user/style.md"); !strings.Contains(got, "ONE\ntwo\nTHREE\n") {
		t.Errorf("merged:\n%s", got)
	}
	noDeviceInRemote(t, filepath.Join(base, "remote.git"), a, b)
}

// TestConcurrentMachines: three machines sync in a loop while writing, at
// the same time, to one folder remote. They converge, and every version any
// of them wrote is either the final one or in the remote's history.
func TestConcurrentMachines(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	dir := t.TempDir()
	remote := bareRemote(t, dir)
	ms := []*machine{newMachine(t, dir, "a"), newMachine(t, dir, "b"), newMachine(t, dir, "c")}
	const rounds = 8
	written := make([][]string, len(ms))
	var wg sync.WaitGroup
	errs := make(chan error, len(ms)*rounds)
	for i, mc := range ms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				body := fmt.Sprintf("%s round %d\n", mc.name, r)
				key := fmt.Sprintf("%s-%d.md", mc.name, r%3) // new notes and edits
				p, _ := mc.m.PathOf(engine.User, "", key)
				cur, hash := 0, ""
				if e := mc.m.Note(p); e != nil {
					cur, hash = e.Revision(), e.Hash()
				}
				if _, err := mc.m.Write(engine.WriteRequest{Dimension: engine.User, Key: key, Body: []byte(body), ExpectRevision: cur, ExpectHash: hash}); err != nil {
					errs <- err
					return
				}
				written[i] = append(written[i], body)
				rep, err := Sync(context.Background(), Options{Memory: mc.m, Remote: remote})
				if err != nil {
					errs <- fmt.Errorf("%s: %w", mc.name, err)
					return
				}
				if len(rep.Conflicts) > 0 {
					errs <- fmt.Errorf("%s: conflicts %+v", mc.name, rep.Conflicts)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	syncUntilQuiet(t, remote, ms...)
	sameChains(t, ms...)
	blobs := remoteBlobs(t, remote)
	all := ""
	for _, cs := range blobs {
		all += strings.Join(cs, "\x00")
	}
	lost, total := 0, 0
	for _, ws := range written {
		for _, w := range ws {
			total++
			if !strings.Contains(all, w) {
				lost++
				t.Errorf("lost: %q", w)
			}
		}
	}
	t.Logf("machines 3, writes %d, conflicts 0, lost %d", total, lost)
}
