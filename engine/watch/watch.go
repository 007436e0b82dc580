// Package watch keeps a loaded memory tree in step with the disk: it watches
// every folder the tree reads (fsnotify is not recursive, so each one, and new
// ones as they appear), gathers a burst of events into one batch, refreshes
// the tree with it and hands the changed paths on. Other processes' writes
// (an editor, the command line, another agent's server) reach a long-lived
// reader this way.
package watch

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/magicfrog/mf-lsp/engine"
)

// Debounce gathers a burst of events (an atomic write is a create and a
// rename) into one refresh.
const Debounce = 15 * time.Millisecond

// Watcher watches one memory tree.
type Watcher struct {
	m        *engine.Memory
	fw       *fsnotify.Watcher
	onChange func(paths []string, changed bool)
	logf     func(format string, args ...any)

	deliver    sync.Mutex // one batch at a time, in order
	refreshing sync.Mutex // held while a batch refreshes the tree; Close waits for it

	mu      sync.Mutex
	pending map[string]bool
	timer   *time.Timer
	closed  bool
}

// Start watches m's data directory (its configuration files and memory/) and
// the project's .magicfrog/. After each batch of events it refreshes m and
// calls onChange with the paths of the batch, sorted, and whether the tree
// changed (Memory.Refresh). A note whose text, read on demand, is found
// changed (engine.Memory.SetOnStale) is queued as an event of its own, for a
// change no event told of.
// logf receives errors that do not stop watching.
func Start(m *engine.Memory, onChange func(paths []string, changed bool), logf func(string, ...any)) (*Watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	if logf == nil {
		logf = func(string, ...any) {}
	}
	w := &Watcher{m: m, fw: fw, onChange: onChange, logf: logf, pending: map[string]bool{}}
	m.SetOnStale(w.queue) // a note found changed on a read is an event
	if _, err := os.Stat(m.Paths.DataDir); err == nil {
		w.add(m.Paths.DataDir, false)
		w.add(m.Paths.MemoryDir(), true)
	}
	if m.Paths.ProjectDir != "" {
		w.add(filepath.Join(m.Paths.ProjectDir, ".magicfrog"), true)
	}
	go w.loop()
	return w, nil
}

// Open loads a tree (engine.Open) and watches it from the load's own walk:
// the engine reports each folder as it lists it (engine.Options.OnDir) and a
// goroutine beside the load adds it to the watcher, so the tree is not walked
// a second time for the watcher. That second walk cost a language server's
// first answer more than the load itself (10,000 notes: 280 ms of CPU against
// 170 ms; see engine/internal/coldbench), and adding the watches on the
// load's own goroutine cost it 58 ms more at 10,000 notes (13,700 folders,
// about 4 µs an add). The load waits for the goroutine before it reads a
// batch of notes (engine.Options.AwaitDirs): a note written after the load
// read it and before its folder was watched was a change no event told of,
// and the tree kept the old revision until the next write (Neovim's
// 10_conflict found its buffer never flagged stale on a loaded CI machine).
// Every folder is watched before Open returns, so no change after the load
// is missed. onChange is Start's, with the loaded tree. A watcher that
// cannot be made is logged; the tree is still returned (with a nil
// *Watcher).
func Open(opts engine.Options, onChange func(m *engine.Memory, paths []string, changed bool), logf func(string, ...any)) (*engine.Memory, *Watcher, error) {
	return open(opts, onChange, logf, nil)
}

// open is Open; beforeAdd, set by tests, is called by the goroutine beside
// the load just before it watches a folder the load reported.
func open(opts engine.Options, onChange func(m *engine.Memory, paths []string, changed bool), logf func(string, ...any), beforeAdd func(dir string)) (*engine.Memory, *Watcher, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		logf("watch: %v (external changes will not be seen)", err)
		m, err := engine.Open(opts)
		return m, nil, err
	}
	w := &Watcher{fw: fw, logf: logf, pending: map[string]bool{}}
	var (
		mu      sync.Mutex
		dirs    = make(chan string, 1024) // nil once loaded: add inline
		drained = make(chan struct{})
		added   = newCounter() // folders watched, of those told
	)
	// The channel is passed, not read from the variable: the variable is nil
	// once the load is over, and a goroutine scheduled only after a quick load
	// would range over nil forever (and the load would never return).
	go func(dirs <-chan string) {
		for d := range dirs {
			if beforeAdd != nil {
				beforeAdd(d)
			}
			w.addOne(d)
			added.done()
		}
		close(drained)
	}(dirs)
	opts.OnDir = func(dir string) { // later reloads and refreshes call it too
		mu.Lock()
		defer mu.Unlock()
		added.tell()
		if dirs != nil {
			dirs <- dir
			return
		}
		w.addOne(dir)
		added.done()
	}
	opts.AwaitDirs = added.wait
	m, err := engine.Open(opts)
	mu.Lock()
	close(dirs)
	dirs = nil
	mu.Unlock()
	<-drained
	if err != nil {
		fw.Close()
		return nil, nil, err
	}
	// The folders around the roots: configuration files, and roots made later.
	if _, err := os.Stat(m.Paths.DataDir); err == nil {
		w.addOne(m.Paths.DataDir)
		w.addOne(m.Paths.MemoryDir())
	}
	if m.Paths.ProjectDir != "" {
		w.addOne(filepath.Join(m.Paths.ProjectDir, ".magicfrog"))
	}
	w.m = m
	m.SetOnStale(w.queue) // a note found changed on a read is an event
	if onChange != nil {
		w.onChange = func(paths []string, changed bool) { onChange(m, paths, changed) }
	}
	go w.loop()
	return m, w, nil
}

