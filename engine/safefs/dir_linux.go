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

func openDirIn(root *os.Root, name string) (dir, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return dir{}, err
	}
	return dir{f: f, fd: int(f.Fd())}, nil
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
func (d dir) readFile(name string, max int64, into []byte) ([]byte, error) {
	fd, err := d.openat(name, syscall.O_NONBLOCK)
	if err != nil {
		return nil, err
	}
	buf, ok, err := readFd(fd, max, into)
	syscall.Close(fd) // read-only: nothing to lose, as the slow path's deferred Close
	switch {
	case !ok:
		return d.readFileSlow(name, max)
	case err != nil:
		return nil, &fs.PathError{Op: "read", Path: filepath.Join(d.f.Name(), name), Err: err}
	}
	return buf, nil
}

// readFd reads fd whole when fstat shows a regular file of at most max bytes
// (max < 0: no limit) and it does not grow past max while read; ok false
// otherwise, for the caller's slow path to say why. It reads into into's
// space when the file fits there.
func readFd(fd int, max int64, into []byte) (buf []byte, ok bool, err error) {
	var st syscall.Stat_t
	for {
		err = syscall.Fstat(fd, &st)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || (max >= 0 && st.Size > max) {
		return nil, false, nil
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
			return nil, true, err
		case n == 0:
			return buf, true, nil
		}
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, false, nil // grew past max: the slow path says so
		}
	}
}
