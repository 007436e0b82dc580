package engine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/magicfrog/mf-lsp/engine/safefs"
)

// ProblemLinkCrossesScope: a symbolic link that leads out of its owner's
// scope (another agent's or task's folder, another dimension, the memory
// root's own files, or out of the memory root). It is never followed.
const ProblemLinkCrossesScope ProblemKind = "link-crosses-scope"

// maxLinkHops bounds a chain of links, as the system's own resolution does.
const maxLinkHops = 40

// linkTarget follows the symbolic link at p (inside root r, found by the
// walk) one hop at a time, and returns the note it leads to, by a path with
// no link in it, when every hop stays in the same dimension root and the
// same owner folder as the link itself (SPEC §2's ID prefix, or the shared
// notes), and crosses no link to a folder and no hidden name. Anything else
// is a Problem naming where the link points, and nothing is read.
//
// The caller holds m.mu (it reads the roster's IDs).
func (m *Memory) linkTarget(r Root, p string) (string, *Problem) {
	memRoot := m.Paths.LockRoot(r.Dir)
	realMem, err := filepath.EvalSymlinks(memRoot)
	if err != nil {
		realMem = memRoot
	}
	rel, err := filepath.Rel(r.Dir, p)
	if err != nil {
		return "", &Problem{Path: p, Kind: ProblemUnreadable, Message: err.Error()}
	}
	owner, _, unregistered := m.ids.classify(r.Dimension, filepath.ToSlash(rel))
	what := "symbolic link"
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		what = "symbolic link to a folder"
	}
	crossing := func(dest, where string) *Problem {
		return &Problem{Path: p, Kind: ProblemLinkCrossesScope, Message: what + " leading " + where + " (" + dest + "): not followed, a link never leaves its owner's scope (copy the note instead)"}
	}
	cur := p
	for range maxLinkHops {
		dest, err := os.Readlink(cur)
		if err != nil {
			return "", &Problem{Path: p, Kind: ProblemUnreadable, Message: "broken or looping symbolic link: " + err.Error()}
		}
		next := filepath.Clean(dest)
		if !filepath.IsAbs(next) {
			next = filepath.Join(filepath.Dir(cur), next)
		} else if in, ok := relInside(realMem, next); ok && !within(memRoot, next) {
			next = filepath.Join(memRoot, in) // the memory root named by its resolved path
		}
		if !within(memRoot, next) {
			return "", crossing(dest, "out of the memory root")
		}
		if !within(r.Dir, next) {
			return "", crossing(dest, "into "+m.linkPlace(next))
		}
		inner, _ := filepath.Rel(r.Dir, next)
		parts := strings.Split(filepath.ToSlash(inner), "/")
		for _, part := range parts {
			if strings.HasPrefix(part, ".") {
				return "", crossing(dest, "to a hidden name ("+filepath.ToSlash(inner)+"), never a note")
			}
		}
		o, _, u := m.ids.classify(r.Dimension, filepath.ToSlash(inner))
		if o != owner || u != unregistered || inner == "." {
			return "", crossing(dest, "into "+m.linkPlace(next))
		}
		// Every folder on the way is a real folder: a folder link is never
		// gone through (it could lead anywhere the next time).
		dir := r.Dir
		for _, part := range parts[:len(parts)-1] {
			dir = filepath.Join(dir, part)
			fi, err := os.Lstat(dir)
			switch {
			case err != nil:
				return "", &Problem{Path: p, Kind: ProblemUnreadable, Message: "broken or looping symbolic link: " + err.Error()}
			case fi.Mode()&fs.ModeSymlink != 0:
				return "", &Problem{Path: p, Kind: ProblemLink, Message: "symbolic link through the folder link " + m.linkPlace(dir) + ": not followed"}
			case !fi.IsDir():
				return "", &Problem{Path: p, Kind: ProblemUnreadable, Message: "broken symbolic link: " + filepath.Join(parts...) + " is not in a folder"}
			}
		}
		fi, err := os.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "", &Problem{Path: p, Kind: ProblemUnreadable, Message: "broken or looping symbolic link: " + dest + " does not exist"}
		case err != nil:
			return "", &Problem{Path: p, Kind: ProblemUnreadable, Message: "broken or looping symbolic link: " + err.Error()}
		case fi.Mode()&fs.ModeSymlink != 0:
			cur = next
			continue
		case fi.IsDir():
			return "", &Problem{Path: p, Kind: ProblemLink, Message: "symbolic link to a folder: not followed (link the notes themselves, or move the folder in)"}
		case !fi.Mode().IsRegular():
			return "", &Problem{Path: p, Kind: ProblemSpecial, Message: "symbolic link to " + safefs.Kind(fi.Mode()) + ": not a note, never read"}
		}
		return next, nil
	}
	return "", &Problem{Path: p, Kind: ProblemUnreadable, Message: "broken or looping symbolic link: more than 40 links in a chain"}
}

