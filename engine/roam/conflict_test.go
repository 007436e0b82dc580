package roam

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/textmerge"
)

func twoSynced(t *testing.T) (a, b *machine, remote string) {
	dir := t.TempDir()
	remote = bareRemote(t, dir)
	a, b = newMachine(t, dir, "a"), newMachine(t, dir, "b")
	a.write(engine.User, "", "style.md", "one\ntwo\nthree\n")
	a.write(engine.User, "", "gone.md", "to be deleted\n")
	a.write(engine.User, "", "kept.md", "to be kept\n")
	syncUntilQuiet(t, remote, a, b)
	return a, b, remote
}

func (mc *machine) read(rel string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(mc.data, "memory", filepath.FromSlash(rel)))
	return string(b), err == nil
}

func TestConflictBothChanged(t *testing.T) {
	a, b, remote := twoSynced(t)
	a.write(engine.User, "", "style.md", "one\nTWO (a)\nthree\n")
	b.write(engine.User, "", "style.md", "one\nTWO (b)\nthree\n")
	a.sync(remote)
	rep := b.sync(remote)
	if len(rep.Conflicts) != 1 || rep.Conflicts[0].Path != "user/style.md" {
		t.Fatalf("conflicts: %+v", rep.Conflicts)
	}
	mine, _ := b.read("user/style.md")
	if !strings.Contains(mine, "TWO (b)") {
		t.Fatalf("the local note did not stay:\n%s", mine)
	}
	theirs, err := os.ReadFile(rep.Conflicts[0].File)
	must(t, err)
	if !strings.Contains(string(theirs), "TWO (a)") || !strings.HasPrefix(rep.Conflicts[0].File, filepath.Join(b.data, "sync")) {
		t.Fatalf("the remote version is not kept beside the state: %s\n%s", rep.Conflicts[0].File, theirs)
	}
	for _, e := range b.m.Notes() {
		if strings.Contains(string(e.TextOrNil()), "TWO (a)") {
			t.Fatalf("the remote version is in the memory tree: %s", e.Path)
		}
	}
	// It stays a conflict, and neither side's version moves, until resolved.
	if rep := b.sync(remote); len(rep.Conflicts) != 1 {
		t.Fatalf("the conflict went away by itself: %+v", rep)
	}
	if rep := a.sync(remote); len(rep.Pulled) != 0 {
		t.Fatalf("a pulled %+v", rep.Pulled)
	}
	must(t, Resolve(context.Background(), b.m, "user/style.md", "theirs", time.Now()))
	syncUntilQuiet(t, remote, a, b)
	sameChains(t, a, b)
	got, _ := a.read("user/style.md")
	if !strings.Contains(got, "TWO (a)") || !strings.Contains(got, "revision: 3") {
		t.Fatalf("after take theirs:\n%s", got)
	}
	if _, err := os.Stat(rep.Conflicts[0].File); !errors.Is(err, os.ErrNotExist) {
		t.Error("the kept remote version outlived the conflict")
	}
	// Both versions are in the history.
	vs, _, err := History(context.Background(), b.m, "user/style.md", false)
	must(t, err)
	joined := ""
	for _, v := range vs {
		c, _ := b.repo().blob(hashOf(v.Blob))
		joined += string(c)
	}
	if !strings.Contains(joined, "TWO (a)") || !strings.Contains(joined, "TWO (b)") && len(vs) < 2 {
		t.Errorf("history %+v", vs)
	}
}

func TestConflictKeepMine(t *testing.T) {
	a, b, remote := twoSynced(t)
	a.write(engine.User, "", "style.md", "one\nTWO (a)\nthree\n")
	b.write(engine.User, "", "style.md", "one\nTWO (b)\nthree\n")
	a.sync(remote)
	if rep := b.sync(remote); len(rep.Conflicts) != 1 {
		t.Fatal("no conflict")
	}
	must(t, Resolve(context.Background(), b.m, "user/style.md", "mine", time.Now()))
	syncUntilQuiet(t, remote, a, b)
	sameChains(t, a, b)
	if got, _ := a.read("user/style.md"); !strings.Contains(got, "TWO (b)") {
		t.Fatalf("after keep mine:\n%s", got)
	}
}

