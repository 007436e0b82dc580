package store

import (
	"errors"

	"fmt"
	"github.com/magicfrog/mf-lsp/engine/safefs"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// MaxRead is the largest file the store reads to check or replace it: far
// above a note's size, it only keeps a hostile file from being read whole.
const MaxRead = 64 << 20

var (
	// ErrOutsideRoot: the path, once ".." and symbolic links are resolved, is
	// not inside the memory root.
	ErrOutsideRoot = errors.New("store: path is outside the memory root")
	// ErrSymlink: the note's path, or a folder on the way to it inside the
	// root, is a symbolic link: no write goes through a link.
	ErrSymlink = errors.New("store: refusing to write or remove through a symbolic link")
	// ErrReservedName: the note's name, or a folder on its path, starts with
	// "." — the names of the store's own lock and temporary files, never read
	// as notes.
	ErrReservedName = errors.New("store: names starting with \".\" are not notes")
)

// target is a note path checked against its root. The checks below give
// precise messages; every operation then goes through root (an os.Root), so a
// folder swapped for a link after the checks still cannot lead out.
type target struct {
	root     *os.Root           // the memory root, opened
	folder   *os.Root           // dir, opened inside root once it has no missing parents (openFolder); nil before
	dirInfo  fs.FileInfo        // dir as resolve (or mkdirs) found it, by Lstat; nil: the root itself
	rootReal string             // root, absolute, symbolic links resolved
	rel      string             // path relative to root, cleaned
	display  string             // root joined with rel, for messages
	dir      string             // deepest existing parent directory, symbolic links resolved
	missing  []string           // parent directories still to create below dir, in order
	base     string             // the note's file name
	crash    func(point string) // the write's crash hook (tests), if any
}

// in is the path of abs (t.dir or below, symbolic links resolved) relative to
// the root, for os.Root.
func (t *target) in(abs string) string {
	rel, ok := inside(t.rootReal, abs)
	if !ok {
		return abs // os.Root refuses it
	}
	return rel
}

// close releases the opened root and folder.
func (t *target) close() {
	if t.folder != nil && t.folder != t.root {
		t.folder.Close()
	}
	if t.root != nil {
		t.root.Close()
	}
}

// openFolder opens the note's folder inside the root, for the operations
// on the note and its temporary file: each of them, by a path below the
// root, opened and closed every folder on the way (an append's write opened
// its journal folder eleven times). The folder's parents must exist.
func (t *target) openFolder() error {
	if t.folder != nil {
		return nil
	}
	rel := t.in(t.dir)
	if rel == "." {
		t.folder = t.root
		return nil
	}
	f, err := t.root.OpenRoot(rel)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	// The folder opened is the one resolve found, no link on the way: one
	// swapped for a link since (to another owner's folder inside the root,
	// which os.Root follows) is refused, not written into.
	if st, err := f.Stat("."); err != nil || t.dirInfo == nil || !os.SameFile(st, t.dirInfo) {
		f.Close()
		return fmt.Errorf("%w: the folder %s changed since the write looked at it (replaced by a link?)", ErrSymlink, filepath.Join(t.rootReal, rel))
	}
	t.folder = f
	return nil
}

// at is where the operations on the folder dir (inside the root) go: the
// opened note's folder and "." for it, else the root and dir below it.
func (t *target) at(dir string) (*os.Root, string) {
	if t.folder != nil && dir == t.dir {
		return t.folder, "."
	}
	return t.root, t.in(dir)
}

// resolve checks that path (absolute, or relative to root) names a note inside
// root, and finds where its existing parent directories really are. It
// creates nothing. It runs under root's lock, whose taking checked root and
// resolved it (lockRoot: rootReal, absolute, its links resolved).
func resolve(root, rootReal, path string) (*target, error) {
	rootAbs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("store: memory root: %w", err)
	}
	p := path
	if !filepath.IsAbs(p) {
		p = filepath.Join(rootAbs, p)
	}
	p = filepath.Clean(p)
	rel, ok := inside(rootAbs, p)
	if !ok {
		// An absolute path may name the root by its resolved form.
		if rel, ok = inside(rootReal, p); !ok {
			return nil, fmt.Errorf("%w: %s is not inside %s", ErrOutsideRoot, path, root)
		}
	}
	if rel == "." {
		return nil, fmt.Errorf("%w: %s is the root itself, not a note", ErrOutsideRoot, path)
	}
	t := &target{rootReal: rootReal, rel: rel, display: filepath.Join(rootAbs, rel), base: filepath.Base(rel)}
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if strings.HasPrefix(part, ".") { // the note, or a folder readers skip (the lock's)
			return nil, fmt.Errorf("%w: %s", ErrReservedName, t.display)
		}
	}
	cur := rootReal
	var comps []string
	if d := filepath.Dir(rel); d != "." {
		comps = strings.Split(d, string(filepath.Separator))
	}
	for i, c := range comps {
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			t.dir, t.missing = cur, comps[i:]
			return t, nil
		case err != nil:
			return nil, fmt.Errorf("store: %w", err)
		case fi.Mode()&fs.ModeSymlink != 0:
			r, err := filepath.EvalSymlinks(next)
			if err != nil {
				return nil, fmt.Errorf("store: parent directory %s is a symbolic link that does not resolve: %w", next, err)
			}
			if _, ok := inside(rootReal, r); !ok {
				return nil, fmt.Errorf("%w: parent directory %s is a symbolic link to %s", ErrOutsideRoot, filepath.Join(rootAbs, filepath.Join(comps[:i+1]...)), r)
			}
			// Inside the root, a folder link still leads into another
			// owner's notes (agent/larry/moedir -> ../moe): no write goes
			// through a link, at the note or on the way to it.
			return nil, fmt.Errorf("%w: the folder %s on the way to %s is a symbolic link (to %s)", ErrSymlink, filepath.Join(rootAbs, filepath.Join(comps[:i+1]...)), t.display, LinkTarget(next))
		case !fi.IsDir():
			return nil, fmt.Errorf("store: parent %s of %s is not a directory", next, t.display)
		default:
			cur, t.dirInfo = next, fi
		}
	}
	t.dir = cur
	return t, nil
}

