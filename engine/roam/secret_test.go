package roam

import (
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
)

// A token assembled at run time, so this file is no finding itself.
var githubPAT = "ghp_" + strings.Repeat("aB3dE5fG7h", 3) + "123456"

func TestSecretsNeverLeave(t *testing.T) {
	dir := t.TempDir()
	remote := bareRemote(t, dir)
	a := newMachine(t, dir, "a")
	a.write(engine.User, "", "sticky-notes/accounts.md", "GitHub: octo\ntoken: "+githubPAT+"\n")
	a.write(engine.User, "", "formats.md", "A token looks like "+githubPAT+" <!-- gitleaks:allow -->\n")
	a.write(engine.User, "", "plain.md", "nothing secret\n")
	rep := a.sync(remote)
	if len(rep.Held) != 1 || rep.Held[0].Path != "user/sticky-notes/accounts.md" || len(rep.Held[0].Findings) != 1 {
		t.Fatalf("held: %+v", rep.Held)
	}
	if f := rep.Held[0].Findings[0]; f.Rule != "github-pat" || f.Line != 6 {
		// Line 6: the frontmatter takes lines 1–4.
		t.Fatalf("finding %+v", f)
	}
	blobs := remoteBlobs(t, remote)
	for p, cs := range blobs {
		for _, c := range cs {
			if strings.Contains(c, githubPAT) && !strings.Contains(c, "gitleaks:allow") {
				t.Fatalf("the secret left in %s", p)
			}
		}
	}
	if _, ok := blobs["user/formats.md"]; !ok {
		t.Fatal("the allowed line was held back")
	}
	// Removing the secret lets the note go.
	a.write(engine.User, "", "sticky-notes/accounts.md", "GitHub: octo\ntoken: in the password manager\n")
	if rep := a.sync(remote); len(rep.Held) != 0 || len(rep.Pushed) != 1 {
		t.Fatalf("%+v", rep)
	}
}
