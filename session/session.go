package session

import (
	"context"
	"errors"
	"log"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/errcode"
	"github.com/magicfrog/mf-lsp/engine/participant"
	"github.com/magicfrog/mf-lsp/engine/roam"
	"github.com/magicfrog/mf-lsp/engine/watch"
)

// Options configure a Session. The zero value is what production uses.
type Options struct {
	// Logf receives what the session has to say that is no one's answer (a
	// watcher that cannot start). Default: the standard logger.
	Logf func(format string, args ...any)
	// Now is the clock: `updated` timestamps and the local date. Default time.Now.
	Now func() time.Time
	// MaxDocumentBytes bounds one open document. Default DefaultMaxDocumentBytes.
	MaxDocumentBytes int
	// SyncState remembers the sync state between diagnostics (they read it on
	// every keystroke). Default: one of the session's own.
	SyncState *roam.StateCache
	// TokenCache keeps token counts across processes for every tree the
	// session loads (engine.Options.TokenCache); nil counts in this process.
	TokenCache *engine.TokenCache
	// BeforeLoad, when set, runs before each tree is loaded, on the goroutine
	// that loads it. Tests use it to hold a load and see that nobody waits on it.
	BeforeLoad func(engine.Options)
	// Loaded is called when a tree finished loading (the main tree or a lone
	// one), with the error that kept it from opening. Open documents in it can
	// now be answered for.
	Loaded func(m *engine.Memory, err error)
	// Changed is called when a loaded tree changed on disk (a watcher, a save).
	Changed func(m *engine.Memory)
	// KeepLoadedAfter is how long after a tree loaded the pass that keeps
	// its large notes' loaded versions in the local history starts
	// (engine.Memory.KeepLoaded; keepload.go). 0: DefaultKeepLoadedAfter;
	// negative: at once.
	KeepLoadedAfter time.Duration
	// KeptLoaded, when set, is told when that pass ended (done, stopped by
	// Shutdown, or failed).
	KeptLoaded func(m *engine.Memory, k engine.KeptLoaded, err error)
}

// ErrLoading is the answer for a note whose tree is still loading. Callers on a
// read loop answer at once (a partial answer, or an error the client retries);
// code beside the loop takes AwaitSnapshot, which waits for the tree.
var ErrLoading = newCoded(errcode.Loading, "memory is still loading; try again")

// ErrNotNote says a path is not a memory note of any tree: any other file an
// editor opened.
var ErrNotNote = newCoded(errcode.NotFound, "not a memory note")

// Session is one client's view of memory: the main tree the settings name,
// lone trees opened for files outside it, and the open documents. It is safe
// for concurrent use; it never waits for a load while holding its lock, and
// Snapshot never waits at all.
type Session struct {
	opts   Options
	maxDoc int

	mu       sync.Mutex
	settings Settings
	main     *tree
	lone     map[string]*tree     // by data dir + "\x00" + project
	docs     map[string]*docState // by URI
	byPath   map[string]*docState // the same states, by path
	tooLarge map[string]bool      // open in the client, ignored by us
	shutdown bool

	activity *activity // the front end's messages, which background work lets go first
}

// New makes a session with default settings and no tree; Load opens the tree.
func New(opts Options) *Session {
	if opts.Logf == nil {
		opts.Logf = log.Printf
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.SyncState == nil {
		opts.SyncState = roam.NewStateCache()
	}
	maxDoc := opts.MaxDocumentBytes
	if maxDoc <= 0 {
		maxDoc = DefaultMaxDocumentBytes
	}
	return &Session{opts: opts, maxDoc: maxDoc, settings: DefaultSettings(), main: newTree(""),
		lone: map[string]*tree{}, docs: map[string]*docState{}, byPath: map[string]*docState{}, tooLarge: map[string]bool{},
		activity: newActivity()}
}

// tree is one loaded memory tree, its watcher and its symbol index.
type tree struct {
	key   string
	ready chan struct{} // closed when the load finished
	// Set before ready is closed, never after.
	memory  *engine.Memory
	err     error
	watcher *watch.Watcher
	keep    keepPass // keepload.go
	warm    warmer   // warm.go

	index      symbolIndexCache
	links      linkIndexCache // links.go
	candidates candidateCache // completion.go
	searchers  searcherCache  // search.go
}

func newTree(key string) *tree { return &tree{key: key, ready: make(chan struct{})} }

func (t *tree) loaded() bool {
	select {
	case <-t.ready:
		return true
	default:
		return false
	}
}

func (t *tree) close() {
	<-t.ready
	if t.watcher != nil {
		t.watcher.Close()
	}
	t.keep.stop()
}

// SetSettings replaces the client settings; a tree loaded later uses them.
func (s *Session) SetSettings(st Settings) {
	s.mu.Lock()
	s.settings = st.Clone()
	s.mu.Unlock()
}

// Settings returns the client settings.
func (s *Session) Settings() Settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings.Clone()
}

// Now is the session's clock.
func (s *Session) Now() time.Time { return s.opts.Now() }

