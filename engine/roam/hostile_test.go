package roam

import (
	"compress/zlib"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/magicfrog/mf-lsp/engine"
)

// A hostile remote: someone (or something) with write access to the sync
// repository commits files no mf-lsp wrote. plant makes such a commit on top
// of the remote's branch: each entry replaces (or adds) one path; a zero hash
// with mode 0 removes it.
type planted struct {
	content string        // a regular file with this content, unless hash is set
	hash    plumbing.Hash // an object already in the remote (a huge blob, a submodule commit)
	mode    filemode.FileMode
}

func plant(t testing.TB, remote string, files map[string]planted) {
	t.Helper()
	plantWith(t, remote, files, "planted\n")
}

// plantWith is plant with the commit message msg.
func plantWith(t testing.TB, remote string, files map[string]planted, msg string) {
	t.Helper()
	r, err := git.PlainOpen(remote)
	must(t, err)
	g := &gitRepo{r: r, staged: memory.NewStorage()}
	head := plumbing.ZeroHash
	if ref, err := r.Reference(branchRef, true); err == nil {
		head = ref.Hash()
	}
	tree, err := g.files(head)
	must(t, err)
	for p, f := range files {
		mode := f.mode
		if mode == 0 {
			mode = filemode.Regular
		}
		h := f.hash
		if h.IsZero() {
			h, err = g.put(plumbing.BlobObject, []byte(f.content))
			must(t, err)
		}
		tree[p] = treeFile{hash: h, mode: mode}
	}
	th, err := g.buildTree(tree)
	must(t, err)
	c, err := g.commit(th, []plumbing.Hash{head}, msg, "mallory", time.Now())
	must(t, err)
	must(t, g.flush())
	must(t, r.Storer.SetReference(plumbing.NewHashReference(branchRef, c)))
}

// hugeBlob writes a loose blob of size bytes of one repeated line into a
// bare repository, streaming: neither the test nor the repository holds it
// in memory. It compresses to a few hundred kilobytes.
func hugeBlob(t testing.TB, repo string, size int64) plumbing.Hash {
	t.Helper()
	tmp, err := os.CreateTemp(repo, "huge-*")
	must(t, err)
	defer os.Remove(tmp.Name())
	sum := sha1.New()
	zw := zlib.NewWriter(tmp)
	w := io.MultiWriter(sum, zw)
	fmt.Fprintf(w, "blob %d\x00", size)
	line := []byte("All work and no play makes a huge note.\n")
	chunk := []byte(strings.Repeat(string(line), 1<<16/len(line)))
	for left := size; left > 0; {
		n := min(left, int64(len(chunk)))
		_, err := w.Write(chunk[:n])
		must(t, err)
		left -= n
	}
	must(t, zw.Close())
	must(t, tmp.Close())
	id := hex.EncodeToString(sum.Sum(nil))
	dir := filepath.Join(repo, "objects", id[:2])
	must(t, os.MkdirAll(dir, 0o755))
	must(t, os.Rename(tmp.Name(), filepath.Join(dir, id[2:])))
	return plumbing.NewHash(id)
}

func (mc *machine) render(agent string) string {
	mc.t.Helper()
	blk, err := mc.m.Render(engine.RenderOptions{Scope: engine.Scope{Task: "T-1", Agents: []string{agent}}})
	must(mc.t, err)
	return blk.Text
}

func (mc *machine) file(rel string) string {
	mc.t.Helper()
	b, err := os.ReadFile(filepath.Join(mc.data, rel))
	if os.IsNotExist(err) {
		return ""
	}
	must(mc.t, err)
	return string(b)
}

func heldConfigPaths(rep *Report) []string {
	var out []string
	for _, h := range rep.HeldConfig {
		out = append(out, h.Path)
	}
	return out
}