func TestConflictDeleteAgainstChange(t *testing.T) {
	a, b, remote := twoSynced(t)
	a.remove(engine.User, "", "gone.md")            // deleted here …
	b.write(engine.User, "", "gone.md", "edited\n") // … changed there
	b.write(engine.User, "", "kept.md", "edited on b\n")
	a.remove(engine.User, "", "kept.md")
	b.sync(remote)
	rep := a.sync(remote)
	kinds := map[string]string{}
	for _, c := range rep.Conflicts {
		kinds[c.Path] = c.Reason
	}
	if !strings.Contains(kinds["user/gone.md"], "deleted here") || !strings.Contains(kinds["user/kept.md"], "deleted here") {
		t.Fatalf("conflicts: %+v", rep.Conflicts)
	}
	if _, ok := a.read("user/gone.md"); ok {
		t.Fatal("the local deletion did not stay")
	}
	// The other way round on b: changed here, deleted there.
	c := newMachine(t, filepath.Dir(filepath.Dir(a.data)), "c")
	syncUntilQuiet(t, remote, c)
	c.remove(engine.User, "", "gone.md")
	c.sync(remote)
	b.write(engine.User, "", "gone.md", "edited again\n")
	rep = b.sync(remote)
	if len(rep.Conflicts) != 1 || !strings.Contains(rep.Conflicts[0].Reason, "deleted on the remote") {
		t.Fatalf("conflicts: %+v", rep.Conflicts)
	}
	if got, _ := b.read("user/gone.md"); !strings.Contains(got, "edited again") {
		t.Fatal("the local note did not stay")
	}
}

func TestThreeMachinesConverge(t *testing.T) {
	dir := t.TempDir()
	remote := bareRemote(t, dir)
	ms := []*machine{newMachine(t, dir, "a"), newMachine(t, dir, "b"), newMachine(t, dir, "c")}
	for i, mc := range ms {
		mc.write(engine.User, "", mc.name+".md", "from "+mc.name+"\n")
		mc.write(engine.Agent, "larry", "shared.md", strings.Repeat("line\n", i)+mc.name+" was here\n"+strings.Repeat("x\n", 10)+strings.Repeat("tail\n", 3-i))
		mc.write(engine.Device, "", "local.md", "device-secret-of-"+mc.name+"\n")
	}
	// Three different first versions of one note: the first to sync wins,
	// the others conflict and are resolved by keeping theirs.
	for _, mc := range ms {
		rep := mc.sync(remote)
		for _, c := range rep.Conflicts {
			must(t, Resolve(context.Background(), mc.m, c.Path, "theirs", time.Now()))
		}
	}
	syncUntilQuiet(t, remote, ms...)
	for round := 0; round < 3; round++ {
		for i, mc := range ms {
			mc.write(engine.User, "", mc.name+".md", "from "+mc.name+" round "+string(rune('0'+round))+"\n")
			if round == 1 {
				mc.remove(engine.User, "", ms[(i+1)%3].name+".md")
				break
			}
		}
		syncUntilQuiet(t, remote, ms...)
		sameChains(t, ms...)
	}
	noDeviceInRemote(t, remote, ms...)
}

func TestRejectedPushRetries(t *testing.T) {
	dir := t.TempDir()
	remote := bareRemote(t, dir)
	a, b := newMachine(t, dir, "a"), newMachine(t, dir, "b")
	syncUntilQuiet(t, remote, a, b)
	a.write(engine.User, "", "a.md", "from a\n")
	b.write(engine.User, "", "b.md", "from b\n")
	once := false
	beforePush := func() {
		if !once {
			once = true
			b.sync(remote) // b pushes first
		}
	}
	rep := a.syncWith(Options{Remote: remote, BeforePush: beforePush})
	if rep.Retries != 1 {
		t.Fatalf("retries = %d", rep.Retries)
	}
	syncUntilQuiet(t, remote, a, b)
	sameChains(t, a, b)
	if _, ok := a.read("user/b.md"); !ok {
		t.Fatal("a did not get b's note")
	}
}

