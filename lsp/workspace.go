package lsp

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/journal"
	"github.com/magicfrog/mf-lsp/engine/safefs"
	"github.com/magicfrog/mf-lsp/engine/store"
	"github.com/magicfrog/mf-lsp/engine/watch"
)

// workspace is the engine's side of a session: the memory tree the settings name,
// trees opened for lone files outside it, and what each open buffer was based on.
type workspace struct {
	loaded chan struct{} // closed when main is loaded
	main   *engine.Memory
	err    error // why main could not be opened

	mu            sync.Mutex
	lone          map[string]*engine.Memory             // by data dir + "\x00" + project
	bases         map[protocol.DocumentUri]engineBase   // what each buffer was based on
	parsed        map[protocol.DocumentUri]parsedBuffer // the last parse of each open buffer
	changePending bool                                  // the memoryChanged goroutine is running
	changeDirty   bool                                  // memory changed since it last rendered
	watchers      []*watch.Watcher
}

// engineBase is the disk version a buffer was loaded from or last saved as.
type engineBase struct {
	Revision int
	Hash     string // "" when the buffer never matched the disk
	Text     []byte // the disk's bytes when Hash is set: a merge's common ancestor
}

func newWorkspace() *workspace {
	return &workspace{loaded: make(chan struct{}), lone: map[string]*engine.Memory{}, bases: map[protocol.DocumentUri]engineBase{},
		parsed: map[protocol.DocumentUri]parsedBuffer{}}
}

// loadMemory opens the session's memory tree. It runs once, beside the read loop,
// after initialized, reporting $/progress; requests that need memory wait for it.
func (s *Server) loadMemory() {
	st := s.Settings()
	data, project := st.DataDir, st.ProjectDir
	if data == "" && project != "" && looksLikeDataDir(project) {
		// The workspace is the data directory itself.
		data, project = project, ""
	}
	if project != "" && looksLikeDataDir(project) && data == project {
		project = ""
	}
	p := s.BeginProgress(nil, "mf-lsp: indexing memory", false)
	start := time.Now()
	// Watched from the load's own walk, before anyone can ask, so that no
	// change after this point is missed.
	m, err := s.openWatched(engine.Options{DataDir: data, ProjectDir: project, Machine: st.Machine, Named: st.named()})
	s.ws.main, s.ws.err = m, err
	close(s.ws.loaded)
	if err != nil {
		p.End("failed")
		s.ShowMessage(protocol.MessageTypeError, "mf-lsp: cannot open memory: %v", err)
		return
	}
	p.End("indexed " + itoa(m.Len()) + " notes in " + time.Since(start).Round(time.Millisecond).String())
	s.log.Printf("indexed %d notes in %s (data %s, project %q)", m.Len(), time.Since(start).Round(time.Millisecond), m.Paths.DataDir, m.Paths.ProjectDir)
}

// Memory returns the session's memory tree, waiting for the first load.
func (s *Server) Memory() (*engine.Memory, error) {
	select {
	case <-s.ws.loaded:
	case <-time.After(2 * time.Minute):
		return nil, errNotLoaded
	}
	return s.ws.main, s.ws.err
}

