package lsp

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/engine"
)

// The server watches memory itself: the data directory is usually outside the
// workspace, so the client's file watching (workspace/didChangeWatchedFiles,
// also handled) would not see an agent's writes there. fsnotify is not recursive,
// so every folder is watched, and new folders as they appear.

// watchDebounce gathers a burst of events (an atomic write is a create and a
// rename) into one refresh.
const watchDebounce = 15 * time.Millisecond

type watcher struct {
	s  *Server
	m  *engine.Memory
	fw *fsnotify.Watcher

	mu      sync.Mutex
	pending map[string]bool
	timer   *time.Timer
}

// startWatching watches everything m reads: the data directory (its config files
// and memory/) and the project's .magicfrog/.
func (s *Server) startWatching(m *engine.Memory) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		s.log.Printf("watch: %v (external changes will only be seen through the client)", err)
		return
	}
	w := &watcher{s: s, m: m, fw: fw, pending: map[string]bool{}}
	if _, err := os.Stat(m.Paths.DataDir); err == nil {
		w.add(m.Paths.DataDir, false)
		w.add(m.Paths.MemoryDir(), true)
	}
	if m.Paths.ProjectDir != "" {
		w.add(filepath.Join(m.Paths.ProjectDir, ".magicfrog"), true)
	}
	s.ws.mu.Lock()
	s.ws.watchers = append(s.ws.watchers, w)
	s.ws.mu.Unlock()
	go w.loop()
}

// openWatched opens a tree and watches it from the load's own walk: the engine
// reports each folder as it lists it (engine.Options.OnDir) and a goroutine
// beside the load adds it to the watcher. Walking the tree a second time for
// the watcher cost the server's first answer more than the load itself (10,000
// notes: 280 ms of CPU against 170 ms; see engine/internal/coldbench). Every
// folder is watched before the load returns.
func (s *Server) openWatched(opts engine.Options) (*engine.Memory, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		s.log.Printf("watch: %v (external changes will only be seen through the client)", err)
		return engine.Open(opts)
	}
	w := &watcher{s: s, fw: fw, pending: map[string]bool{}}
	var (
		mu      sync.Mutex
		dirs    = make(chan string, 1024) // nil once loaded: add inline
		drained = make(chan struct{})
	)
	// The channel is passed, not read from the variable: the variable is nil
	// once the load is over, and a goroutine scheduled only after a quick load
	// would range over nil forever (the load would then never return).
	go func(dirs <-chan string) {
		for d := range dirs {
			w.addOne(d)
		}
		close(drained)
	}(dirs)
	opts.OnDir = func(dir string) { // later reloads and refreshes call it too
		mu.Lock()
		defer mu.Unlock()
		if dirs != nil {
			dirs <- dir
			return
		}
		w.addOne(dir)
	}
	m, err := engine.Open(opts)
	mu.Lock()
	close(dirs)
	dirs = nil
	mu.Unlock()
	<-drained
	if err != nil {
		fw.Close()
		return nil, err
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
	s.ws.mu.Lock()
	s.ws.watchers = append(s.ws.watchers, w)
	s.ws.mu.Unlock()
	go w.loop()
	return m, nil
}

// addOne watches one folder.
func (w *watcher) addOne(dir string) {
	if err := w.fw.Add(dir); err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fsnotify.ErrClosed) {
		w.s.log.Printf("watch %s: %v", dir, err)
	}
}

// add watches dir, and with recursive every folder below it.
func (w *watcher) add(dir string, recursive bool) {
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
			w.s.log.Printf("watch %s: %v", p, err)
		}
		return nil
	})
}

func (w *watcher) loop() {
	for {
		select {
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			if strings.HasPrefix(filepath.Base(ev.Name), ".") {
				continue // our own lock and temporary files
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
			w.s.log.Printf("watch: %v", err)
		}
	}
}

func (w *watcher) queue(path string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending[path] = true
	if w.timer == nil {
		w.timer = time.AfterFunc(watchDebounce, w.flush)
	}
}

func (w *watcher) flush() {
	w.mu.Lock()
	paths := w.pending
	w.pending = map[string]bool{}
	w.timer = nil
	w.mu.Unlock()
	w.s.refresh(w.m, paths)
}

// refresh re-reads changed paths and, when the tree changed, tells the client.
func (s *Server) refresh(m *engine.Memory, paths map[string]bool) {
	changed := false
	for p := range paths {
		if m.Refresh(p) {
			changed = true
		}
	}
	if changed {
		s.memoryChanged(m)
	}
}

// didChangeWatchedFiles takes the client's file events: the same refresh.
func (s *Server) didChangeWatchedFiles(_ *glsp.Context, p *protocol.DidChangeWatchedFilesParams) error {
	byMemory := map[*engine.Memory]map[string]bool{}
	for _, c := range p.Changes {
		path, err := URIToPath(c.URI)
		if err != nil {
			continue
		}
		m, ok := s.memoryFor(path)
		if !ok {
			continue
		}
		if byMemory[m] == nil {
			byMemory[m] = map[string]bool{}
		}
		byMemory[m][path] = true
	}
	for m, paths := range byMemory {
		s.refresh(m, paths)
	}
	return nil
}

// stopWatching closes the watchers (at shutdown).
func (s *Server) stopWatching() {
	s.ws.mu.Lock()
	ws := s.ws.watchers
	s.ws.watchers = nil
	s.ws.mu.Unlock()
	for _, w := range ws {
		w.fw.Close()
	}
}