// Load opens the main tree the settings name and watches it. It runs once, on
// the caller's goroutine (never a read loop: it reads the whole tree); until it
// returns, Snapshot answers ErrLoading.
func (s *Session) Load() (*engine.Memory, error) {
	st := s.Settings()
	data, project := st.DataDir, st.ProjectDir
	root := project
	data, project = outOfMemory(data, project)
	if data == "" && project != "" && looksLikeDataDir(project) {
		// The workspace is the data directory itself.
		data, project = project, ""
	}
	if project != "" && looksLikeDataDir(project) && data == project {
		project = ""
	}
	s.load(s.main, engine.Options{DataDir: data, ProjectDir: project, Machine: st.Machine, Named: st.Named(), TokenCache: s.opts.TokenCache, BodiesOnDemand: true})
	if m := s.main.memory; m != nil && root != project {
		s.inferParticipant(m, root)
	}
	s.warmNavigation(s.main) // for the participant inferred
	return s.main.memory, s.main.err
}

// outOfMemory is the data directory and project of a workspace folder inside a
// memory tree (a client that roots the server at the opened note's folder, as
// Vim's yegappan/lsp does): a folder in <data>/memory/<dimension>/… is the data
// directory's, with no project, unless the settings name another data
// directory; one in <project>/.magicfrog/memory/… is that project's. A folder
// with its own .magicfrog is a project, wherever it is.
func outOfMemory(data, project string) (string, string) {
	if project == "" {
		return data, project
	}
	if _, err := os.Stat(filepath.Join(project, ".magicfrog")); err == nil {
		return data, project
	}
	d, p := discover(filepath.Join(project, "_"))
	switch {
	case p != "":
		return data, p
	case d != "" && looksLikeDataDir(d) && (data == "" || filepath.Clean(data) == d):
		return d, ""
	case filepath.Base(project) == "memory" && looksLikeDataDir(filepath.Dir(project)):
		if data == "" || filepath.Clean(data) == filepath.Dir(project) {
			return filepath.Dir(project), ""
		}
	}
	return data, project
}

// inferParticipant answers for the owner of the folder the workspace was
// rooted in, inside a memory tree, when nothing else says who: a folder under
// agent/<ID>/ is that agent's when no agent is set (settings, MAGICFROG_AGENT,
// the project's binding), one under the task root's <ID>/ that task's when no
// task is. Only a registered ID is taken: an unregistered folder is no one's
// (SPEC §2), and a layer or shared folder is every agent's.
func (s *Session) inferParticipant(m *engine.Memory, root string) {
	loc, ok := m.Locate(filepath.Join(root, "_.md"))
	if !ok || loc.Owner == "" || loc.Unregistered {
		return
	}
	st := s.Settings()
	bound := m.DefaultScope()
	switch loc.Dimension {
	case engine.Agent:
		if st.Participant != "" || len(st.Agents) > 0 || len(bound.Agents) > 0 || os.Getenv(participant.AgentEnv) != "" {
			return
		}
		st.Participant = loc.Owner
	case engine.Task:
		if st.Task != "" || bound.Task != "" {
			return
		}
		st.Task = loc.Owner
	default:
		return
	}
	s.opts.Logf("the workspace is %s, inside the memory tree: answering for %s %s", root, loc.Dimension, loc.Owner)
	s.SetSettings(st)
}

// load opens t, watching it from the load's own walk so that no change after
// this point is missed, and tells Options.Loaded.
func (s *Session) load(t *tree, opts engine.Options) {
	if s.opts.BeforeLoad != nil {
		s.opts.BeforeLoad(opts)
	}
	m, w, err := watch.Open(opts, func(m *engine.Memory, _ []string, changed bool) {
		if changed {
			s.changed(m)
			s.warmNavigation(t)
		}
	}, s.opts.Logf)
	t.memory, t.watcher, t.err = m, w, err
	close(t.ready)
	s.mu.Lock()
	dropped := s.shutdown || (t.key != "" && s.lone[t.key] != t)
	s.mu.Unlock()
	if dropped && w != nil {
		w.Close() // shut down, or dropped while it loaded
	}
	if s.opts.Loaded != nil && !dropped {
		s.opts.Loaded(m, err)
	}
	if m != nil && !dropped {
		s.keepLoaded(t, m)
	}
}