// open opens the root for the operations on t.
func (t *target) open() error {
	r, err := safefs.OpenRoot(t.rootReal)
	if err != nil {
		return fmt.Errorf("store: memory root: %w", err)
	}
	t.root = r
	return nil
}

// checkRoot refuses a memory root that is a symbolic link: readers do not
// follow it, so notes written through it would land outside the tree and be
// invisible (a cloned project's .magicfrog/memory pointing anywhere).
func checkRoot(root string) error {
	fi, err := os.Lstat(root)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(root)
		return fmt.Errorf("%w: the memory root %s is a symbolic link (to %s); replace it with a real folder", ErrOutsideRoot, root, target)
	}
	return nil
}

// inside returns p relative to root when p is root or below it (lexically).
func inside(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// mkdirs creates the missing parent directories, fsyncing each new entry's
// directory so the note's path survives a crash along with the note.
func (t *target) mkdirs() error {
	cur := t.dir
	for _, c := range t.missing {
		next := filepath.Join(cur, c)
		if err := t.root.Mkdir(t.in(next), 0o755); err != nil {
			// Someone outside the store may have made it meanwhile; accept a
			// real directory, nothing else.
			fi, lerr := t.root.Lstat(t.in(next))
			if lerr != nil || !fi.IsDir() {
				return fmt.Errorf("store: create directory: %w", err)
			}
		} else if err := t.syncDir(cur); err != nil {
			return err
		}
		cur = next
	}
	if len(t.missing) > 0 {
		fi, err := t.root.Lstat(t.in(cur))
		if err != nil || !fi.IsDir() {
			return fmt.Errorf("store: create directory %s: not a folder after making it", cur)
		}
		t.dirInfo = fi
	}
	t.dir, t.missing = cur, nil
	return nil
}

// read returns the note's bytes and mode; exists is false when there is no
// file. A symbolic link or anything but a regular file is refused.
func (t *target) read() (content []byte, mode fs.FileMode, exists bool, err error) {
	if len(t.missing) > 0 {
		return nil, 0, false, nil
	}
	if err := t.openFolder(); err != nil {
		return nil, 0, false, err
	}
	f := t.base
	fi, err := t.folder.Lstat(f)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, 0, false, nil
	case err != nil:
		return nil, 0, false, fmt.Errorf("store: %w", err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, 0, false, fmt.Errorf("%w: %s", ErrSymlink, t.display)
	case !fi.Mode().IsRegular():
		return nil, 0, false, fmt.Errorf("store: %s is %s, not a note", t.display, safefs.Kind(fi.Mode()))
	}
	b, err := safefs.ReadIn(t.folder, f, MaxRead)
	switch {
	case errors.Is(err, safefs.ErrTooLarge):
		return nil, 0, false, fmt.Errorf("store: %s is larger than %d MiB: not a note, not replaced", t.display, MaxRead>>20)
	case errors.Is(err, safefs.ErrLink):
		return nil, 0, false, fmt.Errorf("%w: %s", ErrSymlink, t.display)
	case err != nil:
		return nil, 0, false, fmt.Errorf("store: %w", err)
	}
	return b, fi.Mode().Perm(), true, nil
}

func kindOf(m fs.FileMode) string { return safefs.Kind(m) }
