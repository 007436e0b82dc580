package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

var (
	// ErrOutsideRoot: the path, once ".." and symbolic links are resolved, is
	// not inside the memory root.
	ErrOutsideRoot = errors.New("store: path is outside the memory root")
	// ErrSymlink: the note's path is itself a symbolic link.
	ErrSymlink = errors.New("store: refusing to write or remove through a symbolic link")
	// ErrReservedName: the note's name starts with "." — the names of the
	// store's own lock and temporary files, never read as notes.
	ErrReservedName = errors.New("store: names starting with \".\" are not notes")
)

// target is a note path checked against its root.
type target struct {
	rootReal string   // root, absolute, symbolic links resolved
	rel      string   // path relative to root, cleaned
	display  string   // root joined with rel, for messages
	dir      string   // deepest existing parent directory, symbolic links resolved
	missing  []string // parent directories still to create below dir, in order
	base     string   // the note's file name
}

// file is the path the note is read from and written to.
func (t *target) file() string {
	return filepath.Join(append(append([]string{t.dir}, t.missing...), t.base)...)
}

// parent is the note's directory (which may not exist yet).
func (t *target) parent() string {
	return filepath.Join(append([]string{t.dir}, t.missing...)...)
}

// resolve checks that path (absolute, or relative to root) names a note inside
// root, and finds where its existing parent directories really are. It
// creates nothing; root itself must exist.
func resolve(root, path string) (*target, error) {
	rootAbs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("store: memory root: %w", err)
	}
	rootReal, err := filepath.EvalSymlinks(rootAbs)
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
	if strings.HasPrefix(t.base, ".") {
		return nil, fmt.Errorf("%w: %s", ErrReservedName, t.display)
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
			if fi, err = os.Stat(r); err != nil || !fi.IsDir() {
				return nil, fmt.Errorf("store: parent %s of %s is not a directory", next, t.display)
			}
			cur = r
		case !fi.IsDir():
			return nil, fmt.Errorf("store: parent %s of %s is not a directory", next, t.display)
		default:
			cur = next
		}
	}
	t.dir = cur
	return t, nil
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
		if err := os.Mkdir(next, 0o755); err != nil {
			// Someone outside the store may have made it meanwhile; accept a
			// real directory, nothing else.
			fi, lerr := os.Lstat(next)
			if lerr != nil || !fi.IsDir() {
				return fmt.Errorf("store: create directory: %w", err)
			}
		} else if err := syncDir(cur); err != nil {
			return err
		}
		cur = next
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
	f := t.file()
	fi, err := os.Lstat(f)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, 0, false, nil
	case err != nil:
		return nil, 0, false, fmt.Errorf("store: %w", err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, 0, false, fmt.Errorf("%w: %s", ErrSymlink, t.display)
	case !fi.Mode().IsRegular():
		return nil, 0, false, fmt.Errorf("store: %s is not a regular file", t.display)
	}
	b, err := os.ReadFile(f)
	if err != nil {
		return nil, 0, false, fmt.Errorf("store: %w", err)
	}
	return b, fi.Mode().Perm(), true, nil
}
