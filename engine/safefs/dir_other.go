//go:build !linux

package safefs

import (
	"io/fs"
	"os"
)

// dir is an os.Root of the folder where openat is not at hand: its entries
// are opened through it (one element each, so one resolution step).
type dir struct{ r *os.Root }

func openDirIn(root *os.Root, name string) (dir, error) {
	r, err := root.OpenRoot(name)
	return dir{r}, err
}

func (d dir) openDir(name string) (dir, error) {
	if err := d.refuseLink(name); err != nil {
		return dir{}, err
	}
	r, err := d.r.OpenRoot(name)
	return dir{r}, err
}

func (d dir) openFile(name string) (*os.File, error) {
	if err := d.refuseLink(name); err != nil {
		return nil, err
	}
	return d.r.OpenFile(name, os.O_RDONLY|ONonblock, 0)
}

// refuseLink fails with ErrLink when name is a symbolic link; one swapped in
// after this check is still followed only inside the folder.
func (d dir) refuseLink(name string) error {
	if fi, err := d.r.Lstat(name); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return &fs.PathError{Op: "open", Path: name, Err: ErrLink}
	}
	return nil
}

func (d dir) readDir() ([]fs.DirEntry, error) { return fs.ReadDir(d.r.FS(), ".") }

func (d dir) close() error { return d.r.Close() }

// readFile answers no Stamp: without the descriptor's own fstat at hand,
// a caller reads every file as changed.
func (d dir) readFile(name string, max int64, _ []byte, _ bool) ([]byte, Stamp, error) {
	b, err := d.readFileSlow(name, max)
	return b, Stamp{}, err
}
