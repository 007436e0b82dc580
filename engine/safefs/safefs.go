// Package safefs reads and opens files of a memory tree that may have been
// built by someone hostile: a note that is a FIFO, a socket or a device, a
// file swapped for a symbolic link between a check and a read, a root that is
// itself a link to somewhere else, a file far larger than a note.
//
// Every read here opens the file without blocking (a FIFO opened for reading
// would wait forever for a writer), checks the opened file's own Stat (a
// regular file, at most max bytes) before reading a byte, and then reads at
// most max+1 bytes, so a file that grows after the check is still caught.
// Paths inside a memory root are opened through os.Root, which never follows a
// symbolic link out of the root.
package safefs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrNotRegular: the path is a FIFO, socket, device or folder, not a file.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge: the file is larger than the caller's limit.
var ErrTooLarge = errors.New("larger than the limit")

// ErrLink: the path is a symbolic link where none is accepted.
var ErrLink = errors.New("a symbolic link")

// Kind names what a non-regular file is, for messages: "a FIFO", "a socket".
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a folder"
	case m.IsRegular():
		return "a regular file"
	}
	return "not a regular file"
}

// checkOpened stats an opened file: a regular file of at most max bytes.
func checkOpened(f *os.File, name string, max int64) (fs.FileInfo, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return info, fmt.Errorf("%s is %s: %w", name, Kind(info.Mode()), ErrNotRegular)
	}
	if max >= 0 && info.Size() > max {
		return info, fmt.Errorf("%s: %d bytes: %w of %d bytes", name, info.Size(), ErrTooLarge, max)
	}
	return info, nil
}

// readAll reads f whole, failing with ErrTooLarge beyond max bytes however
// the file changed since it was stat'ed (max < 0: no limit).
func readAll(f *os.File, name string, size, max int64) ([]byte, error) {
	limit := max
	if limit < 0 {
		limit = 1<<62 - 1
	}
	buf := make([]byte, 0, min(size, limit)+1)
	r := io.LimitReader(f, limit+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if int64(len(buf)) > limit {
		return nil, fmt.Errorf("%s: grew past %d bytes while read: %w", name, limit, ErrTooLarge)
	}
	return buf, nil
}

// ReadFile reads the file at path (symbolic links followed) when it is a
// regular file of at most max bytes (max < 0: no limit). It never blocks on a
// FIFO: such files fail with ErrNotRegular without being read.
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|ONonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpened(f, path, max)
}

// ReadIn reads name inside root when it is a regular file of at most max
// bytes. A symbolic link as the last element is refused (ErrLink), and so is
// any element leaving root; a name swapped for a link between the check and
// the open is caught by comparing the two.
func ReadIn(root *os.Root, name string, max int64) ([]byte, error) {
	lst, err := root.Lstat(name)
	if err != nil {
		return nil, err
	}
	if lst.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s: %w", name, ErrLink)
	}
	if !lst.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %s: %w", name, Kind(lst.Mode()), ErrNotRegular)
	}
	f, err := root.OpenFile(name, os.O_RDONLY|ONonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := checkOpened(f, name, max)
	if err != nil {
		return nil, err
	}
	if !os.SameFile(lst, info) {
		return nil, fmt.Errorf("%s changed while it was opened (replaced by a link?): %w", name, ErrLink)
	}
	return readAll(f, name, info.Size(), max)
}

// OpenRoot opens dir as an os.Root, refusing a dir that is itself a symbolic
// link (the memory root of a cloned project pointing somewhere else): the
// check is made on the opened directory, so a swap between the two is caught.
func OpenRoot(dir string) (*os.Root, error) {
	lst, err := os.Lstat(dir)
	if err != nil {
		return nil, err
	}
	if lst.Mode()&fs.ModeSymlink != 0 {
		target, _ := filepath.EvalSymlinks(dir)
		return nil, fmt.Errorf("%s is a symbolic link (to %s); a memory root must be a real folder: %w", dir, target, ErrLink)
	}
	if !lst.IsDir() {
		return nil, fmt.Errorf("%s is %s, not a folder: %w", dir, Kind(lst.Mode()), ErrNotRegular)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	if !isFolder(r, lst) {
		r.Close()
		return nil, fmt.Errorf("%s changed while it was opened (replaced by a link?): %w", dir, ErrLink)
	}
	return r, nil
}

// isFolder reports whether the opened root r is the folder lst describes,
// the one a check by path found before the open.
func isFolder(r *os.Root, lst fs.FileInfo) bool {
	info, err := r.Stat(".")
	return err == nil && os.SameFile(lst, info)
}

// OpenRootIn opens the folder name of root as an os.Root, refusing a name
// that is a symbolic link, or that is swapped for one (or for another
// folder) between the check and the open: the opened folder must be the one
// the check found. (An os.Root follows a link that stays inside it, so a
// folder swapped for a link to a sibling would otherwise be used.)
func OpenRootIn(root *os.Root, name string) (*os.Root, error) {
	lst, err := lstatFolder(root, name)
	if err != nil {
		return nil, err
	}
	return openRootAs(root, name, lst)
}

// lstatFolder is OpenRootIn's check: name is a folder, not a link.
func lstatFolder(root *os.Root, name string) (fs.FileInfo, error) {
	lst, err := root.Lstat(name)
	if err != nil {
		return nil, err
	}
	if lst.Mode()&fs.ModeSymlink != 0 {
		return nil, &fs.PathError{Op: "open", Path: name, Err: ErrLink}
	}
	if !lst.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("%s, not a folder: %w", Kind(lst.Mode()), ErrNotRegular)}
	}
	return lst, nil
}

// openRootAs is OpenRootIn's open: the folder opened must be lst, the one
// the check found.
func openRootAs(root *os.Root, name string, lst fs.FileInfo) (*os.Root, error) {
	r, err := root.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	if !isFolder(r, lst) {
		r.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("changed while it was opened (replaced by a link?): %w", ErrLink)}
	}
	return r, nil
}

// ReadInFollow is ReadIn for a name that may be a symbolic link, as long as
// the link (and every one it leads to) stays inside root.
func ReadInFollow(root *os.Root, name string, max int64) ([]byte, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|ONonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpened(f, name, max)
}

// ReadNoFollow is ReadFile for a path whose last element must not be a
// symbolic link, even one swapped in after the caller looked (Lstat): the
// open itself refuses to follow it.
func ReadNoFollow(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|ONonblock|oNofollow, 0)
	if err != nil {
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s: %w", path, ErrLink)
		}
		return nil, err
	}
	defer f.Close()
	return readOpened(f, path, max)
}

// readOpened reads an opened file whole once its own Stat shows a regular
// file of at most max bytes: the one check every reader here ends with.
func readOpened(f *os.File, name string, max int64) ([]byte, error) {
	info, err := checkOpened(f, name, max)
	if err != nil {
		return nil, err
	}
	return readAll(f, name, info.Size(), max)
}
