package roam

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/magicfrog/mf-lsp/engine"
)

// machine is one data directory (and project) with its own machine ID.
type machine struct {
	t    testing.TB
	name string
	data string
	proj string
	m    *engine.Memory
}

// newMachine makes a data directory with a machine ID, the default folders
// and a project bound to task T-1.
func newMachine(t testing.TB, dir, name string) *machine {
	t.Helper()
	data := filepath.Join(dir, name, "data")
	proj := filepath.Join(dir, name, "project")
	for _, d := range []string{"memory/account", "memory/user", "memory/agent", "memory/device"} {
		must(t, os.MkdirAll(filepath.Join(data, d), 0o755))
	}
	must(t, os.MkdirAll(filepath.Join(proj, ".magicfrog", "memory"), 0o755))
	must(t, os.WriteFile(filepath.Join(data, "machine-id"), []byte("id-"+name+"\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(proj, ".magicfrog", "config.json"), []byte(`{"task": "T-1", "agents": ["larry"]}`), 0o644))
	mc := &machine{t: t, name: name, data: data, proj: proj}
	mc.reopen()
	return mc
}

func (mc *machine) reopen() {
	m, err := engine.Open(engine.Options{DataDir: mc.data, ProjectDir: mc.proj})
	must(mc.t, err)
	mc.m = m
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// write writes a note through the engine, as an agent or editor would.
func (mc *machine) write(d engine.Dimension, scope, key, body string) {
	mc.t.Helper()
	cur := 0
	hash := ""
	if p, err := mc.m.PathOf(d, scope, key); err == nil {
		if e := mc.m.Note(p); e != nil {
			cur, hash = e.Revision(), e.Hash()
		}
	}
	_, err := mc.m.Write(engine.WriteRequest{Dimension: d, Owner: scope, Key: key, Body: []byte(body), ExpectRevision: cur, ExpectHash: hash})
	must(mc.t, err)
}

func (mc *machine) remove(d engine.Dimension, scope, key string) {
	mc.t.Helper()
	p, err := mc.m.PathOf(d, scope, key)
	must(mc.t, err)
	e := mc.m.Note(p)
	if e == nil {
		mc.t.Fatalf("%s: no note %s", mc.name, p)
	}
	must(mc.t, mc.m.Delete(p, e.Revision(), e.Hash()))
}

func (mc *machine) sync(remote string) *Report {
	mc.t.Helper()
	return mc.syncWith(Options{Remote: remote})
}

// syncWith syncs with o (its Memory set to the machine's), or fails the test.
func (mc *machine) syncWith(o Options) *Report {
	mc.t.Helper()
	o.Memory = mc.m
	rep, err := Sync(context.Background(), o)
	if err != nil {
		mc.t.Fatalf("%s: sync: %v", mc.name, err)
	}
	return rep
}

// chain lists every chain note (and the roster and layers) with its content:
// what must be identical on every machine once syncs are quiet.
func (mc *machine) chain() map[string]string {
	out := map[string]string{}
	for _, e := range mc.m.Notes() {
		if e.Dimension == engine.Device {
			continue
		}
		rel, _ := filepath.Rel(mc.data, e.Path)
		if e.Dimension == engine.Task {
			rel, _ = filepath.Rel(mc.proj, e.Path)
		}
		out[filepath.ToSlash(rel)] = string(e.TextOrNil())
	}
	return out
}

// bareRemote makes an empty bare repository.
func bareRemote(t testing.TB, dir string) string {
	p := filepath.Join(dir, "remote.git")
	_, err := git.PlainInit(p, true)
	must(t, err)
	return p
}

// syncUntilQuiet syncs every machine in turn until a full round moves
// nothing; it fails after rounds rounds.
func syncUntilQuiet(t testing.TB, remote string, ms ...*machine) {
	t.Helper()
	for round := 0; round < 6; round++ {
		quiet := true
		for _, mc := range ms {
			rep := mc.sync(remote)
			if len(rep.Conflicts) > 0 {
				t.Fatalf("%s: unexpected conflicts %+v", mc.name, rep.Conflicts)
			}
			if !rep.Quiet() {
				quiet = false
			}
		}
		if quiet {
			return
		}
	}
	t.Fatal("syncs did not become quiet in 6 rounds")
}

// sameChains fails unless every machine has the same chain notes.
func sameChains(t testing.TB, ms ...*machine) {
	t.Helper()
	want := ms[0].chain()
	for _, mc := range ms[1:] {
		got := mc.chain()
		for p, w := range want {
			if got[p] != w {
				t.Errorf("%s and %s differ at %s:\n%q\n%q", ms[0].name, mc.name, p, w, got[p])
			}
		}
		for p := range got {
			if _, ok := want[p]; !ok {
				t.Errorf("%s has %s, %s does not", mc.name, p, ms[0].name)
			}
		}
	}
}

// remoteBlobs walks every commit of the remote and returns every path ever
// committed with its contents.
func remoteBlobs(t testing.TB, remote string) map[string][]string {
	t.Helper()
	r, err := git.PlainOpen(remote)
	must(t, err)
	out := map[string][]string{}
	iter, err := r.CommitObjects()
	must(t, err)
	must(t, iter.ForEach(func(c *object.Commit) error {
		tree, err := c.Tree()
		if err != nil {
			return err
		}
		// Every name, those a hostile remote planted included.
		w := object.NewTreeWalker(tree, true, nil)
		defer w.Close()
		w.SkipPathValidation()
		for {
			name, e, err := w.Next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			if !e.Mode.IsFile() || e.Mode == filemode.Submodule {
				continue
			}
			b, err := r.BlobObject(e.Hash)
			if err != nil {
				continue // a huge blob planted loose is there; a submodule's commit is not
			}
			if b.Size > 8<<20 {
				out[name] = append(out[name], "")
				continue
			}
			rd, err := b.Reader()
			if err != nil {
				return err
			}
			c, err := io.ReadAll(rd)
			rd.Close()
			if err != nil {
				return err
			}
			out[name] = append(out[name], string(c))
		}
	}))
	return out
}

// eachFile calls fn with every file of every commit of iter.
func eachFile(iter object.CommitIter, fn func(name, content string)) error {
	return iter.ForEach(func(c *object.Commit) error {
		tree, err := c.Tree()
		if err != nil {
			return err
		}
		return tree.Files().ForEach(func(f *object.File) error {
			s, err := f.Contents()
			fn(f.Name, s)
			return err
		})
	})
}

// noDeviceInRemote fails if any blob of any commit holds a device note.
func noDeviceInRemote(t testing.TB, remote string, ms ...*machine) {
	t.Helper()
	for p, contents := range remoteBlobs(t, remote) {
		if strings.HasPrefix(p, "device/") || strings.HasPrefix(p, "machine/") {
			t.Errorf("remote has %s", p)
		}
		for _, c := range contents {
			for _, mc := range ms {
				if strings.Contains(c, "machine: id-"+mc.name) || strings.Contains(c, "device-secret-of-"+mc.name) {
					t.Errorf("remote blob at %s holds %s's device note:\n%s", p, mc.name, c)
				}
			}
		}
	}
}

func TestTwoMachinesConverge(t *testing.T) {
	dir := t.TempDir()
	remote := bareRemote(t, dir)
	a, b := newMachine(t, dir, "a"), newMachine(t, dir, "b")
	a.write(engine.User, "", "style.md", "Prefer small functions.\n")
	a.write(engine.Agent, "larry", "notes/review.md", "Review tests first.\n")
	a.write(engine.Task, "", "progress.md", "Started.\n")
	a.write(engine.Device, "", "gpu.md", "device-secret-of-a\n")
	b.write(engine.Account, "", "org.md", "Acme.\n")
	b.write(engine.Device, "", "gpu.md", "device-secret-of-b\n")
	syncUntilQuiet(t, remote, a, b)
	sameChains(t, a, b)
	if len(a.chain()) < 4 {
		t.Fatalf("too few notes: %v", a.chain())
	}

	// Edit on one side, delete on the other, a clean both-sides edit.
	a.write(engine.User, "", "style.md", "Prefer small functions.\nName things well.\n")
	b.remove(engine.Account, "", "org.md")
	a.write(engine.Task, "", "progress.md", "Started.\nHalf done.\n")
	b.write(engine.Task, "", "progress.md", "Begun:\nStarted.\n")
	syncUntilQuiet(t, remote, a, b)
	sameChains(t, a, b)
	got := a.chain()
	if _, ok := got["memory/account/org.md"]; ok {
		t.Error("the deletion did not travel")
	}
	if p := got[".magicfrog/memory/progress.md"]; !strings.Contains(p, "Begun:\nStarted.\nHalf done.\n") || !strings.Contains(p, "revision: 3") {
		t.Errorf("merged note:\n%s", p)
	}
	for _, mc := range []*machine{a, b} {
		dev := 0
		for _, e := range mc.m.Notes() {
			if e.Dimension == engine.Device {
				dev++
				if e.Machine() != "id-"+mc.name {
					t.Errorf("%s has a device note of %s", mc.name, e.Machine())
				}
			}
		}
		if dev != 1 {
			t.Errorf("%s has %d device notes", mc.name, dev)
		}
	}
	noDeviceInRemote(t, remote, a, b)
	paths := []string{}
	for p := range remoteBlobs(t, remote) {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	if !strings.Contains(strings.Join(paths, " "), "task/progress.md") {
		t.Errorf("the project's shared task notes are not at task/ (the portable tree's place): %v", paths)
	}
}

var _ = fmt.Sprint
var _ = fs.ErrNotExist
var _ = time.Now

func (mc *machine) repo() *gitRepo {
	g, err := openRepo(mc.data, "", nil)
	must(mc.t, err)
	return g
}

func hashOf(s string) plumbing.Hash { return plumbing.NewHash(s) }
