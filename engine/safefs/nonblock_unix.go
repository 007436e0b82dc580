//go:build unix

package safefs

import "syscall"

// ONonblock makes opening a FIFO for reading return at once instead of waiting
// for a writer; on regular files it changes nothing.
const ONonblock = syscall.O_NONBLOCK

// oNofollow makes opening a symbolic link fail instead of following it.
const oNofollow = syscall.O_NOFOLLOW
