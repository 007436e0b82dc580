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