// twoAgents is a machine with larry (bound) and moe (on the roster), moe
// with private notes, synced once.
func twoAgents(t *testing.T, dir, remote string) *machine {
	t.Helper()
	a := newMachine(t, dir, "a")
	must(t, os.WriteFile(filepath.Join(a.data, "magicfrog.json"), []byte(`{"agents":["larry","moe"]}`+"\n"), 0o644))
	a.reopen()
	a.write(engine.Agent, "moe", "private.md", "moe's private plans\n")
	a.write(engine.Agent, "larry", "review.md", "larry reviews\n")
	if rep := a.sync(remote); len(rep.HeldConfig) != 0 {
		t.Fatalf("held at the first sync: %+v", rep.HeldConfig)
	}
	return a
}

// The case: a remote commit demotes moe to a shared folder. The
// roster is not written, larry's block stays without moe's notes, sync and
// status say so, and accept (or reject) ends it.
func TestRemoteRosterRewriteHeld(t *testing.T) {
	dir := t.TempDir()
	remote := bareRemote(t, dir)
	a := twoAgents(t, dir, remote)
	before := a.file("magicfrog.json")
	hostile := `{"agents":["larry"],"shared":["moe"]}`
	plant(t, remote, map[string]planted{"magicfrog.json": {content: hostile}})

	rep := a.sync(remote)
	if got := heldConfigPaths(rep); len(got) != 1 || got[0] != "magicfrog.json" {
		t.Fatalf("held config: %+v", rep.HeldConfig)
	}
	h := rep.HeldConfig[0]
	if !strings.Contains(strings.Join(h.Exposes, "\n"), "agent/moe/private.md") {
		t.Errorf("exposes: %q", h.Exposes)
	}
	if a.file("magicfrog.json") != before {
		t.Fatalf("the live roster was rewritten: %s", a.file("magicfrog.json"))
	}
	for _, c := range rep.Pulled {
		if c.Path == "magicfrog.json" {
			t.Errorf("reported as received: %+v", c)
		}
	}
	a.reopen() // a server started now reads the live files
	if blk := a.render("larry"); strings.Contains(blk, "private plans") {
		t.Fatalf("larry sees moe's notes:\n%s", blk)
	}
	// The remote keeps its version; ours is not pushed over it meanwhile.
	if got := remoteFile(t, remote, "magicfrog.json"); got != hostile {
		t.Errorf("remote roster: %s", got)
	}
	// Status shows it, and so does every later sync, until decided.
	st, err := Sync(context.Background(), Options{Memory: a.m, Status: true})
	must(t, err)
	if got := heldConfigPaths(st); len(got) != 1 {
		t.Fatalf("status held config: %+v", st.HeldConfig)
	}
	if rep := a.sync(remote); len(rep.HeldConfig) != 1 {
		t.Fatalf("second sync: %+v", rep.HeldConfig)
	}
	if err := Accept(context.Background(), a.m, "nope.json"); err == nil {
		t.Error("accepted a path that is not held")
	}

	// Accept: the remote's roster becomes the live one, and the next sync
	// is quiet about it.
	must(t, Accept(context.Background(), a.m, "magicfrog.json"))
	if got := a.file("magicfrog.json"); got != hostile {
		t.Fatalf("accepted roster: %s", got)
	}
	if blk := a.render("larry"); !strings.Contains(blk, "private plans") {
		t.Errorf("after accept larry should see the shared folder:\n%s", blk)
	}
	if rep := a.sync(remote); len(rep.HeldConfig) != 0 || !rep.Quiet() {
		t.Fatalf("after accept: %+v", rep)
	}
}

