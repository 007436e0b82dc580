package roam

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
	"github.com/magicfrog/mf-lsp/engine/store"
)

// Version is one version of a note in the remote's history.
type Version struct {
	Commit   string
	Time     time.Time // when it was synced
	Machine  string    // the machine that synced it
	Revision int
	Updated  string
	Blob     string // "" for a deletion
}

// Deleted reports whether this version is the note's deletion.
func (v Version) Deleted() bool { return v.Blob == "" }

// History lists every version of a portable path the remote ever held,
// newest first. It fetches first when a remote is known and reachable;
// fetchErr says why it could not (the list is then as of the last sync).
func History(ctx context.Context, m *engine.Memory, rel string, offline bool) (vs []Version, fetchErr error, err error) {
	g, _, fetchErr, err := openForHistory(ctx, m, offline)
	if err != nil {
		return nil, fetchErr, err
	}
	vs, err = g.history(rel)
	return vs, fetchErr, err
}

func openForHistory(ctx context.Context, m *engine.Memory, offline bool) (*gitRepo, *State, error, error) {
	data := m.Paths.DataDir
	st, err := LoadState(data)
	if err != nil {
		return nil, nil, nil, err
	}
	if st.Remote == "" {
		return nil, nil, nil, errors.New("this data directory was never synced (mf-lsp sync --remote URL)")
	}
	g, err := openRepo(data, st.Remote, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	var fetchErr error
	if !offline {
		_, fetchErr = g.fetch(ctx)
	}
	return g, st, fetchErr, nil
}

// history walks the remote branch, newest first, and returns each commit
// where the path's content changed.
func (g *gitRepo) history(rel string) ([]Version, error) {
	head, err := g.tracked()
	if err != nil || head.IsZero() {
		return nil, err
	}
	iter, err := g.r.Log(&git.LogOptions{From: head})
	if err != nil {
		return nil, err
	}
	type point struct {
		c    *object.Commit
		blob plumbing.Hash
	}
	var pts []point
	err = iter.ForEach(func(c *object.Commit) error {
		t, err := c.Tree()
		if err != nil {
			return err
		}
		h := plumbing.ZeroHash
		if e, err := t.FindEntry(rel); err == nil {
			h = e.Hash
		}
		pts = append(pts, point{c, h})
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []Version
	for i, p := range pts {
		older := plumbing.ZeroHash
		if i+1 < len(pts) {
			older = pts[i+1].blob
		}
		if p.blob == older {
			continue
		}
		v := Version{Commit: p.c.Hash.String(), Time: p.c.Committer.When, Machine: strings.TrimSuffix(p.c.Author.Email, "@machine.magicfrog")}
		if !p.blob.IsZero() {
			v.Blob = p.blob.String()
			if b, err := g.blob(p.blob); err == nil {
				v.Revision = revision(b)
				v.Updated, _ = frontmatter.Parse(b).String("updated")
			}
		}
		out = append(out, v)
	}
	return out, nil
}

// Restore brings back the version of a note at revision (or, when commit is
// given, the one synced in that commit, by hash prefix) as the note's next
// revision, through engine/store. The next sync sends it like any edit.
func Restore(ctx context.Context, m *engine.Memory, rel string, revisionWanted int, commit string, now time.Time) (*Version, int, error) {
	g, _, _, err := openForHistory(ctx, m, false)
	if err != nil {
		return nil, 0, err
	}
	file, lock, ok := newMapping(m).local(rel)
	if !ok {
		return nil, 0, fmt.Errorf("%s is not a note this machine syncs (want a portable path: user/…, agent/[ID/]…, task/[ID/]…)", rel)
	}
	vs, err := g.history(rel)
	if err != nil {
		return nil, 0, err
	}
	if len(vs) == 0 {
		return nil, 0, fmt.Errorf("%s has no history in the remote", rel)
	}
	var pick []Version
	top := 0
	for _, v := range vs {
		top = max(top, v.Revision)
		switch {
		case v.Deleted():
		case commit != "" && strings.HasPrefix(v.Commit, commit):
			pick = append(pick, v)
		case commit == "" && v.Revision == revisionWanted:
			if len(pick) == 0 || pick[0].Blob != v.Blob {
				pick = append(pick, v)
			}
		}
	}
	switch {
	case len(pick) == 0 && commit != "":
		return nil, 0, fmt.Errorf("%s has no version synced in a commit %s… (see mf-lsp history %s)", rel, commit, rel)
	case len(pick) == 0:
		return nil, 0, fmt.Errorf("%s has no revision %d in the remote's history (see mf-lsp history %s)", rel, revisionWanted, rel)
	case len(pick) > 1:
		var cs []string
		for _, v := range pick {
			cs = append(cs, v.Commit[:10])
		}
		return nil, 0, fmt.Errorf("%s revision %d was written differently on two machines (commits %s): pass --commit", rel, revisionWanted, strings.Join(cs, ", "))
	}
	v := pick[0]
	old, err := g.blob(plumbing.NewHash(v.Blob))
	if err != nil {
		return nil, 0, err
	}
	cur, err := os.ReadFile(file)
	expect := store.Expect{}
	switch {
	case err == nil:
		expect = store.Expect{Revision: revision(cur), Hash: store.Hash(cur)}
		top = max(top, revision(cur))
	case !errors.Is(err, os.ErrNotExist):
		return nil, 0, err
	}
	next, ok := withRevision(old, top+1, now)
	if !ok {
		return nil, 0, fmt.Errorf("%s at revision %d has frontmatter that does not parse; not restored", rel, v.Revision)
	}
	if err := os.MkdirAll(lock, 0o755); err != nil {
		return nil, 0, err
	}
	if err := store.Write(lock, file, next, expect); err != nil {
		return nil, 0, err
	}
	m.Refresh(file)
	return &v, top + 1, nil
}

// Resolve ends a conflict: keep "mine" (the local note, or its deletion) or
// "theirs" (the remote version kept beside the state, or its deletion). The
// kept version is written as the next revision after both, so the next sync
// sends it over the remote's.
func Resolve(ctx context.Context, m *engine.Memory, rel, keep string, now time.Time) error {
	if keep != "mine" && keep != "theirs" {
		return fmt.Errorf("keep %q: want mine or theirs", keep)
	}
	data := m.Paths.DataDir
	st, unlock, err := lockedState(ctx, data)
	if err != nil {
		return err
	}
	defer unlock()
	st.migrateState(data, newMapping(m).task, true) // saved below with the resolution
	c, ok := st.Conflicts[rel]
	if !ok {
		return fmt.Errorf("%s is not in conflict (mf-lsp sync status lists conflicts)", rel)
	}
	g, err := openRepo(data, st.Remote, nil)
	if err != nil {
		return err
	}
	file, lock, ok := newMapping(m).local(rel)
	if !ok {
		return fmt.Errorf("%s is not a note this machine syncs", rel)
	}
	cur, err := os.ReadFile(file)
	exists := err == nil
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	expect := store.Expect{}
	if exists {
		expect = store.Expect{Revision: revision(cur), Hash: store.Hash(cur)}
	}
	var theirs []byte
	if c.Theirs != "" {
		if theirs, err = g.blob(plumbing.NewHash(c.Theirs)); err != nil {
			return err
		}
	}
	next := max(revision(cur), c.TheirsRevision) + 1
	var content []byte // nil: the note goes
	switch {
	case keep == "theirs" && theirs != nil:
		content = theirs
	case keep == "mine" && exists:
		content = cur
	}
	if err := os.MkdirAll(lock, 0o755); err != nil {
		return err
	}
	switch {
	case content == nil && exists:
		err = store.Remove(lock, file, expect)
	case content != nil && rel != rosterPath && rel != layersPath:
		bumped, ok := withRevision(content, next, now)
		if !ok {
			return fmt.Errorf("%s: the kept version's frontmatter does not parse; fix it and resolve again", rel)
		}
		err = store.Write(lock, file, bumped, expect)
	case content != nil:
		err = store.Write(lock, file, content, expect)
	}
	if err != nil {
		return err
	}
	if st.Notes == nil {
		st.Notes = map[string]Base{}
	}
	if c.Theirs != "" {
		st.Notes[rel] = Base{Blob: c.Theirs, Revision: c.TheirsRevision}
	} else {
		delete(st.Notes, rel)
	}
	delete(st.Conflicts, rel)
	os.Remove(ConflictFile(data, rel))
	m.Refresh(file)
	return st.save(data)
}
