package roam

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/magicfrog/mf-lsp/engine"
)

// TestBareRemoteHeadPointsAtTheSyncedBranch is the README case: a
// remote made with `git init --bare` has HEAD on master (or whatever
// init.defaultBranch says) while sync pushes main, so a `git clone` of it
// checked nothing out. After the first push its HEAD names main; a HEAD that
// names a branch the remote has is the owner's choice and stays.
func TestBareRemoteHeadPointsAtTheSyncedBranch(t *testing.T) {
	dir := t.TempDir()
	remote := filepath.Join(dir, "remote.git")
	r, err := git.PlainInitWithOptions(remote, &git.PlainInitOptions{Bare: true, InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("master")}})
	must(t, err)
	a := newMachine(t, dir, "a")
	a.write(engine.User, "", "style.md", "Prefer small commits.\n")
	a.sync(remote)

	head, err := r.Storer.Reference(plumbing.HEAD)
	must(t, err)
	if head.Type() != plumbing.SymbolicReference || head.Target() != branchRef {
		t.Fatalf("the remote's HEAD is %v after the first sync; want a link to %s", head, branchRef)
	}
	if gitBin, err := exec.LookPath("git"); err == nil {
		clone := filepath.Join(dir, "clone")
		if out, err := exec.Command(gitBin, "clone", "-q", remote, clone).CombinedOutput(); err != nil {
			t.Fatalf("git clone: %v\n%s", err, out)
		}
		if _, err := os.Stat(filepath.Join(clone, "user", "style.md")); err != nil {
			t.Errorf("a git clone of the remote checked out no notes: %v", err)
		}
	} else if os.Getenv("MF_LSP_REQUIRE_GIT") != "" {
		t.Fatal("git is required (MF_LSP_REQUIRE_GIT) and not on PATH")
	}

	// A HEAD the owner pointed at a branch of theirs stays.
	must(t, r.Storer.SetReference(plumbing.NewHashReference(plumbing.NewBranchReferenceName("notes"), mustRef(t, r, branchRef))))
	must(t, r.Storer.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, plumbing.NewBranchReferenceName("notes"))))
	a.write(engine.User, "", "style.md", "Prefer small, reviewed commits.\n")
	a.sync(remote)
	if head, _ := r.Storer.Reference(plumbing.HEAD); head.Target() != plumbing.NewBranchReferenceName("notes") {
		t.Errorf("sync moved a HEAD that named an existing branch: %v", head)
	}
}

func mustRef(t *testing.T, r *git.Repository, name plumbing.ReferenceName) plumbing.Hash {
	t.Helper()
	ref, err := r.Storer.Reference(name)
	must(t, err)
	return ref.Hash()
}
