package roam

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// The layout before the portable tree's: sync kept the project's whole task
// root under task/<bound task ID>/, so the shared task notes were at
// task/T-7/… and T-7's own at task/T-7/T-7/…. Now the remote is the portable
// tree (task/… and task/T-7/…), and the first sync that finds a task folder
// in the old layout rewrites it, in that sync's one commit (docs/cli.md,
// sync: "What roams").

// portableLayout is State.Layout once the state's paths are the portable
// tree's.
const portableLayout = "portable"

// portableTrailer ends the message of every commit sync makes for a project
// bound to a task: "Portable-Task: T-7" says the remote keeps T-7's project
// in the portable tree's layout (a commit by an older mf-lsp has none).
const portableTrailer = "Portable-Task: "

// oldSyncMessage begins the message of a commit sync made, old or new.
const oldSyncMessage = "sync from machine "

// migrateState moves the paths of a state written in the old layout (the
// project's task root under task/<task>/) to the portable tree's, once:
// bases, conflicts and their kept remote versions. Stat entries are dropped
// (the next scan reads every task note). A state that never synced is in
// the new layout already. moveFiles false (a status) leaves the files where
// they are.
func (st *State) migrateState(data, task string, moveFiles bool) {
	if st.Layout == portableLayout {
		return
	}
	st.Layout = portableLayout
	if task == "" || st.Commit == "" {
		return
	}
	old := "task/" + task + "/"
	move := func(p string) (string, bool) {
		if inner, ok := strings.CutPrefix(p, old); ok && inner != "" {
			return "task/" + inner, true
		}
		return p, false
	}
	notes := make(map[string]Base, len(st.Notes))
	for p, b := range st.Notes {
		if strings.HasPrefix(p, "task/") {
			if q, ok := move(p); ok {
				notes[q] = b
			}
			continue // another task's base: not this project's paths any more
		}
		notes[p] = b
	}
	st.Notes = notes
	conflicts := make(map[string]Conflict, len(st.Conflicts))
	for p, c := range st.Conflicts {
		q, moved := move(p)
		if moved && moveFiles {
			from, to := ConflictFile(data, p), ConflictFile(data, q)
			if os.MkdirAll(filepath.Dir(to), 0o755) == nil {
				os.Rename(from, to)
			}
		}
		conflicts[q] = c
	}
	st.Conflicts = conflicts
	for p := range st.Stat {
		if strings.HasPrefix(p, "task/") {
			delete(st.Stat, p)
		}
	}
}

// oldLayout reports whether the remote at head keeps task's project in the
// old layout: it has files under task/<task>/, no commit in its history says
// Portable-Task: <task>, and some commit of sync made by an older mf-lsp is
// in it (files planted by hand alone are read as they are).
func (g *gitRepo) oldLayout(head plumbing.Hash, remote map[string]treeFile, task string) (bool, error) {
	prefix := "task/" + task + "/"
	found := false
	for p := range remote {
		if strings.HasPrefix(p, prefix) {
			found = true
			break
		}
	}
	if !found || head.IsZero() {
		return false, nil
	}
	c, err := g.r.CommitObject(head)
	if err != nil {
		return false, err
	}
	trailer := portableTrailer + task
	old := false
	err = object.NewCommitPreorderIter(c, nil, nil).ForEach(func(c *object.Commit) error {
		switch {
		case hasTrailer(c.Message, trailer):
			old = false
			return storer.ErrStop
		case strings.HasPrefix(c.Message, oldSyncMessage) && !strings.Contains(c.Message, "\n"+portableTrailer):
			old = true
		}
		return nil
	})
	if err != nil && !errors.Is(err, storer.ErrStop) {
		return false, err
	}
	return old, nil
}

// hasTrailer reports whether a commit message has the line trailer.
func hasTrailer(msg, trailer string) bool {
	for _, line := range strings.Split(msg, "\n") {
		if strings.TrimSpace(line) == trailer {
			return true
		}
	}
	return false
}

// fromOldLayout reads the remote's files with task/<task>/… moved to task/…
// (the project's shared notes) and task/<task>/<ID>/… to task/<ID>/…. A
// moved file whose new path the remote already holds (a task-shared note
// another project's sync put there) leaves that file in place and is
// returned in collided, so the sync holds the path as a conflict rather
// than take either version silently.
func fromOldLayout(files map[string]treeFile, task string) (moved map[string]treeFile, collided []string) {
	prefix := "task/" + task + "/"
	out := make(map[string]treeFile, len(files))
	var from []string
	for p, f := range files {
		if strings.HasPrefix(p, prefix) && p != prefix {
			from = append(from, p)
			continue
		}
		out[p] = f
	}
	sort.Strings(from)
	for _, p := range from {
		q := "task/" + strings.TrimPrefix(p, prefix)
		if cur, ok := out[q]; ok && cur.hash != files[p].hash {
			collided = append(collided, q)
			continue
		}
		out[q] = files[p]
	}
	return out, collided
}

// migrateRemote is called once per plan, after the remote tree is read (and
// merged with a rewritten history): when the remote keeps this project's
// task notes in the old layout, the plan reads them in the new one, so the
// commit it pushes rewrites them there, and says so.
func (s *syncer) migrateRemote(head plumbing.Hash) error {
	task := s.mp.task
	if task == "" || s.st.PortableTask == task {
		return nil
	}
	old, err := s.g.oldLayout(head, s.remote, task)
	if err != nil || !old {
		return err
	}
	moved, collided := fromOldLayout(s.remote, task)
	s.remote, s.migrated = moved, true
	for _, p := range collided {
		delete(s.st.Notes, p) // no base: both versions differ, so a conflict
	}
	s.rep.Migrated = fmt.Sprintf("the remote kept this project's task notes under task/%s/ (the layout before the portable tree's): this sync's commit moves them to task/… and task/<task ID>/…, as export writes them", task)
	if len(collided) > 0 {
		s.rep.Migrated += fmt.Sprintf("; %d already held another version at the new path (another project's task-shared note), kept as conflicts: %s", len(collided), strings.Join(collided, ", "))
	}
	return nil
}
