package safefs

import (
	"io"
	"io/fs"
	"os"
)

// OpenIn opens name in r as r.OpenFile does, non-blocking (ONonblock). On a
// regular file or a folder that changes nothing but what the os package does
// after the open: a descriptor opened blocking is put in non-blocking mode to
// be offered to the poller, which refuses regular files, and is put back —
// four fcntl calls for every file, and an append opened about fifteen. On a
// FIFO planted where a file of ours should be, the open does not wait for a
// writer.
func OpenIn(r *os.Root, name string, flag int, perm fs.FileMode) (*os.File, error) {
	return r.OpenFile(name, flag|ONonblock, perm)
}

// ReadFileIn is r.ReadFile through OpenIn.
func ReadFileIn(r *os.Root, name string) ([]byte, error) {
	f, err := OpenIn(r, name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var size int64
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	b := make([]byte, 0, size+1) // one read to the end, as os.ReadFile sizes it
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}