// counter counts the folders told to the watcher and those it has watched;
// wait returns once every folder told so far is watched.
type counter struct {
	mu          sync.Mutex
	cond        sync.Cond
	told, added int64
}

func newCounter() *counter {
	c := &counter{}
	c.cond.L = &c.mu
	return c
}

func (c *counter) tell() {
	c.mu.Lock()
	c.told++
	c.mu.Unlock()
}

func (c *counter) done() {
	c.mu.Lock()
	c.added++
	c.cond.Broadcast()
	c.mu.Unlock()
}

func (c *counter) wait() {
	c.mu.Lock()
	for target := c.told; c.added < target; {
		c.cond.Wait()
	}
	c.mu.Unlock()
}

// addOne watches one folder.
func (w *Watcher) addOne(dir string) {
	if err := w.fw.Add(dir); err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fsnotify.ErrClosed) {
		w.logf("watch %s: %v", dir, err)
	}
}

// Close stops watching. A batch that is refreshing the tree finishes first,
// so nothing the watcher started (the history a refresh records, say) writes
// after Close returns: a caller may remove the tree then. The callback
// (onChange) is not waited for, so Close may be called from it.
func (w *Watcher) Close() error {
	w.mu.Lock()
	w.closed = true
	if w.timer != nil {
		w.timer.Stop()
	}
	w.mu.Unlock()
	err := w.fw.Close()
	w.refreshing.Lock()
	w.refreshing.Unlock() //nolint:staticcheck // waiting for a refresh in flight
	return err
}

// add watches dir, and with recursive every folder below it.
func (w *Watcher) add(dir string, recursive bool) {
	if !recursive {
		_ = w.fw.Add(dir)
		return
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			return fs.SkipDir
		}
		if err := w.fw.Add(p); err != nil {
			w.logf("watch %s: %v", p, err)
		}
		return nil
	})
}

func (w *Watcher) loop() {
	for {
		select {
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			if strings.HasPrefix(filepath.Base(ev.Name), ".") {
				continue // the store's lock and temporary files
			}
			if ev.Has(fsnotify.Create) {
				if info, err := os.Stat(ev.Name); err == nil && info.IsDir() {
					w.add(ev.Name, true)
				}
			}
			w.queue(ev.Name)
		case err, ok := <-w.fw.Errors:
			if !ok {
				return
			}
			w.logf("watch: %v", err)
		}
	}
}

// refresh applies a batch to the tree, unless the watcher is closed (checked
// under refreshing, which Close waits for).
func (w *Watcher) refresh(paths []string) (changed, closed bool) {
	w.refreshing.Lock()
	defer w.refreshing.Unlock()
	w.mu.Lock()
	closed = w.closed
	w.mu.Unlock()
	if closed {
		return false, true
	}
	for _, p := range paths {
		if w.m.Refresh(p) {
			changed = true
		}
	}
	return changed, false
}

func (w *Watcher) queue(path string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	w.pending[path] = true
	if w.timer == nil {
		w.timer = time.AfterFunc(Debounce, w.flush)
	}
}

func (w *Watcher) flush() {
	w.deliver.Lock()
	defer w.deliver.Unlock()
	w.mu.Lock()
	paths := make([]string, 0, len(w.pending))
	for p := range w.pending {
		paths = append(paths, p)
	}
	w.pending = map[string]bool{}
	w.timer = nil
	w.mu.Unlock()
	sort.Strings(paths)
	changed, closed := w.refresh(paths)
	if closed {
		return
	}
	if w.onChange != nil {
		w.onChange(paths, changed)
	}
}
