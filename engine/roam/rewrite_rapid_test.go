package roam

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"pgregory.net/rapid"

	"github.com/magicfrog/mf-lsp/engine"
)

// reachableBlobs is the content of every file of every commit reachable from
// the remote's main: what history and restore can still bring back.
func reachableBlobs(t testing.TB, remote string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	r, err := git.PlainOpen(remote)
	must(t, err)
	ref, err := r.Reference(branchRef, true)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return out
	}
	must(t, err)
	iter, err := r.Log(&git.LogOptions{From: ref.Hash()})
	must(t, err)
	must(t, eachFile(iter, func(_, content string) { out[content] = true }))
	return out
}

// firstParents lists main's commits, newest first, along first parents.
func firstParents(t testing.TB, remote string) []plumbing.Hash {
	t.Helper()
	r, err := git.PlainOpen(remote)
	must(t, err)
	ref, err := r.Reference(branchRef, true)
	if err != nil {
		return nil
	}
	var out []plumbing.Hash
	for h := ref.Hash(); ; {
		out = append(out, h)
		c, err := r.CommitObject(h)
		must(t, err)
		if len(c.ParentHashes) == 0 {
			return out
		}
		h = c.ParentHashes[0]
	}
}

// unrelatedHistory makes main a parentless commit holding files, as a
// force-push of another repository would.
func unrelatedHistory(t testing.TB, remote string, files map[string]string) {
	t.Helper()
	r, err := git.PlainOpen(remote)
	must(t, err)
	put := func(o plumbing.EncodedObject) plumbing.Hash {
		h, err := r.Storer.SetEncodedObject(o)
		must(t, err)
		return h
	}
	blob := func(s string) plumbing.Hash {
		o := r.Storer.NewEncodedObject()
		o.SetType(plumbing.BlobObject)
		w, _ := o.Writer()
		io.WriteString(w, s)
		w.Close()
		return put(o)
	}
	encode := func(e interface {
		Encode(plumbing.EncodedObject) error
	}) plumbing.Hash {
		o := r.Storer.NewEncodedObject()
		must(t, e.Encode(o))
		return put(o)
	}
	// One folder level ("user/"), enough for the notes the property writes.
	var user []object.TreeEntry
	for name, s := range files {
		user = append(user, object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: blob(s)})
	}
	sortEntries(user)
	sub := encode(&object.Tree{Entries: user})
	root := encode(&object.Tree{Entries: []object.TreeEntry{{Name: "user", Mode: filemode.Dir, Hash: sub}}})
	sig := object.Signature{Name: "someone", Email: "x@y", When: time.Now()}
	c := encode(&object.Commit{Author: sig, Committer: sig, Message: "unrelated\n", TreeHash: root})
	must(t, r.Storer.SetReference(plumbing.NewHashReference(branchRef, c)))
}

func sortEntries(es []object.TreeEntry) {
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && es[j].Name < es[j-1].Name; j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}

// conflicted reports whether a path waits for sync resolve on a machine.
func (mc *machine) conflicted(rel string) bool {
	st, err := LoadState(mc.data)
	must(mc.t, err)
	_, ok := st.Conflicts[rel]
	return ok
}

// userNotes is the machine's user notes by key, with their bytes.
func (mc *machine) userNotes() map[string]*engine.Note {
	mc.m.Reload()
	out := map[string]*engine.Note{}
	for _, e := range mc.m.Notes() {
		if e.Dimension == engine.User {
			out[e.Key] = e
		}
	}
	return out
}

// Property: random writes and deletions on two machines, syncs, and a remote
// that is sometimes rewound, replaced by unrelated history or emptied. No
// version that was on a machine's disk when it synced is lost: once each
// machine has synced again, each is still a note on some machine, a kept
// conflict copy, or in the history reachable from the remote's main. And a sync never takes a note's revision back.
func TestSyncRewrittenRemoteLosesNothing(t *testing.T) {
	if f := flag.Lookup("rapid.checks"); f != nil && f.Value.String() == f.DefValue {
		n := "12"
		if testing.Short() {
			n = "4"
		}
		f.Value.Set(n)
		defer f.Value.Set(f.DefValue)
	}
	keys := []string{"n1.md", "n2.md", "n3.md"}
	rapid.Check(t, func(rt *rapid.T) {
		dir, err := os.MkdirTemp("", "rewrite-rapid")
		must(t, err)
		defer os.RemoveAll(dir)
		remote := bareRemote(t, dir)
		ms := []*machine{newMachine(t, dir, "a"), newMachine(t, dir, "b")}
		seen := map[string]string{} // every version on disk at a sync → where
		steps := rapid.IntRange(4, 14).Draw(rt, "steps")
		for i := 0; i < steps; i++ {
			mc := ms[rapid.IntRange(0, 1).Draw(rt, "machine")]
			key := rapid.SampledFrom(keys).Draw(rt, "key")
			switch op := rapid.IntRange(0, 9).Draw(rt, "op"); {
			case op <= 3:
				if mc.conflicted("user/" + key) {
					continue // the user resolves first; not what is tested here
				}
				body := ""
				if n := mc.noteOf(engine.User, "", key); n != nil && rapid.Bool().Draw(rt, "append") {
					body = string(n.BodyOrNil())
				}
				mc.write(engine.User, "", key, body+fmt.Sprintf("%s step %d\n", mc.name, i))
			case op == 4:
				if n := mc.noteOf(engine.User, "", key); n != nil && !mc.conflicted("user/"+key) {
					mc.remove(engine.User, "", key)
				}
			case op <= 7:
				before := mc.userNotes()
				for k, n := range before {
					seen[string(n.TextOrNil())] = mc.name + ":" + k
				}
				mc.sync(remote)
				for k, n := range mc.userNotes() {
					if b, ok := before[k]; ok && n.Revision() < b.Revision() {
						rt.Fatalf("%s: %s went from revision %d to %d", mc.name, k, b.Revision(), n.Revision())
					}
				}
			case op == 8:
				if hs := firstParents(t, remote); len(hs) > 1 {
					setRemoteHead(t, remote, hs[rapid.IntRange(1, len(hs)-1).Draw(rt, "back")])
				}
			default:
				files := map[string]string{}
				for _, k := range keys {
					if rapid.Bool().Draw(rt, "has "+k) {
						files[k] = "---\nrevision: 1\n---\nforeign " + k + "\n"
					}
				}
				unrelatedHistory(t, remote, files)
			}
		}
		// Each machine syncs once more: a rewrite nobody synced after yet is
		// repaired by the next sync of a machine that holds the history.
		for _, mc := range ms {
			mc.sync(remote)
		}
		found := reachableBlobs(t, remote)
		for _, mc := range ms {
			for _, n := range mc.userNotes() {
				found[string(n.TextOrNil())] = true
			}
			filepath.WalkDir(conflictDir(mc.data), func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					b, _ := os.ReadFile(p)
					found[string(b)] = true
				}
				return nil
			})
		}
		for v, where := range seen {
			if !found[v] {
				rt.Fatalf("the version of %s that was on disk is lost:\n%s", where, v)
			}
		}
	})
}