// memoryFor returns the tree a file belongs to: the session's, or for a memory
// file outside it (a lone file, another project) a tree found from the file's own
// location: the nearest .magicfrog/memory project, or a <data>/memory/<dimension>
// layout. ok is false for files that are not memory notes at all.
func (s *Server) memoryFor(path string) (*engine.Memory, bool) {
	m, err := s.Memory()
	if err == nil {
		if _, ok := m.Locate(path); ok {
			return m, true
		}
	}
	data, project := discover(path)
	if data == "" && project == "" {
		return nil, false
	}
	if data == "" && m != nil {
		data = m.Paths.DataDir
	}
	key := data + "\x00" + project
	s.ws.mu.Lock()
	lm, ok := s.ws.lone[key]
	s.ws.mu.Unlock()
	if ok {
		return lm, true
	}
	// Opened without the lock held: loading reads the disk, and startWatching
	// takes the lock itself.
	lm, err = engine.Open(engine.Options{DataDir: data, ProjectDir: project, Machine: s.Settings().Machine, Named: s.Settings().named()})
	if err != nil {
		return nil, false
	}
	if _, ok := lm.Locate(path); !ok {
		return nil, false
	}
	s.ws.mu.Lock()
	if prev, ok := s.ws.lone[key]; ok { // another request opened it meanwhile
		s.ws.mu.Unlock()
		return prev, true
	}
	s.ws.lone[key] = lm
	s.ws.mu.Unlock()
	s.startWatching(lm)
	return lm, true
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

// Scope is the session scope: the settings, else the project binding.
func (s *Server) Scope(m *engine.Memory) engine.Scope {
	st := s.Settings()
	sc := m.DefaultScope()
	if st.Task != "" {
		sc.Task = st.Task
	}
	if len(st.Agents) > 0 {
		sc.Agents = st.Agents
	}
	if st.Machine != "" {
		sc.Machine = st.Machine
	}
	return sc
}

// Participant is the session scope narrowed to the one agent the editor
// answers for (SPEC §5: one participant per block): the participant setting,
// else the first agent of the session scope. Hover, code lens, diagnostics,
// render and the effective view use it.
func (s *Server) Participant(m *engine.Memory) engine.Scope {
	return participant(s.Scope(m), s.Settings().Participant)
}

func participant(sc engine.Scope, agent string) engine.Scope {
	switch {
	case agent != "":
		sc.Agents = []string{agent}
	case len(sc.Agents) > 1:
		sc.Agents = sc.Agents[:1:1]
	}
	return sc
}

// named is the scope the settings name, given to engine.Open: agents and a
// task named there are IDs even when no configuration registers them.
func (st Settings) named() engine.Scope {
	agents := append([]string(nil), st.Agents...)
	if st.Participant != "" {
		agents = append(agents, st.Participant)
	}
	return engine.Scope{Task: st.Task, Agents: agents}
}

// Today is the journal's today: the setting, else the date of the server's clock.
func (s *Server) Today() journal.Day {
	if d, err := journal.ParseDay(s.Settings().Today); err == nil {
		return d
	}
	return journal.DayOf(s.now())
}

// Located is an open or on-disk memory note as a feature sees it.
type Located struct {
	URI    protocol.DocumentUri
	Path   string
	Memory *engine.Memory
	Note   *engine.Note // parsed from the buffer when open, else the loaded note
	Doc    *Document    // the open buffer; nil when not open
	Mapper *Mapper      // positions of Note.Src
}

// Note finds the memory note behind a URI. ok is false for files that are not
// memory notes (any other Markdown file the editor opened).
func (s *Server) Note(uri protocol.DocumentUri) (*Located, bool) {
	path, err := URIToPath(uri)
	if err != nil {
		return nil, false
	}
	m, ok := s.memoryFor(path)
	if !ok {
		return nil, false
	}
	n := &Located{URI: uri, Path: path, Memory: m}
	if d, open := s.Docs.Get(uri); open {
		e := s.parsed(m, path, d)
		if e == nil {
			return nil, false
		}
		n.Note, n.Doc, n.Mapper = e, d, d.Mapper()
		return n, true
	}
	e := m.Note(path)
	if e == nil {
		return nil, false
	}
	n.Note, n.Mapper = e, NewMapper(e.Src)
	return n, true
}

// parsed is the note of an open buffer: the loaded note when the buffer holds
// the disk's bytes (its token counts and rendered element are cached there),
// else the buffer parsed once per version, so that hovering over a large edited
// note does not tokenize it again on every request.
func (s *Server) parsed(m *engine.Memory, path string, d *Document) *engine.Note {
	if e := m.Note(path); e != nil && bytes.Equal(e.Src, d.Text) {
		return e
	}
	key := parsedBuffer{version: d.Version, memory: m, tree: m.Version()}
	if len(d.Text) > 0 {
		key.text = &d.Text[0]
	}
	s.ws.mu.Lock()
	c, ok := s.ws.parsed[d.URI]
	s.ws.mu.Unlock()
	if ok && key.text != nil && c.version == key.version && c.memory == m && c.tree == key.tree && c.text == key.text {
		return c.entry
	}
	e, _, ok := m.Parse(path, d.Text)
	if !ok || e == nil {
		return nil
	}
	key.entry = e
	s.ws.mu.Lock()
	s.ws.parsed[d.URI] = key
	s.ws.mu.Unlock()
	return e
}

// parsedBuffer caches the note parsed from one version of a buffer.
type parsedBuffer struct {
	version int32
	memory  *engine.Memory
	tree    uint64 // the tree's version: a new roster or layer can reclassify the note
	text    *byte  // the buffer's first byte: a new text is a new array
	entry   *engine.Note
}

// setBase records what a buffer is based on: the disk version when the buffer
// holds exactly the disk's bytes, else only the revision the buffer names.
func (s *Server) setBase(uri protocol.DocumentUri, text []byte) {
	path, err := URIToPath(uri)
	if err != nil {
		return
	}
	b := engineBase{}
	if disk, err := safefs.ReadFile(path, engine.MaxNoteSize); err == nil && string(disk) == string(text) {
		b.Revision, _ = store.RevisionOf(disk)
		b.Hash = store.Hash(disk)
		b.Text = disk
	} else {
		b.Revision, _ = store.RevisionOf(text)
	}
	s.ws.mu.Lock()
	s.ws.bases[uri] = b
	s.ws.mu.Unlock()
}

// Base is what the buffer of uri was based on.
func (s *Server) Base(uri protocol.DocumentUri) (engineBase, bool) {
	s.ws.mu.Lock()
	defer s.ws.mu.Unlock()
	b, ok := s.ws.bases[uri]
	return b, ok
}

func (s *Server) dropBase(uri protocol.DocumentUri) {
	s.ws.mu.Lock()
	delete(s.ws.bases, uri)
	delete(s.ws.parsed, uri)
	s.ws.mu.Unlock()
}

func itoa(n int) string { return strconv.Itoa(n) }

var errNotLoaded = errors.New("memory is still loading; try again")