// await waits until Snapshot(path) no longer answers ErrLoading: the main tree
// and, for a file outside it, its lone tree are loaded. Never call it on a read
// loop.
func (s *Session) await(ctx context.Context, path string) error {
	for {
		t, err := s.treeFor(path)
		if err != nil && !errors.Is(err, ErrLoading) {
			return nil // Snapshot has its answer
		}
		if t == nil {
			t = s.main
		}
		select {
		case <-t.ready:
			if err == nil {
				return nil
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// treeFor is the tree path belongs to: the main tree, else a lone tree found
// from the file's own location (the nearest .magicfrog/memory project, or a
// <data>/memory/<dimension> layout), whose load it starts off the caller's
// goroutine. path "" is the main tree. ErrLoading (with the tree) while it loads.
// Loading reports whether the tree of path ("" is the main tree) is still
// loading, without building a snapshot: the question a read loop asks before
// it answers at once or moves a request beside itself.
func (s *Session) Loading(path string) bool {
	_, err := s.treeFor(path)
	return errors.Is(err, ErrLoading)
}

func (s *Session) treeFor(path string) (*tree, error) {
	main := s.main
	if !main.loaded() {
		return main, ErrLoading
	}
	if path == "" {
		if main.err != nil {
			return nil, main.err
		}
		return main, nil
	}
	m := main.memory
	if m != nil {
		if _, ok := m.Locate(path); ok {
			return main, nil
		}
	}
	data, project := discover(path)
	if data == "" && project == "" {
		return nil, ErrNotNote
	}
	if data == "" && m != nil {
		data = m.Paths.DataDir
	}
	if m != nil && data == m.Paths.DataDir && project == m.Paths.ProjectDir {
		return nil, ErrNotNote // the main tree again, which does not hold path
	}
	key := data + "\x00" + project
	s.mu.Lock()
	t, ok := s.lone[key]
	if !ok && !s.shutdown {
		t = newTree(key)
		s.lone[key] = t
		st := s.settings
		go func() {
			s.load(t, engine.Options{DataDir: data, ProjectDir: project, Machine: st.Machine, Named: st.Named(), TokenCache: s.opts.TokenCache, BodiesOnDemand: true})
			s.warmNavigation(t)
		}()
	}
	s.mu.Unlock()
	if t == nil {
		return nil, ErrNotNote
	}
	if !t.loaded() {
		return t, ErrLoading
	}
	if t.err != nil {
		return nil, ErrNotNote
	}
	if _, ok := t.memory.Locate(path); !ok {
		return nil, ErrNotNote
	}
	return t, nil
}

// treeOfLocked is the loaded tree holding path, without opening one.
func (s *Session) treeOfLocked(path string) *tree {
	if path == "" {
		return nil
	}
	for _, t := range s.treesLocked() {
		if t.loaded() && t.memory != nil {
			if _, ok := t.memory.Locate(path); ok {
				return t
			}
		}
	}
	return nil
}

// treesLocked is the main tree, then the lone ones.
func (s *Session) treesLocked() []*tree {
	out := []*tree{s.main}
	for _, t := range s.lone {
		out = append(out, t)
	}
	return out
}

// dropUnusedLoneLocked drops every loaded lone tree that holds no open
// document, with its watcher and symbol index; the caller closes them.
func (s *Session) dropUnusedLoneLocked() []*tree {
	var dropped []*tree
	for key, t := range s.lone {
		if !t.loaded() {
			continue
		}
		used := false
		if t.memory != nil {
			for path := range s.byPath {
				if _, ok := t.memory.Locate(path); ok {
					used = true
					break
				}
			}
		}
		if !used {
			delete(s.lone, key)
			dropped = append(dropped, t)
		}
	}
	return dropped
}

// Refresh re-reads changed paths (the client's file events) in the trees that
// hold them and tells Options.Changed for each tree that changed.
func (s *Session) Refresh(paths []string) {
	s.mu.Lock()
	byTree := map[*tree][]string{}
	for _, p := range paths {
		if t := s.treeOfLocked(p); t != nil {
			byTree[t] = append(byTree[t], p)
		}
	}
	s.mu.Unlock()
	for t, ps := range byTree {
		changed := false
		for _, p := range ps {
			if t.memory.Refresh(p) {
				changed = true
			}
		}
		if changed {
			s.changed(t.memory)
		}
	}
}

func (s *Session) changed(m *engine.Memory) {
	if s.opts.Changed != nil {
		s.opts.Changed(m)
	}
}

// Shutdown stops watching every tree. The session answers from what it has.
func (s *Session) Shutdown() {
	s.mu.Lock()
	s.shutdown = true
	trees := s.treesLocked()
	s.mu.Unlock()
	for _, t := range trees {
		if t.loaded() && t.watcher != nil {
			t.watcher.Close()
		}
		t.keep.stop()
	}
}

// discover finds the memory tree around a file: a project (an ancestor holding
// .magicfrog/memory that the file is under) or a data directory (an ancestor
// whose memory/<dimension>/ the file is under).
func discover(path string) (data, project string) {
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		base := filepath.Base(dir)
		if base == "memory" && filepath.Base(filepath.Dir(dir)) == ".magicfrog" {
			return "", filepath.Dir(filepath.Dir(dir))
		}
		switch base {
		case "account", "user", "agent", "device", "machine", "project":
			if parent := filepath.Dir(dir); filepath.Base(parent) == "memory" {
				return filepath.Dir(parent), ""
			}
		}
		if next := filepath.Dir(dir); next == dir {
			return "", ""
		}
	}
}

// looksLikeDataDir reports whether dir is a MagicFrog data directory.
func looksLikeDataDir(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, ".magicfrog")); err == nil {
		return false
	}
	for _, marker := range []string{"magicfrog.json", "machine-id", "memory/layers.json", "memory/account", "memory/user", "memory/agent", "memory/device"} {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(marker))); err == nil {
			return true
		}
	}
	return false
}