func TestRemoteRosterRewriteRejected(t *testing.T) {
	dir := t.TempDir()
	remote := bareRemote(t, dir)
	a := twoAgents(t, dir, remote)
	before := a.file("magicfrog.json")
	plant(t, remote, map[string]planted{"magicfrog.json": {content: `{"agents":["larry"],"shared":["moe"]}`}})
	if rep := a.sync(remote); len(rep.HeldConfig) != 1 {
		t.Fatalf("held: %+v", rep.HeldConfig)
	}
	if err := Reject(context.Background(), a.m, "magicfrog.json"); err != nil {
		t.Fatal(err)
	}
	// The next sync sends this machine's roster over the remote's.
	rep := a.sync(remote)
	if len(rep.HeldConfig) != 0 || len(rep.Pushed) != 1 || rep.Pushed[0].Path != "magicfrog.json" {
		t.Fatalf("after reject: %+v", rep)
	}
	if got := remoteFile(t, remote, "magicfrog.json"); got != before {
		t.Errorf("remote roster after reject: %s", got)
	}
	if a.file("magicfrog.json") != before {
		t.Errorf("live roster changed: %s", a.file("magicfrog.json"))
	}
}

// Changes that only narrow, or are harmless, are taken as before: a remote
// that drops an agent from the roster (its folder becomes unregistered: no
// one's view), one that adds an agent, a layer over a prefix no note uses.
// Widening ones are held: a shared folder naming a registered agent, a
// shared folder over an unregistered one, a changed journal prefix.
func TestRemoteConfigNarrowTakenWideHeld(t *testing.T) {
	layersJournal := `{"layers":[{"name":"journal","prefix":"journal/","kind":"fractal"}]}` + "\n"
	cases := []struct {
		name   string
		path   string
		remote string
		held   bool
	}{
		{"drop an agent", "magicfrog.json", `{"agents":["larry"]}`, false},
		{"add an agent", "magicfrog.json", `{"agents":["larry","moe","curly"]}`, false},
		{"shared names a registered agent", "magicfrog.json", `{"agents":["larry","moe"],"shared":["moe"]}`, true},
		{"shared over an unregistered folder", "magicfrog.json", `{"agents":["larry","moe"],"shared":["stray"]}`, true},
		{"shared over no folder", "magicfrog.json", `{"agents":["larry","moe"],"shared":["team"]}`, false},
		{"demote", "magicfrog.json", `{"agents":["larry"],"shared":["moe"]}`, true},
		{"a new layer no note is in", "layers.json", `{"layers":[{"name":"journal","prefix":"journal/","kind":"fractal"},{"name":"recipes","prefix":"recipes/"}]}`, false},
		{"a journal's prefix changed", "layers.json", `{"layers":[{"name":"journal","prefix":"diary/","kind":"fractal"}]}`, true},
		{"layers.json removed", "layers.json", "", true},
		{"a layer prefix over an unregistered folder", "layers.json", `{"layers":[{"name":"journal","prefix":"journal/","kind":"fractal"},{"name":"x","prefix":"stray/"}]}`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			remote := bareRemote(t, dir)
			a := newMachine(t, dir, "a")
			must(t, os.WriteFile(filepath.Join(a.data, "magicfrog.json"), []byte(`{"agents":["larry","moe"]}`+"\n"), 0o644))
			must(t, os.WriteFile(filepath.Join(a.data, "memory", "layers.json"), []byte(layersJournal), 0o644))
			a.reopen()
			a.write(engine.Agent, "moe", "private.md", "moe's private plans\n")
			a.write(engine.User, "", "journal/2020-01-01.md", "an old day, out of the boot set\n")
			must(t, os.MkdirAll(filepath.Join(a.data, "memory", "agent", "stray"), 0o755))
			must(t, os.WriteFile(filepath.Join(a.data, "memory", "agent", "stray", "x.md"), []byte("stray notes\n"), 0o644))
			a.reopen()
			a.sync(remote)
			rel := c.path
			if rel == layersPath {
				rel = "memory/layers.json"
			}
			before := a.file(rel)
			if c.remote == "" {
				removeFromRemote(t, remote, c.path)
			} else {
				plant(t, remote, map[string]planted{c.path: {content: c.remote}})
			}
			rep := a.sync(remote)
			if got := len(rep.HeldConfig) == 1; got != c.held {
				t.Fatalf("held = %v, want %v: %+v", got, c.held, rep.HeldConfig)
			}
			switch after := a.file(rel); {
			case c.held && after != before:
				t.Errorf("held, but the live file changed: %q", after)
			case !c.held && after != c.remote:
				t.Errorf("taken, but the live file is %q", after)
			}
		})
	}
}

