package roam

import (
	"errors"
	"fmt"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
)

// rewritten is a remote head that does not descend from the last synced
// commit: a force-push, a rewind, unrelated history, a deleted branch.
type rewritten struct {
	old    plumbing.Hash // the last synced commit
	oldOK  bool          // its commit is in the local repository
	rewind bool          // the head is an ancestor of old: a plain rewind
	real   map[string]treeFile
}

// errNoOld says why a rewritten remote cannot be merged path by path.
var errNoOld = errors.New("the last synced commit is not in the local repository")

// rebaseRewritten is called once per plan, after the remote tree is read.
// When the remote head does not descend from the last synced commit, it
// replaces the plan's view of the remote with a merge of the two histories,
// path by path against their fork point (none for unrelated history):
//
//   - a path the rewrite did not change since the fork gets this machine's
//     last synced version back (what the rewrite dropped or rolled back);
//   - a path only the rewritten side changed keeps the remote version,
//     unless it is not a newer revision than the last synced one, or is a
//     deletion: then the path's base is cleared, so it conflicts (both
//     present) or is sent again (deleted there), never deleted or rolled back;
//   - a path both changed, differently, has its base cleared: a conflict
//     that keeps both versions, unless the two merge cleanly.
//
// The commit that sync pushes then has the last synced commit as a parent,
// so every version any machine synced stays reachable for history and
// restore.
func (s *syncer) rebaseRewritten(head plumbing.Hash) error {
	s.rw = nil
	if s.st.Commit == "" {
		return nil
	}
	old := plumbing.NewHash(s.st.Commit)
	if head == old {
		return nil
	}
	rw := &rewritten{old: old, real: s.remote}
	oc, err := s.g.r.CommitObject(old)
	rw.oldOK = err == nil
	var fork map[string]treeFile
	if !head.IsZero() && rw.oldOK {
		hc, err := s.g.r.CommitObject(head)
		if err != nil {
			return fmt.Errorf("read the remote head %s: %w", head, err)
		}
		if ok, err := oc.IsAncestor(hc); err != nil {
			return err
		} else if ok {
			return nil // the normal case: the remote moved forward
		}
		if rw.rewind, err = hc.IsAncestor(oc); err != nil {
			return err
		}
		bases, err := hc.MergeBase(oc)
		if err != nil {
			return err
		}
		if len(bases) > 0 {
			if fork, err = s.g.files(bases[0].Hash); err != nil {
				return err
			}
		}
	}
	s.rw = rw
	s.rep.Rewritten = rw.describe(head)
	if !rw.oldOK {
		// Nothing to merge against: every difference is a conflict, as when
		// the remote URL changes.
		s.st.Notes = nil
		return nil
	}
	oldFiles, err := s.g.files(old)
	if err != nil {
		return err
	}
	eff := map[string]treeFile{}
	paths := map[string]bool{}
	for _, m := range []map[string]treeFile{fork, oldFiles, s.remote} {
		for p := range m {
			paths[p] = true
		}
	}
	for p := range paths {
		f, inFork := fork[p]
		o, inOld := oldFiles[p]
		h, inHead := s.remote[p]
		same := func(a treeFile, ina bool, b treeFile, inb bool) bool { return ina == inb && (!ina || a.hash == b.hash) }
		switch {
		case same(h, inHead, f, inFork): // the rewrite left it: ours comes back
			if inOld {
				eff[p] = o
			}
		case same(h, inHead, o, inOld):
			eff[p] = h
		case same(o, inOld, f, inFork) && inHead && (!inOld || s.remoteRevision(h.hash) > s.remoteRevision(o.hash)):
			eff[p] = h // a newer version written on the rewritten side
		default:
			if inHead {
				eff[p] = h
			}
			delete(s.st.Notes, p)
		}
	}
	s.remote = eff
	return nil
}

func (rw *rewritten) describe(head plumbing.Hash) string {
	what := "does not descend from the last synced commit " + short(rw.old)
	switch {
	case head.IsZero():
		what = "has no branch " + branch + " any more (the last synced commit was " + short(rw.old) + ")"
	case rw.rewind:
		what = "was rewound to " + short(head) + ", before the last synced commit " + short(rw.old)
	}
	how := "merged with the last synced commit: nothing deleted or rolled back, differences are conflicts"
	if !rw.oldOK {
		how = errNoOld.Error() + ": every difference is a conflict, nothing deleted or rolled back"
	}
	return "the remote's history was rewritten: " + branch + " " + what + "; " + how
}

func short(h plumbing.Hash) string { return h.String()[:7] }

// rewrittenChanges reports the paths the merged tree restores or changes in
// the rewritten remote that the plan did not report itself (a path this
// machine did not change, put back where the rewrite dropped it).
func (s *syncer) rewrittenChanges() {
	if s.rw == nil {
		return
	}
	done := map[string]bool{}
	for _, c := range s.rep.Pushed {
		done[c.Path] = true
	}
	for _, p := range sortedKeys(s.merged) {
		f := s.merged[p]
		r, ok := s.rw.real[p]
		if done[p] || !s.mp.owns(p) || (ok && r.hash == f.hash) {
			continue
		}
		op := "update"
		if !ok {
			op = "add"
		}
		s.rep.Pushed = append(s.rep.Pushed, Change{Path: p, Op: op, Revision: s.remoteRevision(f.hash)})
	}
}

// parents of the commit sync pushes on head: with a rewritten remote, the
// last synced commit too (alone for a rewind, which it descends from).
func (s *syncer) parents(head plumbing.Hash) []plumbing.Hash {
	if s.rw == nil || !s.rw.oldOK {
		if head.IsZero() {
			return nil
		}
		return []plumbing.Hash{head}
	}
	if s.rw.rewind || head.IsZero() {
		return []plumbing.Hash{s.rw.old}
	}
	return []plumbing.Hash{head, s.rw.old}
}

func sortedKeys(m map[string]treeFile) []string {
	out := make([]string, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
