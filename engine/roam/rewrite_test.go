package roam

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/magicfrog/mf-lsp/engine"
)

// setRemoteHead points the remote's main at commit, as a `git push --force`
// or `git reset --hard` on the server would.
func setRemoteHead(t testing.TB, remote string, commit plumbing.Hash) {
	t.Helper()
	r, err := git.PlainOpen(remote)
	must(t, err)
	must(t, r.Storer.SetReference(plumbing.NewHashReference(branchRef, commit)))
}

// forcePush replaces the remote's main with other's main (unrelated history).
func forcePush(t testing.TB, other, remote string) {
	t.Helper()
	r, err := git.PlainOpen(other)
	must(t, err)
	head, err := r.Reference(branchRef, true)
	must(t, err)
	must(t, pushLocal(context.Background(), r.Storer, localEndpoint(remote), head.Hash(), branchRef, true))
}

// noteOf returns a machine's note at a dimension and key (nil when none).
func (mc *machine) noteOf(d engine.Dimension, scope, key string) *engine.Note {
	mc.t.Helper()
	mc.m.Reload()
	p, err := mc.m.PathOf(d, scope, key)
	must(mc.t, err)
	return mc.m.Note(p)
}

// isAncestorOfRemote reports whether commit is reachable from the remote's main.
func isAncestorOfRemote(t testing.TB, remote string, commit string) bool {
	t.Helper()
	r, err := git.PlainOpen(remote)
	must(t, err)
	ref, err := r.Reference(branchRef, true)
	must(t, err)
	head, err := r.CommitObject(ref.Hash())
	must(t, err)
	c, err := r.CommitObject(plumbing.NewHash(commit))
	if err != nil {
		return false
	}
	ok, err := c.IsAncestor(head)
	must(t, err)
	return ok
}

func noDeletionsOrRollbacks(t *testing.T, rep *Report) {
	t.Helper()
	for _, c := range rep.Pulled {
		t.Errorf("received %s %s (revision %d) from a rewritten remote", c.Op, c.Path, c.Revision)
	}
	if rep.Rewritten == "" {
		t.Error("the report does not say the remote was rewritten")
	}
}

// The first case: the remote's main replaced by unrelated history
// holding another n2. Nothing is deleted, n2 is a conflict that keeps both
// versions, and the history of n1 is still there.
func TestSyncForcePushedRemote(t *testing.T) {
	dir := t.TempDir()
	remote := bareRemote(t, dir)
	a := newMachine(t, dir, "a")
	a.write(engine.User, "", "n1.md", "one\n")
	a.write(engine.User, "", "n2.md", "two\n")
	a.write(engine.User, "", "n3.md", "three\n")
	a.sync(remote)
	a.write(engine.User, "", "n1.md", "one\nmore\n")
	last := a.sync(remote).Commit

	other := filepath.Join(dir, "other.git")
	_, err := git.PlainInit(other, true)
	must(t, err)
	x := newMachine(t, dir, "x")
	x.write(engine.User, "", "n2.md", "someone else's two\n")
	x.sync(other)
	forcePush(t, other, remote)

	rep := a.sync(remote)
	noDeletionsOrRollbacks(t, rep)
	if n := a.noteOf(engine.User, "", "n1.md"); n == nil || n.Revision() != 2 {
		t.Fatalf("n1 after the sync: %v", n)
	}
	if n := a.noteOf(engine.User, "", "n3.md"); n == nil {
		t.Fatal("n3 was deleted")
	}
	if n := a.noteOf(engine.User, "", "n2.md"); n == nil || string(n.BodyOrNil()) != "two\n" {
		t.Fatalf("n2 took the remote's content: %v", n)
	}
	if len(rep.Conflicts) != 1 || rep.Conflicts[0].Path != "user/n2.md" {
		t.Fatalf("conflicts: %+v", rep.Conflicts)
	}
	if !isAncestorOfRemote(t, remote, last) {
		t.Error("the last synced commit is no longer reachable from the remote")
	}
	vs, _, err := History(context.Background(), a.m, "user/n1.md", false)
	must(t, err)
	revs := map[int]bool{}
	for _, v := range vs {
		revs[v.Revision] = true
	}
	if !revs[1] || !revs[2] {
		t.Errorf("history of n1: %+v", vs)
	}
	// The repaired remote is ordinary again: a second sync moves nothing, and
	// the other machine's n2 is kept beside the note as the conflict's copy.
	if rep2 := a.sync(remote); rep2.Rewritten != "" || len(rep2.Pulled) != 0 {
		t.Errorf("second sync: %+v", rep2)
	}
	files := remoteBlobs(t, remote)
	for _, p := range []string{"user/n1.md", "user/n3.md"} {
		if len(files[p]) == 0 {
			t.Errorf("remote lost %s", p)
		}
	}
}