func removeFromRemote(t testing.TB, remote, p string) {
	t.Helper()
	r, err := git.PlainOpen(remote)
	must(t, err)
	g := &gitRepo{r: r, staged: memory.NewStorage()}
	ref, err := r.Reference(branchRef, true)
	must(t, err)
	tree, err := g.files(ref.Hash())
	must(t, err)
	delete(tree, p)
	th, err := g.buildTree(tree)
	must(t, err)
	c, err := g.commit(th, []plumbing.Hash{ref.Hash()}, "removed\n", "mallory", time.Now())
	must(t, err)
	must(t, g.flush())
	must(t, r.Storer.SetReference(plumbing.NewHashReference(branchRef, c)))
}

// remoteFile is a path's content at the remote's head ("" when absent).
func remoteFile(t testing.TB, remote, p string) string {
	t.Helper()
	f, err := remoteHeadCommit(t, remote).File(p)
	if err != nil {
		return ""
	}
	s, err := f.Contents()
	must(t, err)
	return s
}

// Every path and blob sync sends is scanned: the configuration files and
// the file names too. One finding holds back that entry alone.
func TestSecretsInConfigAndNames(t *testing.T) {
	awsKey := "AKIA" + "IOSFODNN7" + "QWERTYZ"
	dir := t.TempDir()
	remote := bareRemote(t, dir)
	a := newMachine(t, dir, "a")
	must(t, os.WriteFile(filepath.Join(a.data, "magicfrog.json"), []byte(`{"agents":["larry"],"github":"`+githubPAT+`"}`+"\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(a.data, "memory", "layers.json"), []byte(`{"layers":[],"aws":"`+awsKey+`"}`+"\n"), 0o644))
	a.reopen()
	a.write(engine.User, "", githubPAT+".md", "an innocent body\n")
	a.write(engine.User, "", "plain.md", "nothing secret\n")
	rep := a.sync(remote)
	held := map[string]Held{}
	for _, h := range rep.Held {
		held[h.Path] = h
	}
	for _, p := range []string{"magicfrog.json", "layers.json", "user/" + githubPAT + ".md"} {
		if h, ok := held[p]; !ok || len(h.Findings) == 0 {
			t.Errorf("%s not held for a secret: %+v", p, rep.Held)
		}
	}
	if h := held["user/"+githubPAT+".md"]; len(h.Findings) > 0 && h.Findings[0].Line != 0 {
		t.Errorf("a finding in the name has line %d, want 0", h.Findings[0].Line)
	}
	if len(rep.Pushed) != 1 || rep.Pushed[0].Path != "user/plain.md" {
		t.Errorf("pushed: %+v", rep.Pushed)
	}
	for p, cs := range remoteBlobs(t, remote) {
		if strings.Contains(p, githubPAT) {
			t.Errorf("the secret left as a file name: %s", p)
		}
		for _, c := range cs {
			if strings.Contains(c, githubPAT) || strings.Contains(c, awsKey) {
				t.Errorf("the secret left in %s", p)
			}
		}
	}
}

// A 300 MB note in the remote (a few hundred kilobytes once compressed) is
// skipped from its size, never read; a link, a submodule and a bad name
// beside it are skipped too, and the good note beside them is taken.
func TestHugeBlobSkippedUnread(t *testing.T) {
	if raceEnabled {
		t.Skip("bounds what the sync allocates: the race detector's own allocations make that bound meaningless (the plain go test run holds it)")
	}
	if testing.Short() {
		t.Skip("writes a 300 MB blob (compressed: a few hundred KB)")
	}
	dir := t.TempDir()
	remote := bareRemote(t, dir)
	a := newMachine(t, dir, "a")
	a.write(engine.User, "", "mine.md", "mine\n")
	a.sync(remote)
	t0 := time.Now()
	huge := hugeBlob(t, remote, 300<<20)
	t.Logf("wrote the huge blob in %v", time.Since(t0).Round(time.Millisecond))
	plant(t, remote, map[string]planted{
		"user/huge.md":   {hash: huge},
		"user/link.md":   {content: "../../../etc/passwd", mode: filemode.Symlink},
		"user/sub.md":    {hash: plumbing.NewHash(strings.Repeat("ab", 20)), mode: filemode.Submodule},
		"user/a\x01b.md": {content: "a control character in the name\n"},
		"user/good.md":   {content: "---\nrevision: 1\nupdated: 2026-01-01T00:00:00.000Z\n---\ngood\n"},
	})
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	start := time.Now()
	rep := a.sync(remote)
	elapsed := time.Since(start)
	runtime.ReadMemStats(&m1)
	alloc := m1.TotalAlloc - m0.TotalAlloc
	t.Logf("sync with a 300 MB blob in the remote: %v, %d MB allocated", elapsed.Round(time.Millisecond), alloc>>20)
	// The fetch indexes the pack go-git's way, inflating each object once
	// into a buffer (300 MB here); the sync itself reads nothing of it, and
	// the file remote serves it streaming. Reading it whole (io.ReadAll
	// doubling its way up to 300 MB) would be at least twice that.
	if alloc > 450<<20 {
		t.Errorf("the sync allocated %d MB: the huge blob was read", alloc>>20)
	}
	// With nothing new to fetch, the plan meets the huge entry again and
	// still reads none of it.
	runtime.GC()
	runtime.ReadMemStats(&m0)
	again := a.sync(remote)
	runtime.ReadMemStats(&m1)
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 48<<20 {
		t.Errorf("a sync with nothing to fetch allocated %d MB: the huge blob was read", alloc>>20)
	} else {
		t.Logf("the next sync: %d MB allocated", alloc>>20)
	}
	if len(again.Ignored) != 4 {
		t.Errorf("next sync ignored: %+v", again.Ignored)
	}
	ignored := map[string]string{}
	for _, h := range rep.Ignored {
		ignored[h.Path] = h.Reason
	}
	for _, p := range []string{"user/huge.md", "user/link.md", "user/sub.md", "user/a\x01b.md"} {
		if _, ok := ignored[p]; !ok {
			t.Errorf("%q not reported as not taken: %+v", p, rep.Ignored)
		}
	}
	if r := ignored["user/huge.md"]; !strings.Contains(r, "314572800 bytes") {
		t.Errorf("huge: %q", r)
	}
	if len(rep.Pulled) != 1 || rep.Pulled[0].Path != "user/good.md" {
		t.Errorf("pulled: %+v", rep.Pulled)
	}
	if got, _ := a.read("user/good.md"); !strings.Contains(got, "good") {
		t.Errorf("good.md: %q", got)
	}
	// And the next sync goes on the same way.
	a.write(engine.User, "", "mine.md", "mine, again\n")
	if rep := a.sync(remote); len(rep.Pushed) != 1 {
		t.Errorf("next sync: %+v", rep)
	}
}

// TestHostileRemoteTorture plants, in one commit beside good notes, every
// hostility at once — a roster that demotes an agent, a changed journal
// prefix, a configuration file too large to read, a large blob, a link, a
// submodule, names with ".git" and a control character, a binary note,
// a device note, a file that is no note — and syncs two machines through it
// several times. Every sync must finish; the good notes arrive; no live
// configuration changes; no one's block gains a note; nothing that carries a
// secret on either machine ever reaches the remote; later syncs are quiet.
func TestHostileRemoteTorture(t *testing.T) {
	dir := t.TempDir()
	remote := bareRemote(t, dir)
	layers := `{"layers":[{"name":"journal","prefix":"journal/","kind":"fractal"}]}` + "\n"
	roster := `{"agents":["larry","moe"]}` + "\n"
	awsKey := "AKIA" + "IOSFODNN7" + "QWERTYZ"
	var ms []*machine
	for _, name := range []string{"a", "b"} {
		mc := newMachine(t, dir, name)
		must(t, os.WriteFile(filepath.Join(mc.data, "magicfrog.json"), []byte(roster), 0o644))
		must(t, os.WriteFile(filepath.Join(mc.data, "memory", "layers.json"), []byte(layers), 0o644))
		mc.reopen()
		mc.write(engine.Agent, "moe", "private-"+name+".md", "moe's private plans on "+name+"\n")
		mc.write(engine.User, "", "journal/2020-01-0"+string('1'+rune(len(ms)))+".md", "an old day of "+name+"\n")
		ms = append(ms, mc)
	}
	a, b := ms[0], ms[1]
	syncUntilQuiet(t, remote, a, b)
	// b's user pastes secrets into its configuration and a note's name:
	// b's own changes, which must never leave.
	must(t, os.WriteFile(filepath.Join(b.data, "magicfrog.json"), []byte(`{"agents":["larry","moe"],"token":"`+githubPAT+`"}`+"\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(b.data, "memory", "layers.json"), []byte(`{"layers":[{"name":"journal","prefix":"journal/","kind":"fractal"}],"aws":"`+awsKey+`"}`+"\n"), 0o644))
	b.reopen()
	b.write(engine.User, "", "keys/"+githubPAT+".md", "an innocent body\n")

	big := hugeBlob(t, remote, 64<<20)
	plant(t, remote, map[string]planted{
		"magicfrog.json":          {content: `{"agents":["larry"],"shared":["moe"]}`},
		"user/huge.md":            {hash: big},
		"user/link.md":            {content: "../../../../etc/passwd", mode: filemode.Symlink},
		"user/sub.md":             {hash: plumbing.NewHash(strings.Repeat("cd", 20)), mode: filemode.Submodule},
		"user/.git/hooks/x.md":    {content: "a hook\n"},
		"user/ctl\x1b[2J.md":      {content: "a terminal escape in the name\n"},
		"user/binary.md":          {content: "a NUL \x00 byte\n"},
		"user/device.md":          {content: "---\nrevision: 1\nmachine: id-mallory\n---\nmallory's device\n"},
		"user/readme.txt":         {content: "not a note\n"},
		"agent/larry/good.md":     {content: "---\nrevision: 1\n---\nlarry's good note\n"},
		"task/T-1/good-task.md":   {content: "---\nrevision: 1\n---\na good task note\n"},
		"task/T-9/other.md":       {content: "another project's task: carried along\n"},
		"account/acme.md":         {content: "---\nrevision: 1\n---\nAcme.\n"},
		"user/journal/2020-02.md": {content: "---\nrevision: 1\n---\nanother old journal day\n"},
	})
	// Then a second commit changes the journal's prefix: every old day
	// would render whole.
	plant(t, remote, map[string]planted{"layers.json": {content: `{"layers":[{"name":"journal","prefix":"diary/","kind":"fractal"}]}`}})

	for round := 0; round < 3; round++ {
		for _, mc := range ms {
			rep, err := Sync(context.Background(), Options{Memory: mc.m, Remote: remote})
			if err != nil {
				t.Fatalf("round %d, %s: sync failed: %v", round, mc.name, err)
			}
			// On b, whose own configuration changed too, the remote's roster
			// merges with b's (and holds b's token: held back for it) and its
			// one-line layers.json is a conflict: either way not written.
			wantHeld := 2
			if mc == b {
				wantHeld = 0
				if len(rep.Conflicts) != 1 || rep.Conflicts[0].Path != "layers.json" {
					t.Fatalf("round %d, b: conflicts %+v", round, rep.Conflicts)
				}
			} else if len(rep.Conflicts) > 0 {
				t.Fatalf("round %d, %s: conflicts %+v", round, mc.name, rep.Conflicts)
			}
			if got := heldConfigPaths(rep); len(got) != wantHeld {
				t.Errorf("round %d, %s: held config %v", round, mc.name, got)
			}
			if round > 0 && (len(rep.Pulled) > 0 || len(rep.Pushed) > 0) {
				t.Errorf("round %d, %s: not quiet: pulled %+v pushed %+v", round, mc.name, rep.Pulled, rep.Pushed)
			}
			ignored := map[string]bool{}
			for _, h := range rep.Ignored {
				ignored[h.Path] = true
			}
			for _, p := range []string{"user/huge.md", "user/link.md", "user/sub.md", "user/ctl\x1b[2J.md", "user/binary.md", "user/device.md", "user/readme.txt"} {
				if !ignored[p] {
					t.Errorf("round %d, %s: %q not reported: %+v", round, mc.name, p, rep.Ignored)
				}
			}
		}
	}
	for _, mc := range ms {
		mc.reopen() // what a server started now would read
		if got := mc.file("magicfrog.json"); got != roster && !strings.Contains(got, "token") {
			t.Errorf("%s: live roster changed: %s", mc.name, got)
		}
		if got := mc.file("memory/layers.json"); !strings.Contains(got, `"journal/"`) {
			t.Errorf("%s: live layers changed: %s", mc.name, got)
		}
		blk := mc.render("larry")
		for _, leak := range []string{"private plans", "an old day", "another old journal day", "mallory", "NUL"} {
			if strings.Contains(blk, leak) {
				t.Errorf("%s: larry's block shows %q:\n%s", mc.name, leak, blk)
			}
		}
		for _, want := range []string{"larry's good note", "a good task note", "Acme."} {
			if !strings.Contains(blk, want) {
				t.Errorf("%s: larry's block lacks %q:\n%s", mc.name, want, blk)
			}
		}
		for _, p := range []string{"memory/user/.git", "memory/user/readme.txt", "memory/user/link.md", "memory/user/huge.md"} {
			if _, err := os.Lstat(filepath.Join(mc.data, p)); err == nil {
				t.Errorf("%s: %s was written", mc.name, p)
			}
		}
	}
	blobs := remoteBlobs(t, remote)
	for p, cs := range blobs {
		if strings.Contains(p, githubPAT) {
			t.Errorf("a secret left as a file name: %q", p)
		}
		for _, c := range cs {
			if strings.Contains(c, githubPAT) || strings.Contains(c, awsKey) {
				t.Errorf("a secret left in %q", p)
			}
		}
	}
	if _, ok := blobs["task/T-9/other.md"]; !ok {
		t.Error("another project's task notes were not carried along")
	}
}

// A machine without a roster cannot reject one: the next sync would send
// "none", deleting the remote's roster for every machine.
func TestRejectWithoutLocalFileRefused(t *testing.T) {
	dir := t.TempDir()
	remote := bareRemote(t, dir)
	a := newMachine(t, dir, "a")
	must(t, os.MkdirAll(filepath.Join(a.data, "memory", "agent", "stray"), 0o755))
	must(t, os.WriteFile(filepath.Join(a.data, "memory", "agent", "stray", "x.md"), []byte("stray notes\n"), 0o644))
	a.reopen()
	a.sync(remote)
	plant(t, remote, map[string]planted{"magicfrog.json": {content: `{"agents":["larry"],"shared":["stray"]}`}})
	if rep := a.sync(remote); len(rep.HeldConfig) != 1 {
		t.Fatalf("held: %+v", rep.HeldConfig)
	}
	if err := Reject(context.Background(), a.m, "magicfrog.json"); err == nil || !strings.Contains(err.Error(), "delete the remote's") {
		t.Fatalf("reject: %v", err)
	}
	if a.file("magicfrog.json") != "" {
		t.Fatal("a roster appeared")
	}
	must(t, Accept(context.Background(), a.m, "magicfrog.json"))
	if rep := a.sync(remote); len(rep.HeldConfig) != 0 || !rep.Quiet() {
		t.Fatalf("after accept: %+v", rep)
	}
}
