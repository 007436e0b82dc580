package roam

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/magicfrog/mf-lsp/engine"
)

// oldLayoutRemote is a remote as sync kept it before the portable tree's
// layout, synced by machine a: a's project (bound to T-1) under task/T-1/,
// so its shared note is task/T-1/notes/progress.md and T-1's own is
// task/T-1/T-1/notes/own.md; another project's T-9 beside it. a's sync state
// is the one that sync left.
func oldLayoutRemote(t *testing.T) (dir, remote string, a *machine) {
	dir = t.TempDir()
	remote = bareRemote(t, dir)
	a = newMachine(t, dir, "a")
	a.write(engine.Task, "", "notes/progress.md", "Shared by every task.\n")
	a.write(engine.Task, "T-1", "notes/own.md", "T-1's own.\n")
	a.write(engine.User, "", "style.md", "Short sentences.\n")
	a.reopen()
	old := map[string]string{}
	for _, e := range a.m.Notes() {
		switch e.Dimension {
		case engine.Task:
			rel, _ := filepath.Rel(filepath.Join(a.proj, ".magicfrog", "memory"), e.Path)
			old["task/T-1/"+filepath.ToSlash(rel)] = string(e.TextOrNil())
		case engine.User:
			old["user/"+e.Key] = string(e.TextOrNil())
		}
	}
	files := map[string]planted{"task/T-9/notes/x.md": {content: "another project's shared note, old layout\n"}}
	notes := map[string]Base{}
	for p, c := range old {
		files[p] = planted{content: c}
		notes[p] = Base{Blob: blobHash([]byte(c)).String(), Revision: 1}
	}
	plantWith(t, remote, files, "sync from machine id-a: 3 sent\n\nadd task/T-1/notes/progress.md (revision 1)\n")
	r, err := git.PlainOpen(remote)
	must(t, err)
	head, err := r.Reference(branchRef, true)
	must(t, err)
	st := State{Version: stateVersion, Remote: remote, Branch: branch, Commit: head.Hash().String(), Notes: notes}
	b, err := json.Marshal(st)
	must(t, err)
	must(t, os.MkdirAll(syncDir(a.data), 0o755))
	must(t, os.WriteFile(stateFile(a.data), b, 0o644))
	return dir, remote, a
}

// checkMigrated: the remote's head is one commit on top of the old one, in
// the portable layout, with another project's folder untouched.
func checkMigrated(t *testing.T, remote string, oldHead plumbing.Hash) {
	t.Helper()
	files := remoteFiles(t, remote)
	for _, p := range []string{"task/notes/progress.md", "task/T-1/notes/own.md", "user/style.md", "task/T-9/notes/x.md"} {
		if _, ok := files[p]; !ok {
			t.Errorf("after the migration the remote lacks %s", p)
		}
	}
	for p := range files {
		if strings.HasPrefix(p, "task/T-1/T-1/") || p == "task/T-1/notes/progress.md" {
			t.Errorf("after the migration the remote still has %s", p)
		}
	}
	c := remoteHeadCommit(t, remote)
	if len(c.ParentHashes) != 1 || c.ParentHashes[0] != oldHead {
		t.Errorf("the migration is not one commit on the old head: parents %v", c.ParentHashes)
	}
	if !strings.Contains(c.Message, "\n"+portableTrailer+"T-1\n") {
		t.Errorf("the migration commit does not say its layout: %q", c.Message)
	}
}

func remoteHead(t *testing.T, remote string) plumbing.Hash {
	t.Helper()
	return remoteHeadCommit(t, remote).Hash
}

// remoteHeadCommit is the commit the remote's branch points at.
func remoteHeadCommit(t testing.TB, remote string) *object.Commit {
	t.Helper()
	r, err := git.PlainOpen(remote)
	must(t, err)
	ref, err := r.Reference(branchRef, true)
	must(t, err)
	c, err := r.CommitObject(ref.Hash())
	must(t, err)
	return c
}

// A remote in the old layout is rewritten in the new one by the first sync
// of the new mf-lsp, in one commit, without losing or moving a note here; a
// new machine then reads it as the portable tree.
func TestOldLayoutRemoteMigrates(t *testing.T) {
	dir, remote, a := oldLayoutRemote(t)
	oldHead := remoteHead(t, remote)
	before := a.portable()
	rep := a.sync(remote)
	if rep.Migrated == "" || len(rep.Conflicts) > 0 || len(rep.Pulled) > 0 || len(rep.Failed) > 0 {
		t.Fatalf("the first sync: %+v", rep)
	}
	checkMigrated(t, remote, oldHead)
	a.reopen()
	if after := a.portable(); len(after) != len(before) || after["task/notes/progress.md"] != before["task/notes/progress.md"] || after["task/T-1/notes/own.md"] != before["task/T-1/notes/own.md"] {
		t.Errorf("the notes here changed:\n%v\n%v", before, after)
	}
	if rep := a.sync(remote); !rep.Quiet() || rep.Migrated != "" {
		t.Errorf("the second sync: %+v", rep)
	}
	c := newMachine(t, dir, "c")
	if rep := c.sync(remote); rep.Migrated != "" || len(rep.Conflicts) > 0 {
		t.Fatalf("a new machine: %+v", rep)
	}
	sameChains(t, a, c)
}