// The second case: main rewound to an older commit. n1 stays at
// revision 2, a note written after that commit stays, and the remote gets
// them back.
func TestSyncRewoundRemote(t *testing.T) {
	dir := t.TempDir()
	remote := bareRemote(t, dir)
	a, b := newMachine(t, dir, "a"), newMachine(t, dir, "b")
	a.write(engine.User, "", "n1.md", "one\n")
	first := a.sync(remote).Commit
	a.write(engine.User, "", "n1.md", "one\nmore\n")
	a.write(engine.User, "", "n3.md", "written after\n")
	last := a.sync(remote).Commit
	b.sync(remote)

	setRemoteHead(t, remote, plumbing.NewHash(first))
	rep := a.sync(remote)
	noDeletionsOrRollbacks(t, rep)
	if !strings.Contains(rep.Rewritten, "rewound") {
		t.Errorf("report: %q", rep.Rewritten)
	}
	if n := a.noteOf(engine.User, "", "n1.md"); n == nil || n.Revision() != 2 {
		t.Fatalf("n1 after the sync: %v", n)
	}
	if a.noteOf(engine.User, "", "n3.md") == nil {
		t.Fatal("n3 was deleted")
	}
	if len(rep.Conflicts) != 0 {
		t.Errorf("conflicts: %+v", rep.Conflicts)
	}
	if !isAncestorOfRemote(t, remote, last) {
		t.Error("the last synced commit is no longer reachable from the remote")
	}
	// The other machine synced the same last commit: it sees an ordinary remote.
	repB := b.sync(remote)
	if repB.Rewritten != "" || len(repB.Pulled) != 0 || len(repB.Conflicts) != 0 {
		t.Errorf("b: %+v", repB)
	}
	if n := b.noteOf(engine.User, "", "n1.md"); n == nil || n.Revision() != 2 {
		t.Errorf("b's n1: %v", n)
	}
}

// A rewind that another machine already synced against (it lost its notes
// to the rewind with an older mf-lsp, or simply wrote after it): what the
// rewound side wrote since is taken, what it did not touch comes back.
func TestSyncRewoundThenWritten(t *testing.T) {
	dir := t.TempDir()
	remote := bareRemote(t, dir)
	a, b := newMachine(t, dir, "a"), newMachine(t, dir, "b")
	a.write(engine.User, "", "n1.md", "one\n")
	a.write(engine.User, "", "n2.md", "two\n")
	first := a.sync(remote).Commit
	b.sync(remote)
	a.write(engine.User, "", "n1.md", "one\nmore\n")
	a.write(engine.User, "", "n3.md", "written after\n")
	a.sync(remote)

	setRemoteHead(t, remote, plumbing.NewHash(first))
	b.write(engine.User, "", "n2.md", "two\nfrom b\n")
	b.write(engine.User, "", "n4.md", "b's own\n")
	b.sync(remote) // b's last commit descends from the rewound head: ordinary for b

	rep := a.sync(remote)
	if rep.Rewritten == "" {
		t.Error("the report does not say the remote was rewritten")
	}
	for _, c := range rep.Pulled {
		if c.Path != "user/n2.md" && c.Path != "user/n4.md" || c.Op == "delete" {
			t.Errorf("received %s %s", c.Op, c.Path)
		}
	}
	if n := a.noteOf(engine.User, "", "n1.md"); n == nil || n.Revision() != 2 {
		t.Fatalf("n1: %v", n)
	}
	syncUntilQuiet(t, remote, a, b)
	sameChains(t, a, b)
	for _, k := range []string{"n1.md", "n2.md", "n3.md", "n4.md"} {
		if b.noteOf(engine.User, "", k) == nil {
			t.Errorf("b has no %s", k)
		}
	}
	if n := b.noteOf(engine.User, "", "n2.md"); n == nil || string(n.BodyOrNil()) != "two\nfrom b\n" {
		t.Errorf("n2: %v", n)
	}
}

// A machine that merges a rewritten remote with a lower revision of a note
// keeps both as a conflict, and the commit it pushes descends from the
// other machine's last synced commit: that machine must not take the lower
// revision over its unchanged note as a forward change (issue 21: "no sync
// takes a note's revision on disk back"; found by TestNoPathLosesARevision).
func TestSyncTakesNoLowerRevisionAMergedRewritePushed(t *testing.T) {
	dir := t.TempDir()
	remote := bareRemote(t, dir)
	a, b := newMachine(t, dir, "a"), newMachine(t, dir, "b")
	unrelatedHistory(t, remote, map[string]string{"n3.md": "---\nrevision: 4\n---\nunrelated 4\n"})
	b.sync(remote)
	a.sync(remote)
	unrelatedHistory(t, remote, map[string]string{"n3.md": "---\nrevision: 2\n---\nunrelated 2\n"})
	a.sync(remote)
	b.sync(remote)
	for _, mc := range []*machine{a, b} {
		if n := mc.userNotes()["n3.md"]; n == nil || n.Revision() != 4 {
			t.Errorf("%s: n3.md is not at revision 4 (kept):\n%s", mc.name, mc.file("user/n3.md"))
		}
		if !mc.conflicted("user/n3.md") {
			t.Errorf("%s: no conflict keeps revision 2 of n3.md beside revision 4", mc.name)
		}
	}
}
