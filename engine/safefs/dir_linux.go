package safefs

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
)

// dir is an open folder's descriptor: its entries are opened with openat
// relative to it, O_NOFOLLOW.
type dir struct {
	f  *os.File
	fd int
}

// openDirIn opens the folder name in root, then the same folder again
// relative to that descriptor, and keeps the second: a File opened in an
// os.Root lists its folder with an lstat of every entry (os cannot load a
// listed entry's FileInfo lazily there), where a plain one reads getdents
// alone. Non-blocking: a folder is never offered to the poller anyway, and
// opened blocking it was set non-blocking and back, four fcntl calls.
func openDirIn(root *os.Root, name string) (dir, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return dir{}, err
	}
	defer f.Close()
	return dir{f: f, fd: int(f.Fd())}.openDir(".")
}

// openat opens name relative to d, retrying on EINTR; a symbolic link fails
// with ErrLink.
func (d dir) openat(name string, flags int) (int, error) {
	for {
		fd, err := syscall.Openat(d.fd, name, flags|syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
		runtime.KeepAlive(d.f)
		switch err {
		case nil:
			return fd, nil
		case syscall.EINTR:
			continue
		case syscall.ELOOP:
			err = ErrLink
		}
		return -1, &fs.PathError{Op: "open", Path: filepath.Join(d.f.Name(), name), Err: err} // as os.Open says it
	}
}

func (d dir) openDir(name string) (dir, error) {
	fd, err := d.openat(name, syscall.O_DIRECTORY)
	if err != nil {
		return dir{}, err
	}
	return dir{f: os.NewFile(uintptr(fd), filepath.Join(d.f.Name(), name)), fd: fd}, nil
}

func (d dir) openFile(name string) (*os.File, error) {
	fd, err := d.openat(name, syscall.O_NONBLOCK)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), filepath.Join(d.f.Name(), name)), nil
}

func (d dir) readDir() ([]fs.DirEntry, error) { return d.f.ReadDir(-1) }

func (d dir) close() error { return d.f.Close() }

// readFile reads a regular file of at most max bytes on its descriptor alone:
// openat, fstat, read, close, as the floor does. Going through an *os.File
// cost per note an fcntl, a refused poller registration, the File, its name
// and a FileInfo: a quarter of what loading 100,000 notes allocates, all of
// it garbage, which is what let the heap (and the server's peak RSS) run
// ahead of the notes kept. A file that is refused (not regular, too large)
// is read again the slow way, for the same error everywhere.
func (d dir) readFile(name string, max int64, into []byte, stamped bool) ([]byte, Stamp, error) {
	fd, err := d.openat(name, syscall.O_NONBLOCK)
	if err != nil {
		return nil, Stamp{}, err
	}
	buf, st, ok, err := readFd(fd, max, into, stamped)
	syscall.Close(fd) // read-only: nothing to lose, as the slow path's deferred Close
	switch {
	case !ok:
		b, err := d.readFileSlow(name, max)
		return b, Stamp{}, err
	case err != nil:
		return nil, Stamp{}, &fs.PathError{Op: "read", Path: filepath.Join(d.f.Name(), name), Err: err}
	}
	return buf, st, nil
}

// readFd reads fd whole when fstat shows a regular file of at most max bytes
// (max < 0: no limit) and it does not grow past max while read; ok false
// otherwise, for the caller's slow path to say why. It reads into into's
// space when the file fits there. When stamped, its stamp is that fstat's
// if a second one after the read says the same and the bytes read are as
// many as it said; zero when the file changed while read (a stamp taken
// before the read alone could name bytes a write tore during it, one taken
// after alone bytes that were not yet the write's), and when not stamped.
func readFd(fd int, max int64, into []byte, stamped bool) (buf []byte, stamp Stamp, ok bool, err error) {
	st, err := fstat(fd)
	if err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || (max >= 0 && st.Size > max) {
		return nil, Stamp{}, false, nil
	}
	limit := max
	if limit < 0 {
		limit = 1<<62 - 1
	}
	if int64(cap(into)) > st.Size {
		buf = into[:0]
	} else {
		buf = make([]byte, 0, st.Size+1) // +1: the read that finds the end
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return nil, Stamp{}, true, err
		case n == 0:
			if !stamped || int64(len(buf)) != st.Size {
				return buf, Stamp{}, true, nil
			}
			if after, err := fstat(fd); err == nil && stampOf(after) == stampOf(st) {
				stamp = stampOf(st)
			}
			return buf, stamp, true, nil
		}
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, Stamp{}, false, nil // grew past max: the slow path says so
		}
	}
}

// fstat is syscall.Fstat retried on EINTR.
func fstat(fd int) (st syscall.Stat_t, err error) {
	for {
		if err = syscall.Fstat(fd, &st); err != syscall.EINTR {
			return st, err
		}
	}
}

func stampOf(st syscall.Stat_t) Stamp {
	return Stamp{Dev: uint64(st.Dev), Ino: uint64(st.Ino), Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano()}
}
