package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/gofrs/flock"
	"github.com/magicfrog/mf-lsp/engine/safefs"
)

// LockDir is the folder inside a memory root that holds its lock file, with a
// .gitignore of "*" beside it: a memory root is often inside a git work tree
// (a project's .magicfrog/memory, a roaming data directory), and the lock must
// never show up in git status or be committed. Hidden names are never read as
// notes, imported or exported.
const LockDir = ".mf-lsp"

// LockFile is the advisory lock file's path inside a memory root.
var LockFile = filepath.Join(LockDir, "lock")

// ErrLockTimeout is returned (wrapped) when a root's lock could not be taken
// within the lock timeout.
var ErrLockTimeout = errors.New("store: timed out waiting for the write lock of memory root")

// lockTimeout bounds the wait for a root's lock; tests shorten it.
var lockTimeout = 10 * time.Second

// lockRetry is how often a contended file lock is retried.
const lockRetry = 2 * time.Millisecond

// procLocks holds one in-process mutex per lock file path: a buffered channel
// of capacity 1, so waiting for it can time out. flock(2) excludes two open
// files of one process on Linux, but fcntl-based locks (used by gofrs/flock on
// some systems) do not, so the process serializes its own goroutines first.
var procLocks sync.Map // string -> chan struct{}

func procLock(key string) chan struct{} {
	c, _ := procLocks.LoadOrStore(key, make(chan struct{}, 1))
	return c.(chan struct{})
}

// Lock takes the exclusive write lock of root: an advisory file lock on
// <root>/.mf-lsp/lock shared by every process using this package, plus a
// mutex shared by the goroutines of this one. Root is created if needed. It
// waits at most the lock timeout (10 s) and then fails with an error wrapping
// ErrLockTimeout. The returned unlock releases both; calling it again is a
// no-op.
func Lock(root string) (unlock func() error, err error) {
	unlock, _, err = lockRoot(root)
	return unlock, err
}

// lockRoot is Lock, which also returns root as it found it: absolute, its
// symbolic links resolved (the store's writes resolve their note below it,
// resolve, without resolving the root a second time).
func lockRoot(root string) (unlock func() error, real string, err error) {
	if root == "" {
		return nil, "", errors.New("store: empty memory root")
	}
	if err := checkRoot(root); err != nil {
		return nil, "", err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, "", fmt.Errorf("store: create memory root: %w", err)
	}
	real, err = filepath.EvalSymlinks(root)
	if err != nil {
		return nil, "", fmt.Errorf("store: resolve memory root: %w", err)
	}
	real, err = filepath.Abs(real)
	if err != nil {
		return nil, "", fmt.Errorf("store: resolve memory root: %w", err)
	}
	path, err := lockPath(real)
	if err != nil {
		return nil, "", err
	}

	// The timeout's timer is made only when the lock is contended: made on
	// every write, it woke an idle thread of the runtime to look at it (a
	// new earliest timer), two context switches for a lock that was free.
	var ctx context.Context
	cancel := context.CancelFunc(func() {})
	defer func() { cancel() }()
	waiting := func() context.Context {
		if ctx == nil {
			ctx, cancel = context.WithTimeout(context.Background(), lockTimeout)
		}
		return ctx
	}

	mu := procLock(path)
	select {
	case mu <- struct{}{}:
	default:
		select {
		case mu <- struct{}{}:
		case <-waiting().Done():
			return nil, "", fmt.Errorf("%w %s (waited %v; another goroutine of this process holds it)", ErrLockTimeout, root, lockTimeout)
		}
	}
	fl := NewFlock(path, 0o644)
	ok, err := fl.TryLock()
	if !ok && err == nil {
		ok, err = fl.TryLockContext(waiting(), lockRetry)
	}
	if !ok || err != nil {
		<-mu
		_ = fl.Close()
		if err == nil || errors.Is(err, context.DeadlineExceeded) {
			return nil, "", fmt.Errorf("%w %s (waited %v; another process holds %s)", ErrLockTimeout, root, lockTimeout, path)
		}
		return nil, "", fmt.Errorf("store: lock %s: %w", path, err)
	}
	var once sync.Once
	return func() error {
		var err error
		once.Do(func() {
			err = fl.Unlock()
			if cerr := fl.Close(); err == nil {
				err = cerr
			}
			<-mu
		})
		return err
	}, real, nil
}

// lockPath makes <root>/.mf-lsp/ with its .gitignore and returns the lock
// file's path. A link where the folder or the lock file should be is refused:
// opening the lock creates its file, which must not happen outside the tree.
func lockPath(root string) (string, error) {
	dir := filepath.Join(root, LockDir)
	fi, err := os.Lstat(dir) // there but for a root's first write: no mkdir to fail
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("store: create lock folder: %w", err)
		}
		fi, err = os.Lstat(dir)
	}
	if err != nil {
		return "", fmt.Errorf("store: lock folder: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("store: %s is %s; it must be the store's own folder (remove it)", dir, kindOf(fi.Mode()))
	}
	ignore := filepath.Join(dir, ".gitignore")
	if f, err := os.OpenFile(ignore, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); err == nil {
		_, _ = f.WriteString("# mf-lsp's write lock: never committed.\n*\n")
		f.Close()
	}
	path := filepath.Join(dir, "lock")
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return "", fmt.Errorf("store: %s is %s; it must be the store's lock file (remove it)", path, kindOf(fi.Mode()))
	}
	return path, nil
}

// NewFlock is the advisory lock on path, its file made with perm when
// missing: opened as gofrs/flock opens it (read-only; read-write where a
// write lock needs it), and non-blocking, which saves four fcntl calls per
// lock taken (safefs.OpenIn says why).
func NewFlock(path string, perm fs.FileMode) *flock.Flock {
	flag := os.O_CREATE | os.O_RDONLY
	switch runtime.GOOS {
	case "aix", "solaris", "illumos":
		flag = os.O_CREATE | os.O_RDWR
	}
	return flock.New(path, flock.SetFlag(flag|safefs.ONonblock), flock.SetPermissions(perm))
}

// RemoveLock removes root's lock folder when nothing holds it: for a tree
// that is not a memory root (an export) and must not carry it.
func RemoveLock(root string) {
	dir := filepath.Join(root, LockDir)
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return
	}
	os.Remove(filepath.Join(dir, "lock"))
	os.Remove(filepath.Join(dir, ".gitignore"))
	os.Remove(dir) // fails, and keeps it, when anything else is inside
}