func TestCorruptStateAndUnreachableRemote(t *testing.T) {
	a, _, remote := twoSynced(t)
	before := a.chain()
	must(t, os.WriteFile(stateFile(a.data), []byte("{not json"), 0o644))
	_, err := Sync(context.Background(), Options{Memory: a.m, Remote: remote})
	if !errors.Is(err, ErrCorruptState) || !strings.Contains(err.Error(), "move it aside") {
		t.Fatalf("err = %v", err)
	}
	must(t, os.Remove(stateFile(a.data)))
	for _, bad := range []string{filepath.Join(t.TempDir(), "no", "such", "repo.git"), "git://127.0.0.1:1/memory.git"} {
		_, err = Sync(context.Background(), Options{Memory: a.m, Remote: bad})
		if err == nil {
			t.Fatalf("%s: no error", bad)
		}
		t.Logf("%s: %v", bad, err)
	}
	a.reopen()
	if got := a.chain(); len(got) != len(before) {
		t.Fatalf("the tree changed: %v", got)
	}
	for p, c := range before {
		if a.chain()[p] != c {
			t.Errorf("%s changed", p)
		}
	}
	// After a lost state, the next sync completes: equal notes agree.
	rep := a.sync(remote)
	if len(rep.Conflicts) != 0 || len(rep.Pulled) != 0 {
		t.Fatalf("%+v", rep)
	}
}

func TestRestore(t *testing.T) {
	a, b, remote := twoSynced(t)
	a.write(engine.User, "", "kept.md", "second\n")
	a.sync(remote)
	a.write(engine.User, "", "kept.md", "third\n")
	a.sync(remote)
	_, rev, err := Restore(context.Background(), a.m, "user/kept.md", 1, "", time.Now())
	must(t, err)
	if rev != 4 {
		t.Fatalf("restored as revision %d", rev)
	}
	syncUntilQuiet(t, remote, a, b)
	got, _ := b.read("user/kept.md")
	if !strings.Contains(got, "to be kept") || !strings.Contains(got, "revision: 4") {
		t.Fatalf("restored:\n%s", got)
	}
	vs, _, err := History(context.Background(), b.m, "user/kept.md", false)
	must(t, err)
	if len(vs) != 4 || vs[0].Revision != 4 || vs[3].Revision != 1 {
		t.Fatalf("history %+v", vs)
	}
}

// A note too large for the line merge (textmerge.MaxLines), changed in
// different places on both machines, is a conflict: both versions are kept,
// neither is lost.
func TestConflictOverMergeBound(t *testing.T) {
	a, b, remote := twoSynced(t)
	var big strings.Builder
	for i := range textmerge.MaxLines + 1 {
		fmt.Fprintf(&big, "line %d\n", i)
	}
	a.write(engine.User, "", "big.md", big.String())
	syncUntilQuiet(t, remote, a, b)
	a.write(engine.User, "", "big.md", "first line (a)\n"+big.String())
	b.write(engine.User, "", "big.md", big.String()+"last line (b)\n")
	a.sync(remote)
	rep := b.sync(remote)
	if len(rep.Conflicts) != 1 || rep.Conflicts[0].Path != "user/big.md" {
		t.Fatalf("conflicts: %+v", rep.Conflicts)
	}
	if mine, _ := b.read("user/big.md"); !strings.Contains(mine, "last line (b)") || strings.Contains(mine, "first line (a)") {
		t.Fatalf("the local note did not stay as it was")
	}
	theirs, err := os.ReadFile(rep.Conflicts[0].File)
	must(t, err)
	if !strings.Contains(string(theirs), "first line (a)") {
		t.Fatalf("the remote version is not kept")
	}
}
