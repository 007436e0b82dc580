package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gofrs/flock"
)

// LockFile is the name of the advisory lock file inside a memory root.
const LockFile = ".mf-lsp.lock"

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
// <root>/.mf-lsp.lock shared by every process using this package, plus a
// mutex shared by the goroutines of this one. Root is created if needed. It
// waits at most the lock timeout (10 s) and then fails with an error wrapping
// ErrLockTimeout. The returned unlock releases both; calling it again is a
// no-op.
func Lock(root string) (unlock func() error, err error) {
	if root == "" {
		return nil, errors.New("store: empty memory root")
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("store: create memory root: %w", err)
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("store: resolve memory root: %w", err)
	}
	real, err = filepath.Abs(real)
	if err != nil {
		return nil, fmt.Errorf("store: resolve memory root: %w", err)
	}
	path := filepath.Join(real, LockFile)

	ctx, cancel := context.WithTimeout(context.Background(), lockTimeout)
	defer cancel()

	mu := procLock(path)
	select {
	case mu <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("%w %s (waited %v; another goroutine of this process holds it)", ErrLockTimeout, root, lockTimeout)
	}
	fl := flock.New(path, flock.SetPermissions(0o644))
	ok, err := fl.TryLockContext(ctx, lockRetry)
	if !ok || err != nil {
		<-mu
		_ = fl.Close()
		if err == nil || errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("%w %s (waited %v; another process holds %s)", ErrLockTimeout, root, lockTimeout, path)
		}
		return nil, fmt.Errorf("store: lock %s: %w", path, err)
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
	}, nil
}
