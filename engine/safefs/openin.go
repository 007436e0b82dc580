package safefs

import (
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