// linkPlace names a path inside the memory root for a message: its portable
// path (agent/moe/notes/m.md, agent/moe for a first folder), or the memory
// root's own file.
func (m *Memory) linkPlace(path string) string {
	loc, ok := m.locateLocked(path)
	if !ok {
		rel, err := filepath.Rel(m.Paths.LockRoot(path), path)
		if err != nil {
			return path
		}
		return "the memory root's own files (" + filepath.ToSlash(rel) + ")"
	}
	return Ref(loc.Dimension, loc.Owner, loc.Key)
}

// relInside is path relative to dir when it is dir or below it.
func relInside(dir, path string) (string, bool) {
	if !within(dir, path) {
		return "", false
	}
	rel, err := filepath.Rel(dir, path)
	return rel, err == nil
}

// linkOnTheWay reports whether a folder between root and path (below root)
// is a symbolic link, or cannot be looked at: what is reached through it is
// not in the tree (the walk never goes through a folder link). A folder that
// does not exist ends the search: nothing below it is reached at all.
func linkOnTheWay(root, path string) bool {
	rel, err := filepath.Rel(root, filepath.Dir(path))
	if err != nil || rel == "." {
		return err != nil
	}
	dir := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		dir = filepath.Join(dir, part)
		fi, err := os.Lstat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return false // nothing below: nothing reached through a link
		case err != nil || fi.Mode()&fs.ModeSymlink != 0:
			return true
		}
	}
	return false
}

// ThroughLink reports whether path, inside one of the tree's roots, is a
// symbolic link or lies below a folder link: what it names is read only as
// the loaded note (Note), never from the disk by that path, since the link
// may lead into another owner's notes.
func (m *Memory) ThroughLink(path string) bool {
	loc, ok := m.Locate(path)
	if !ok {
		return false
	}
	path = filepath.Clean(path)
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return true
	}
	return linkOnTheWay(loc.Root.Dir, path)
}

// CrossingLink is the link-crosses-scope problem of path when path is such a
// link, or lies below a folder link that is one (an editor opened a file
// through it): the file is no note of this tree, and the problem says where
// the link leads.
func (m *Memory) CrossingLink(path string) (Problem, bool) {
	path = filepath.Clean(path)
	if p, ok := m.ProblemAt(path); ok {
		return p, p.Kind == ProblemLinkCrossesScope
	}
	loc, ok := m.Locate(path)
	if !ok {
		return Problem{}, false
	}
	rel, err := filepath.Rel(loc.Root.Dir, filepath.Dir(path))
	if err != nil || rel == "." {
		return Problem{}, false
	}
	dir := loc.Root.Dir
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		dir = filepath.Join(dir, part)
		if fi, err := os.Lstat(dir); err != nil || fi.Mode()&fs.ModeSymlink != 0 {
			p, ok := m.ProblemAt(dir)
			return p, ok && p.Kind == ProblemLinkCrossesScope
		}
	}
	return Problem{}, false
}
