package safefs

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Dir is an opened folder of a memory tree whose entries are opened by name,
// relative to it: walking a tree through Dirs costs one open per folder and
// one per file, as a plain walk does, where opening every path through an
// os.Root re-resolves it one folder at a time (an open and a close per
// element, per call). The last element of a name is never followed when it
// is a symbolic link (OpenDir and ReadFile fail on one), so nothing opened
// through a Dir leaves the folder the Dir was opened from.
//
// A Dir is safe for concurrent use until it is closed.
type Dir struct{ dir }

// OpenDirIn opens the folder name inside root (a link in name is followed
// only inside root, as os.Root does).
func OpenDirIn(root *os.Root, name string) (*Dir, error) {
	d, err := openDirIn(root, name)
	if err != nil {
		return nil, err
	}
	return &Dir{d}, nil
}

// OpenDir opens the folder name (one element) inside d.
func (d *Dir) OpenDir(name string) (*Dir, error) {
	if err := oneElement(name); err != nil {
		return nil, err
	}
	c, err := d.openDir(name)
	if err != nil {
		return nil, err
	}
	return &Dir{c}, nil
}

// ReadDir lists d sorted by name, as os.ReadDir does. An entry's Type is the
// listing's; its Info is not loaded, and would stat a path relative to the
// root, not to d: read what a file is by opening it through d.
func (d *Dir) ReadDir() ([]fs.DirEntry, error) {
	entries, err := d.readDir()
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// ReadFile reads the file name (one element) inside d when it is a regular
// file of at most max bytes, like ReadFile: never blocking on a FIFO, never
// following a symbolic link.
func (d *Dir) ReadFile(name string, max int64) ([]byte, error) {
	if err := oneElement(name); err != nil {
		return nil, err
	}
	b, _, err := d.readFile(name, max, nil, false)
	return b, err
}

// ReadFileInto is ReadFile reading into buf's space when the file fits in
// it (else into a new buffer): a caller that keeps nothing of what it read
// reuses one buffer for many files instead of making garbage of each. It
// also answers the file's Stamp as it was read, at the price of a second
// fstat after the read.
func (d *Dir) ReadFileInto(name string, max int64, buf []byte) ([]byte, Stamp, error) {
	if err := oneElement(name); err != nil {
		return nil, Stamp{}, err
	}
	return d.readFile(name, max, buf, true)
}

// Stamp is what the opened file's own fstat said of it as it was read whole:
// which file (device and inode), its size, its modification and change
// times (nanoseconds since 1970). Any write to the file or its inode moves
// its change time, which no program can set back, so an equal stamp names
// the same bytes unless the write fell within the same tick of the file
// system's clock as the stamp was taken; a caller judges that by the times
// (engine: Note.Text). The zero Stamp is unknown: the file changed while read,
// or the platform gives no descriptor's fstat here.
type Stamp struct {
	Dev, Ino     uint64
	Size         int64
	Mtime, Ctime int64
}

// Known reports whether s was taken (not the zero Stamp).
func (s Stamp) Known() bool { return s != Stamp{} }

// readFileSlow is ReadFile through an *os.File: the one way where openat is
// not at hand, and the way a refused file's error is worded everywhere.
func (d dir) readFileSlow(name string, max int64) ([]byte, error) {
	f, err := d.openFile(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpened(f, f.Name(), max)
}

// Close closes d; the folders opened from it stay open.
func (d *Dir) Close() error { return d.close() }

// oneElement refuses a name that is not one path element: a Dir opens only
// its own entries.
func oneElement(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsRune(name, '/') || strings.ContainsRune(name, os.PathSeparator) {
		return &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	return nil
}

// ReadInNoLinks reads name (a path relative to root) when it is a regular
// file of at most max bytes and no element of it, folder or file, is a
// symbolic link: each folder on the way is opened relative to the one before
// it without following a link (OpenDir), so a folder swapped for a link
// after the caller looked fails with ErrLink instead of leading elsewhere in
// the root. It also answers the file's Stamp (ReadFileInto).
func ReadInNoLinks(root *os.Root, name string, max int64) ([]byte, Stamp, error) {
	return ReadInNoLinksInto(root, name, max, nil)
}

// ReadInNoLinksInto is ReadInNoLinks reading into buf's space when the file
// fits in it (Dir.ReadFileInto).
func ReadInNoLinksInto(root *os.Root, name string, max int64, buf []byte) ([]byte, Stamp, error) {
	dir, file := filepath.Split(filepath.Clean(name))
	d, err := OpenDirNoLinks(root, dir)
	if err != nil {
		return nil, Stamp{}, err
	}
	defer d.Close()
	return d.ReadFileInto(file, max, buf)
}

// OpenDirNoLinks opens the folder name inside root through no symbolic link
// at all, as ReadInNoLinks reaches a file's folder: a folder at a time, each
// opened without following a link ("" and "." are root itself).
func OpenDirNoLinks(root *os.Root, name string) (*Dir, error) {
	d, err := OpenDirIn(root, ".")
	if err != nil {
		return nil, err
	}
	name = filepath.ToSlash(filepath.Clean(name))
	if name == "." {
		return d, nil
	}
	for _, p := range strings.Split(name, "/") {
		c, err := d.OpenDir(p)
		d.Close()
		if err != nil {
			return nil, err
		}
		d = c
	}
	return d, nil
}