// The first sync of the new mf-lsp may run on a machine that never synced:
// it rewrites the old layout, and the machine that synced in the old layout
// then reads it without moving anything again.
func TestOldLayoutMigratedByANewMachine(t *testing.T) {
	dir, remote, a := oldLayoutRemote(t)
	oldHead := remoteHead(t, remote)
	c := newMachine(t, dir, "c")
	rep := c.sync(remote)
	if rep.Migrated == "" || len(rep.Conflicts) > 0 {
		t.Fatalf("the new machine: %+v", rep)
	}
	checkMigrated(t, remote, oldHead)
	if n := c.noteOf(engine.Task, "", "notes/progress.md"); n == nil || !strings.Contains(string(n.TextOrNil()), "Shared by every task") {
		t.Error("the shared task note did not land as the project's shared note")
	}
	if n := c.noteOf(engine.Task, "T-1", "notes/own.md"); n == nil {
		t.Error("T-1's own note did not land under T-1")
	}
	if _, err := os.Stat(filepath.Join(c.proj, ".magicfrog", "memory", "T-1", "T-1")); err == nil {
		t.Error("the old layout's task/T-1/T-1/ landed as a folder")
	}
	migrated := remoteHead(t, remote)
	if rep := a.sync(remote); rep.Migrated != "" || len(rep.Conflicts) > 0 || len(rep.Pulled) > 0 || len(rep.Pushed) > 0 {
		t.Fatalf("the machine with the old state: %+v", rep)
	}
	if remoteHead(t, remote) != migrated {
		t.Error("the machine with the old state committed again")
	}
	st, err := LoadState(a.data)
	must(t, err)
	if st.Layout != portableLayout {
		t.Errorf("a's state layout %q", st.Layout)
	}
	for p := range st.Notes {
		if strings.HasPrefix(p, "task/T-1/T-1/") || p == "task/T-1/notes/progress.md" {
			t.Errorf("a's state still has the old path %s", p)
		}
	}
	sameChains(t, a, c)
}

// Another project, already on the new layout, put a task-shared note where
// this project's old-layout note moves to: the rewrite keeps the other
// project's version in the remote and this one here, as a conflict, and
// says so; neither is taken silently.
func TestOldLayoutMigrationCollision(t *testing.T) {
	_, remote, a := oldLayoutRemote(t)
	plantWith(t, remote, map[string]planted{"task/notes/progress.md": {content: "---\nrevision: 4\n---\nT-9's project's shared progress.\n"}},
		"sync from machine id-other: 1 sent\n\nadd task/notes/progress.md (revision 4)\n\n"+portableTrailer+"T-9\n")
	before := a.portable()["task/notes/progress.md"]
	rep := a.sync(remote)
	if !strings.Contains(rep.Migrated, "task/notes/progress.md") {
		t.Errorf("the migration does not name the collision: %q", rep.Migrated)
	}
	if len(rep.Conflicts) != 1 || rep.Conflicts[0].Path != "task/notes/progress.md" {
		t.Fatalf("conflicts %+v", rep.Conflicts)
	}
	a.reopen()
	if got := a.portable()["task/notes/progress.md"]; got != before {
		t.Errorf("the local note changed: %q", got)
	}
	if got := remoteFiles(t, remote)["task/notes/progress.md"]; !strings.Contains(got, "T-9's project") {
		t.Errorf("the remote's task-shared note: %q", got)
	}
}

// A conflict the older layout recorded (task/T-1/notes/progress.md) is shown
// on its note and resolved by its new path before any sync of this version.
func TestOldLayoutConflictResolves(t *testing.T) {
	_, remote, a := oldLayoutRemote(t)
	st, err := LoadState(a.data)
	must(t, err)
	g, err := openRepo(a.data, remote, nil)
	must(t, err)
	theirs, err := g.put(plumbing.BlobObject, []byte("---\nrevision: 2\n---\ntheirs\n"))
	must(t, err)
	must(t, g.flush())
	old := "task/T-1/notes/progress.md"
	st.Conflicts = map[string]Conflict{old: {Theirs: theirs.String(), TheirsRevision: 2, Reason: "changed on both sides"}}
	must(t, st.save(a.data))
	must(t, os.MkdirAll(filepath.Dir(ConflictFile(a.data, old)), 0o755))
	must(t, os.WriteFile(ConflictFile(a.data, old), []byte("theirs\n"), 0o644))
	file := filepath.Join(a.proj, ".magicfrog", "memory", "notes", "progress.md")
	lc, ok := ConflictAt(a.m, file)
	if !ok || lc.Path != "task/notes/progress.md" || lc.Theirs != ConflictFile(a.data, old) {
		t.Fatalf("ConflictAt = %+v, %v", lc, ok)
	}
	must(t, Resolve(context.Background(), a.m, lc.Path, "mine", time.Now()))
	st, err = LoadState(a.data)
	must(t, err)
	if len(st.Conflicts) != 0 || st.Layout != portableLayout {
		t.Errorf("after resolve: conflicts %v, layout %q", st.Conflicts, st.Layout)
	}
	if _, ok := st.Notes["task/notes/progress.md"]; !ok {
		t.Errorf("after resolve the base is not at the new path: %v", st.Notes)
	}
	for _, p := range []string{ConflictFile(a.data, old), ConflictFile(a.data, lc.Path)} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s is still there", p)
		}
	}
}
