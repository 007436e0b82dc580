package store

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/magicfrog/mf-lsp/engine/safefs"
)

// tempMarker sits between the note's name and the random suffix of a
// temporary file: ".<name>.tmp-<random>".
const tempMarker = ".tmp-"

// tempMaxAge is the age after which a leftover temporary file is removed.
var tempMaxAge = time.Minute

// hook calls the write's crash hook (see update), if it has one.
func (t *target) hook(point string) {
	if t.crash != nil {
		t.crash(point)
	}
}

// Update replaces the note at path (absolute, or relative to root) with what
// fn returns, if the disk holds what expect says.
//
// Under root's lock it reads the note, checks it against expect (a
// *StaleError, and nothing written, on any difference), calls fn with the
// current bytes (nil, false when the note does not exist), creates missing
// parent directories and atomically replaces the note: the new bytes go to
// ".<name>.tmp-<random>" in the same directory (a name note loaders ignore),
// which is fsynced and renamed over the note; then the directory is fsynced.
// An error from fn is returned as is and nothing is written. Update returns
// the bytes written.
func Update(root, path string, expect Expect, fn func(current []byte, exists bool) ([]byte, error)) ([]byte, error) {
	return update(root, path, &expect, fn, nil)
}

// update is Update, and with a nil expect UpdateConfig: no revision check,
// and nil bytes from fn leave the file as it is.
//
// crash, when set (by this package's tests), is called at each step of the
// atomic write: "after-write", "after-sync", "after-rename".
func update(root, path string, expect *Expect, fn func(current []byte, exists bool) ([]byte, error), crash func(point string)) ([]byte, error) {
	unlock, real, err := lockRoot(root)
	if err != nil {
		return nil, err
	}
	defer unlock() // an unlock error cannot undo the write; closing the file releases the lock anyway
	t, err := resolve(root, real, path)
	if err != nil {
		return nil, err
	}
	if err := t.open(); err != nil {
		return nil, err
	}
	defer t.close()
	current, mode, exists, err := t.read()
	if err != nil {
		return nil, err
	}
	if expect != nil {
		if err := check(t.display, *expect, exists, current); err != nil {
			return nil, err
		}
	}
	t.crash = crash
	next, err := fn(current, exists)
	if err != nil {
		return nil, err
	}
	if expect == nil && next == nil {
		return nil, nil
	}
	if expect != nil && isNoteFile(t.display) {
		// What a note may be is checked here, in the one path every note
		// write takes: no writer puts down a file the loader would refuse.
		if err := notANote(t.display, next); err != nil {
			return nil, err
		}
	}
	if err := t.mkdirs(); err != nil {
		return nil, err
	}
	if !exists {
		mode = 0o644
	}
	if err := writeAtomic(t, next, mode); err != nil {
		return nil, err
	}
	return next, nil
}

// Write replaces the note at path with content if the disk holds what expect
// says; see Update.
func Write(root, path string, content []byte, expect Expect) error {
	_, err := Update(root, path, expect, func([]byte, bool) ([]byte, error) { return content, nil })
	return err
}

// Remove deletes the note at path if the disk holds what expect says (a
// *StaleError otherwise), then removes the parent directories this left
// empty, up to but not including root. A note that does not exist while
// expect says it should not is nothing to do.
func Remove(root, path string, expect Expect) error {
	unlock, real, err := lockRoot(root)
	if err != nil {
		return err
	}
	defer unlock()
	t, err := resolve(root, real, path)
	if err != nil {
		return err
	}
	if err := t.open(); err != nil {
		return err
	}
	defer t.close()
	current, _, exists, err := t.read()
	if err != nil {
		return err
	}
	if err := check(t.display, expect, exists, current); err != nil {
		return err
	}
	if !exists {
		return nil
	}
	t.cleanTemps(t.dir)
	if err := t.folder.Remove(t.base); err != nil { // read opened the folder
		return fmt.Errorf("store: %w", err)
	}
	if err := t.syncDir(t.dir); err != nil {
		return err
	}
	// Prune now-empty parents, deepest first, stopping at the first that is
	// not empty (or is a symbolic link, or is root).
	for d := filepath.Dir(t.rel); d != "."; d = filepath.Dir(d) {
		p := filepath.Join(t.rootReal, d)
		fi, err := t.root.Lstat(d)
		if err != nil || !fi.IsDir() {
			break
		}
		t.cleanTemps(p)
		if t.root.Remove(d) != nil {
			break
		}
		_ = t.syncDir(filepath.Dir(p)) // the note is gone already; an empty folder surviving a crash loses nothing
	}
	return nil
}

