package roam

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"

	"github.com/magicfrog/mf-lsp/engine"
)

// A project whose own git repository tracks .magicfrog/ carries its task
// notes itself: sync says so and keeps no second copy.
func TestTaskNotesTrackedByProjectGit(t *testing.T) {
	dir := t.TempDir()
	remote := bareRemote(t, dir)
	a := newMachine(t, dir, "a")
	a.write(engine.Task, "", "progress.md", "Started.\n")
	a.write(engine.User, "", "style.md", "Small functions.\n")
	r, err := git.PlainInit(a.proj, false)
	must(t, err)
	wt, err := r.Worktree()
	must(t, err)
	_, err = wt.Add(filepath.Join(".magicfrog", "config.json"))
	must(t, err)
	rep := a.sync(remote)
	if !strings.Contains(rep.TaskNote, "tracks .magicfrog/") || rep.Task != "" {
		t.Fatalf("task note %q, task %q", rep.TaskNote, rep.Task)
	}
	for p := range remoteBlobs(t, remote) {
		if strings.HasPrefix(p, "task/") {
			t.Errorf("remote has %s", p)
		}
	}
	// Not tracked (and no git repository): the task notes roam.
	must(t, os.RemoveAll(filepath.Join(a.proj, ".git")))
	if rep := a.sync(remote); rep.Task != "T-1" || len(rep.Pushed) != 1 || rep.Pushed[0].Path != "task/progress.md" {
		t.Fatalf("%+v", rep)
	}
}