// writeAtomic writes data over t's file through a temporary file in the same
// directory.
func writeAtomic(t *target, data []byte, mode fs.FileMode) (err error) {
	if err := t.openFolder(); err != nil { // its parents exist now (mkdirs)
		return err
	}
	dir := t.dir
	t.cleanTemps(dir)
	f, tmp, err := t.createTemp()
	if err != nil {
		return fmt.Errorf("store: create temporary file: %w", err)
	}
	renamed := false
	defer func() {
		if !renamed {
			f.Close()
			t.folder.Remove(tmp)
		}
	}()
	if runtime.GOOS != "windows" {
		if err := f.Chmod(mode); err != nil {
			return fmt.Errorf("store: %w", err)
		}
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("store: write temporary file: %w", err)
	}
	t.hook("after-write")
	if err := f.Sync(); err != nil {
		return fmt.Errorf("store: fsync temporary file: %w", err)
	}
	t.hook("after-sync")
	if err := f.Close(); err != nil {
		return fmt.Errorf("store: close temporary file: %w", err)
	}
	if err := t.folder.Rename(tmp, t.base); err != nil {
		return fmt.Errorf("store: replace %s: %w", t.display, err)
	}
	renamed = true
	t.hook("after-rename")
	return t.syncDir(dir)
}

// createTemp creates ".<name>.tmp-<random>" in the note's opened folder and
// returns it with its name there.
func (t *target) createTemp() (*os.File, string, error) {
	for range 10 {
		// Unique, not secret (O_EXCL refuses a name taken): the runtime's
		// generator. crypto/rand's Read set a timer each call (to warn of a
		// blocked getrandom), which woke an idle thread of the runtime.
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], rand.Uint64())
		name := "." + t.base + tempMarker + hex.EncodeToString(b[:6])
		f, err := safefs.OpenIn(t.folder, name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", errors.New("no unused temporary name")
}

// syncDir fsyncs a directory (inside the root) so that entries created,
// renamed or removed in it are durable. Windows cannot open a directory for
// syncing; NTFS journals renames, so there it is skipped.
func (t *target) syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	r, rel := t.at(dir)
	d, err := safefs.OpenIn(r, rel, os.O_RDONLY, 0)
	if err != nil {
		return fmt.Errorf("store: open directory for fsync: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("store: fsync directory %s: %w", dir, err)
	}
	return nil
}

// cleanTemps removes temporary files in dir older than tempMaxAge: left by a
// writer that crashed between creating and renaming them. Younger ones may
// belong to a writer still at work (under another root's lock) and are kept.
// It is best effort: a leftover file is invisible to readers either way.
//
// A folder is swept at most once per tempMaxAge per process: listing a folder
// on every write made a run of rollups into one growing folder quadratic.
func (t *target) cleanTemps(dir string) {
	if !sweepDue(dir) {
		return
	}
	r, rel := t.at(dir)
	d, err := safefs.OpenIn(r, rel, os.O_RDONLY, 0)
	if err != nil {
		return
	}
	// Names only: a folder opened in an os.Root lists its entries with an
	// lstat each (os.ReadDir's), and a journal's folder holds a note a day.
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return
	}
	cutoff := time.Now().Add(-tempMaxAge)
	for _, name := range names {
		if !isTemp(name) {
			continue
		}
		p := filepath.Join(rel, name)
		if fi, err := r.Lstat(p); err == nil && fi.Mode().IsRegular() && fi.ModTime().Before(cutoff) {
			r.Remove(p)
		}
	}
}

// swept remembers when each folder was last swept for leftover temporary files.
var swept = struct {
	sync.Mutex
	at map[string]time.Time
}{at: map[string]time.Time{}}

// isTemp reports whether name is one of the store's temporary files.
func isTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, tempMarker)
}

// sweepDue reports whether dir is due for a sweep, and marks it swept.
func sweepDue(dir string) bool {
	now := time.Now()
	swept.Lock()
	defer swept.Unlock()
	if last, seen := swept.at[dir]; seen && now.Sub(last) < tempMaxAge {
		return false
	}
	swept.at[dir] = now
	return true
}
