package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/magicfrog/mf-lsp/engine/history"
	"github.com/magicfrog/mf-lsp/engine/internal/ondemandtrace"
	"github.com/magicfrog/mf-lsp/engine/safefs"
	"github.com/magicfrog/mf-lsp/engine/secrets/scancache"
	"github.com/magicfrog/mf-lsp/engine/store"
)

// MaxNoteSize is the largest file read as a note. Memory notes are read whole
// into every agent's context; a larger file is almost certainly not a note, and
// reading it would cost every load.
const MaxNoteSize = store.MaxNoteSize

// Problem is something wrong with a file that kept it, or part of it, from being
// read. Problems never stop the rest of the tree from loading.
type Problem struct {
	Path    string
	Kind    ProblemKind
	Message string
	// Rule is the rule of what a note may be that the file broke, when it is
	// not a note (ProblemBinary, ProblemTooLarge); "" otherwise.
	Rule NoteRule
}

// ProblemKind says what kept a file from being read.
type ProblemKind string

const (
	ProblemUnreadable ProblemKind = "unreadable" // permissions, broken or looping links, I/O errors
	ProblemBinary     ProblemKind = "binary"     // NUL bytes or not UTF-8
	ProblemTooLarge   ProblemKind = "too-large"  // over MaxNoteSize
	ProblemConfig     ProblemKind = "config"     // a configuration file that does not parse
	ProblemLink       ProblemKind = "link"       // a link to a folder or out of the memory root, which is not followed
	ProblemSpecial    ProblemKind = "special"    // a FIFO, socket or device: never opened for reading
)

func (p Problem) Error() string {
	if badName(p.Path) {
		return strconv.Quote(p.Path) + ": " + p.Message // one line, whatever the name
	}
	return p.Path + ": " + p.Message
}

// Memory is a loaded memory tree: the data directory, the project's task memory,
// their configuration, and every note. It is safe for concurrent use; notes are
// immutable and replaced whole when their file changes.
type Memory struct {
	Paths Paths

	mu          sync.RWMutex
	layers      Layers
	roster      []string
	shared      []string // first folders under agent/ kept shared on purpose
	binding     Binding
	machine     string
	machineErr  error
	named       Scope // IDs the session's scope names (Options.Named)
	ids         ownerIDs
	scopeOnly   bool             // Options.ScopeOnly
	onDemand    bool             // Options.BodiesOnDemand
	sumsLater   bool             // Options.SumsOnDemand
	oneShot     bool             // Options.OneShot
	tokenCache  *TokenCache      // Options.TokenCache
	secretScans *scancache.Cache // Options.SecretScans
	within      Scope            // Options.Within
	limit       *scopeLimit      // the owner folders a scope-only load reads; nil: every folder
	config      []Problem        // configuration files that did not parse
	entries     map[string]*Note // by absolute path
	// byKey is the first note of each key (any dimension), moreByKey the
	// ones after it, in the order they came: nearly every key has one note,
	// and a slice per key kept 24 bytes more a key in the map and 8 beside.
	byKey     map[string]*Note
	moreByKey map[string][]*Note
	groups    map[group]map[*Note]struct{} // notes by where they apply
	problems  map[string]Problem           // files that could not be read, by path
	version   uint64                       // bumped on every change (bumpLocked)
	changes   changeLog                    // what each recent version changed (changes.go)
	onDir     func(dir string)             // Options.OnDir
	awaitDirs func()                       // Options.AwaitDirs
	// historyPolicy bounds the local history (magicfrog.json "history").
	historyPolicy history.Policy
	// loadStart is when the latest loadRoot (a load's, a refresh's) began,
	// by ondemandtrace.LoadClock: what a note's stamp must be older than to be trusted
	// (trustedStamp). Set under mu, before the reads it judges.
	loadStart time.Time
	// onStale is told of a note whose text, read on demand, no longer
	// hashes to what the load took (SetOnStale); nil: Refresh it.
	onStale  atomic.Pointer[func(path string)]
	seen     seenOrder         // the turns of refreshes recording what they saw
	seenHook func(path string) // tests: called as a refresh records what it saw
}

// Open resolves the locations, reads the configuration and loads every note.
// Unreadable or malformed notes become Problems; only an unusable data
// directory setting is an error.
func Open(opts Options) (*Memory, error) {
	data, err := ResolveDataDir(opts.DataDir, opts.Getenv)
	if err != nil {
		return nil, err
	}
	project := opts.ProjectDir
	if project != "" {
		if project, err = filepath.Abs(project); err != nil {
			return nil, err
		}
	}
	m := &Memory{Paths: Paths{DataDir: filepath.Clean(data), ProjectDir: project, mounts: &mountTable{}}}
	m.machine = opts.Machine
	m.named = Scope{Task: opts.Named.Task, Agents: append([]string(nil), opts.Named.Agents...)}
	m.onDir = opts.OnDir
	m.awaitDirs = opts.AwaitDirs
	m.scopeOnly = opts.ScopeOnly
	m.onDemand = opts.BodiesOnDemand
	m.sumsLater = opts.BodiesOnDemand && opts.SumsOnDemand
	m.oneShot = opts.OneShot
	m.tokenCache, m.secretScans = opts.TokenCache, opts.SecretScans
	m.within = Scope{Task: opts.Within.Task, Agents: append([]string(nil), opts.Within.Agents...)}
	m.reload()
	return m, nil
}

// TokenCache is the cache the memory's token counts go through
// (Options.TokenCache); nil when there is none.
func (m *Memory) TokenCache() *TokenCache { return m.tokenCache }

// SecretScans is the scan cache the checks of the memory's notes consult
// (Options.SecretScans); nil when there is none.
func (m *Memory) SecretScans() *scancache.Cache { return m.secretScans }

// Reload reads the configuration and every note again. Each note that is
// not as the tree held it (changed, new, removed, or now not a note) goes to
// the local history as Refresh does for one note: the version the tree had
// is kept and the disk's is kept and judged. A version the engine observed
// at load is never dropped unkept because something replaced it while no
// watcher looked.
func (m *Memory) Reload() {
	m.mu.Lock()
	old := m.entries
	m.reloadLocked()
	var changed []seen
	if !m.scopeOnly {
		for p, e := range old {
			if n, ok := m.entries[p]; !ok || n.Sum() != e.Sum() {
				changed = append(changed, m.seenLocked(p, e, n, n != nil || m.fileAtLocked(p)))
			}
		}
		for p, n := range m.entries {
			if _, ok := old[p]; !ok {
				changed = append(changed, m.seenLocked(p, nil, n, true))
			}
		}
	}
	m.mu.Unlock()
	for _, c := range changed {
		m.recordSeen(c)
	}
}

// fileAtLocked reports whether a file (a note or not) is at path, for a
// Reload that found no note there: a problem now, or gone.
func (m *Memory) fileAtLocked(path string) bool {
	if _, ok := m.problems[path]; ok {
		return true
	}
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

func (m *Memory) reload() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reloadLocked()
}

func (m *Memory) reloadLocked() {
	m.readConfig()
	m.entries = make(map[string]*Note)
	m.byKey = make(map[string]*Note)
	m.moreByKey = make(map[string][]*Note)
	m.groups = make(map[group]map[*Note]struct{})
	m.problems = make(map[string]Problem)
	m.changes.off = true
	for _, r := range m.Paths.Roots() {
		m.loadRoot(r, r.Dir)
	}
	m.version++
	m.forgetChangesLocked()
}

func (m *Memory) readConfig() {
	m.config = nil
	layers, p := readLayers(m.Paths.LayersFile())
	m.layers = layers
	if p != nil {
		m.config = append(m.config, *p)
	}
	var roster Roster
	if p := readJSON(m.Paths.RosterFile(), &roster); p != nil {
		m.config = append(m.config, *p)
	}
	m.binding = Binding{}
	if p := readJSON(m.Paths.ProjectConfigFile(), &m.binding); p != nil {
		m.config = append(m.config, *p)
	}
	mounts, probs := m.binding.mounts(m.Paths.ProjectDir, m.layers)
	m.config = append(m.config, probs...)
	if !sameMounts(m.Paths.Mounts(), mounts) {
		m.Paths.setMounts(mounts)
	}
	// The roster is magicfrog.json's agents plus the agents the project names: an
	// agent a project is bound to is an agent, registered or not.
	var agents idSet // the roster's, then the named ones: one set built once
	m.roster, agents = newIDSet(roster.Agents, m.binding.Agents)
	agents.add(m.named.Agents...)
	_, tasks := newIDSet(m.binding.Tasks, []string{m.binding.Task, m.named.Task})
	m.shared = unique(append([]string(nil), roster.Shared...))
	m.historyPolicy = roster.History.Policy()
	m.ids = ownerIDs{
		agents: agents,
		tasks:  tasks,
		shared: set(m.shared),
		layers: layerFolders(m.layers),
		// A task the project names stays a task even if also listed as shared.
		taskShared: set(m.binding.Shared),
	}
	m.limit = nil
	if m.scopeOnly {
		m.limit = m.newScopeLimit() // the binding is read: the limit can be decided
	}
	if m.machine == "" || m.machineErr != nil {
		m.machine, m.machineErr = ReadMachineID(m.Paths, false)
		if errors.Is(m.machineErr, fs.ErrNotExist) {
			m.machineErr = nil // made on the first write that needs it
		}
	}
}

// loadRoot reads every note below dir (a root or a folder inside it) with a
// worker per CPU: reading files dominates, so this is what keeps loading near
// the cost of reading.
//
// Notes are read through the memory root (not the dimension's folder: a link
// from agent/ to a note in user/ stays inside), so no link leads out. The
// walk opens each folder once, relative to its parent (safefs.Dir), and the
// workers open its notes by name inside it while the walk goes on: os.Root
// resolves a path one folder at a time, an openat and a close per element,
// and opening every note by its path from the memory root paid the note's
// whole depth again for every note (engine/internal/coldbench). A note that
// is a link, or whose open by name fails, is read through the memory root by
// its path, so links are followed exactly as far as the memory root allows
// and every error reads as it did. When the folder cannot be opened that way
// at all, the walk goes by path (filepath.WalkDir) and every note is read
// through the memory root.
func (m *Memory) loadRoot(r Root, dir string) {
	m.loadStart = ondemandtrace.LoadClock()
	if dir == r.Dir {
		if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
			// A root with no folder yet (most of a machine's dimensions):
			// the walk would find nothing and say nothing (visit skips it),
			// after opening the memory root and asking twice.
			return
		}
	}
	var notes []foundNote
	visit := func(p string, d fs.DirEntry, err error) error {
		if _, ok := r.rel(p); !ok || m.skips(r, p, d) {
			if d == nil || d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if err != nil {
			if p == r.Dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipDir
			}
			m.problems[p] = Problem{Path: p, Kind: ProblemUnreadable, Message: "cannot read: " + err.Error()}
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		name := d.Name()
		if p != dir && strings.HasPrefix(name, ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if p != dir && badName(name) {
			m.problems[p] = Problem{Path: p, Kind: ProblemUnreadable, Message: "the name has a control character or is not UTF-8: not read (rename it)"}
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			// A link is followed only to a note of its own owner's scope
			// (linkTarget); a folder link never.
			target, err := os.Stat(p)
			switch {
			case err != nil:
				m.problems[p] = Problem{Path: p, Kind: ProblemUnreadable, Message: "broken or looping symbolic link: " + err.Error()}
			case target.IsDir() || isNoteName(name):
				if to, prob := m.linkTarget(r, p); prob != nil {
					m.problems[p] = *prob
				} else {
					notes = append(notes, foundNote{path: p, name: name, link: true, target: to})
				}
			}
			return nil
		}
		if !d.IsDir() && !d.Type().IsRegular() {
			// Opening a FIFO for reading waits for a writer: a single one named
			// p.md used to hang every command.
			m.problems[p] = Problem{Path: p, Kind: ProblemSpecial, Message: safefs.Kind(d.Type()) + ": not a note, never read"}
			return nil
		}
		if !d.IsDir() && isNoteName(name) {
			notes = append(notes, foundNote{path: p, name: name})
		}
		if d.IsDir() && m.onDir != nil {
			m.onDir(p)
		}
		return nil
	}
	memRoot := m.Paths.LockRoot(r.Dir)
	root, rerr := safefs.OpenRoot(memRoot)
	if rerr == nil {
		defer root.Close()
	}
	var results []readResult
	if d, info := m.openWalkStart(root, memRoot, dir); d != nil {
		results = m.walkAndRead(r, root, memRoot, d, dir, fs.FileInfoToDirEntry(info), visit, &notes)
	} else {
		err := filepath.WalkDir(dir, visit)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			m.problems[dir] = Problem{Path: dir, Kind: ProblemUnreadable, Message: err.Error()}
		}
		results = make([]readResult, len(notes))
		m.awaitWatched()
		parallel(len(notes), func(i int) {
			if rerr != nil {
				results[i].problem = &Problem{Path: notes[i].path, Kind: ProblemLink, Message: "not read: " + rerr.Error()}
				return
			}
			results[i].note, results[i].problem = m.readNote(r, root, memRoot, notes[i].path, notes[i].from())
		})
	}
	for i, n := range notes {
		if p := results[i].problem; p != nil {
			m.problems[n.path] = *p
		}
		if e := results[i].note; e != nil {
			m.putLocked(e)
		}
	}
}

// foundNote is a note file the walk found: its path and name, and whether it
// is a symbolic link.
type foundNote struct {
	path, name string
	link       bool
	target     string // a link's note (linkTarget): read from there, as the note at path
}

// from is where the note's bytes are read.
func (n foundNote) from() string {
	if n.link {
		return n.target
	}
	return n.path
}

type readResult struct {
	note    *Note
	problem *Problem
}

// openWalkStart opens dir, a real folder (not a link) inside the memory
// root, for walkAndRead; nil when it is anything else or cannot be opened so
// (the walk then goes by path).
func (m *Memory) openWalkStart(root *os.Root, memRoot, dir string) (*safefs.Dir, fs.FileInfo) {
	if root == nil || walkByPath {
		return nil, nil
	}
	info, err := os.Lstat(dir)
	if err != nil || !info.IsDir() {
		return nil, nil
	}
	rel, err := filepath.Rel(memRoot, dir)
	if err != nil {
		return nil, nil
	}
	d, err := safefs.OpenDirIn(root, rel)
	if err != nil {
		return nil, nil
	}
	return d, info
}

// walkByPath makes every load walk by path, as it does when a folder cannot
// be opened: tests hold the two walks to the same notes in the same order.
var walkByPath = false

// sharedDir is an opened folder that the walk and the reads of its notes
// share: closed when the last of them is done with it.
type sharedDir struct {
	*safefs.Dir
	refs atomic.Int32
}

// shareDir shares d, held by the walk until it releases it.
func shareDir(d *safefs.Dir) *sharedDir {
	sd := &sharedDir{Dir: d}
	sd.refs.Store(1)
	return sd
}

func (d *sharedDir) release() {
	if d.refs.Add(-1) == 0 {
		d.Close()
	}
}

// readJob is a batch of notes to read, in the walk's order: the notes at
// indices [first, first+len(notes)) of the walk's notes, copied (the walk
// goes on appending), the opened folder of each, and where the results go.
type readJob struct {
	first   int
	notes   []foundNote
	dirs    []*sharedDir
	results []readResult
}

// awaitWatched returns once the caller of Options.OnDir is done with every
// folder it was told of (Options.AwaitDirs): before notes in them are read.
func (m *Memory) awaitWatched() {
	if m.awaitDirs != nil {
		m.awaitDirs()
	}
}

// readBatch is the most notes handed to a worker at once: most folders hold
// a note or two, and a hand-off per folder cost more in waking goroutines
// than the reads it carried. A batch holds its folders open, so the bound
// also bounds the descriptors held: readBatch times the jobs in flight.
const readBatch = 32

// walkAndRead walks the folder d (at path dir, entry de) in filepath.WalkDir's
// order, calling visit as WalkDir would, and reads the notes visit adds to
// *notes on a worker per CPU as the walk finds them. It returns the results
// by note index.
func (m *Memory) walkAndRead(r Root, root *os.Root, memRoot string, d *safefs.Dir, dir string, de fs.DirEntry, visit fs.WalkDirFunc, notes *[]foundNote) []readResult {
	// read reads a batch's notes. With BodiesOnDemand one reader reads
	// every note into one buffer (makeLoaded copies what a note keeps): a
	// note's whole text made garbage once hashed had the collector run all
	// through a load of large notes (engine/internal/coldbench).
	read := func(j *readJob, scratch *[]byte) {
		m.awaitWatched()
		for i, n := range j.notes {
			res, dir := &j.results[i], j.dirs[i]
			src, err := []byte(nil), error(safefs.ErrLink)
			var st safefs.Stamp
			switch {
			case n.link:
			case m.onDemand:
				if src, st, err = dir.ReadFileInto(n.name, MaxNoteSize, *scratch); err == nil {
					*scratch = src
				}
			default:
				src, err = dir.ReadFile(n.name, MaxNoteSize)
			}
			if err == nil {
				res.note, res.problem = m.makeLoaded(r, n.path, src, st, m.onDemand)
			} else {
				res.note, res.problem = m.readNote(r, root, memRoot, n.path, n.from())
			}
			dir.release()
		}
	}
	// The workers start with the first full batch: a walk that finds fewer
	// notes than a batch (a hook's tree of a note or two) reads them on this
	// goroutine once it is done, and starts none (their start and their
	// handing over cost a one-note call more than its reading).
	workers := runtime.GOMAXPROCS(0)
	var jobs chan *readJob
	var all []*readJob
	var wg sync.WaitGroup
	start := func() {
		jobs = make(chan *readJob, 2*workers)
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var scratch []byte
				for j := range jobs {
					read(j, &scratch)
				}
			}()
		}
	}
	var pending *readJob
	flush := func(last bool) {
		if pending == nil {
			return
		}
		pending.results = make([]readResult, len(pending.notes))
		all = append(all, pending)
		if last && jobs == nil {
			var scratch []byte
			read(pending, &scratch)
		} else {
			if jobs == nil {
				start()
			}
			jobs <- pending
		}
		pending = nil
	}
	// submit hands the notes visit added since from (all in folder sd) to
	// the workers, a batch at a time.
	submit := func(sd *sharedDir, from int) {
		added := (*notes)[from:]
		if len(added) == 0 {
			return
		}
		if pending == nil {
			pending = &readJob{first: from}
		}
		sd.refs.Add(int32(len(added)))
		pending.notes = append(pending.notes, added...)
		for range added {
			pending.dirs = append(pending.dirs, sd)
		}
		if len(pending.notes) >= readBatch {
			flush(false)
		}
	}
	var walk func(sd *sharedDir, path string, de fs.DirEntry)
	walk = func(sd *sharedDir, path string, de fs.DirEntry) {
		defer sd.release()
		entries, err := sd.ReadDir()
		if err != nil && visit(path, de, err) != nil {
			return // visit answers SkipDir for a folder it cannot read
		}
		from := len(*notes)
		for _, e := range entries {
			p := filepath.Join(path, e.Name())
			if err := visit(p, e, nil); err != nil || !e.IsDir() {
				continue // visit skips folders only (fs.SkipDir)
			}
			submit(sd, from) // before the walk goes down: keeps the order
			child, err := sd.OpenDir(e.Name())
			if err != nil {
				visit(p, e, err)
			} else {
				walk(shareDir(child), p, e)
			}
			from = len(*notes)
		}
		submit(sd, from)
	}
	if visit(dir, de, nil) == nil {
		walk(shareDir(d), dir, de)
	} else {
		d.Close()
	}
	flush(true)
	if jobs != nil {
		close(jobs)
		wg.Wait()
	}
	results := make([]readResult, len(*notes))
	for _, j := range all {
		copy(results[j.first:], j.results)
	}
	return results
}

// readNote reads and parses one note through root (the memory root at
// rootDir): the note at p, read from from (p itself, or the note a link at p
// leads to, linkTarget). Files that are not notes (too large, binary, not
// UTF-8, not a regular file, a link on the way) are Problems and no note.
func (m *Memory) readNote(r Root, root *os.Root, rootDir, p, from string) (*Note, *Problem) {
	rel, err := filepath.Rel(rootDir, from)
	if err != nil {
		return nil, &Problem{Path: p, Kind: ProblemUnreadable, Message: err.Error()}
	}
	src, st, err := readNote(root, rel)
	if err != nil {
		return nil, noteProblem(p, err)
	}
	if from != p {
		return m.makeNote(r, p, src) // a link's note keeps its text: p itself would be refused
	}
	return m.makeLoaded(r, p, src, st, false)
}

// readNote reads a note inside root through no symbolic link at all, folder
// or file (safefs.ReadInNoLinks: a folder at a time, each opened without
// following a link, then the opened file's own Stat): a link is followed
// only by linkTarget, which names the linked note by a path with no link in
// it, so a folder swapped for a link since cannot lead into another owner's
// notes. No Lstat first: each extra call costs the path's whole depth again
// (engine/internal/coldbench).
func readNote(root *os.Root, rel string) ([]byte, safefs.Stamp, error) {
	return safefs.ReadInNoLinks(root, rel, MaxNoteSize)
}

// noteProblem turns a read error into the Problem a user can act on.
func noteProblem(p string, err error) *Problem {
	switch {
	case errors.Is(err, safefs.ErrTooLarge):
		e, _ := AsNotANote(ReadRefusal(err))
		return notANoteProblem(p, e)
	case errors.Is(err, safefs.ErrNotRegular):
		return &Problem{Path: p, Kind: ProblemSpecial, Message: "not a regular file: not a note, never read"}
	case errors.Is(err, safefs.ErrLink), strings.Contains(err.Error(), "escapes"):
		return &Problem{Path: p, Kind: ProblemLink, Message: "a symbolic link on the way (replaced since it was looked at?): not followed (" + err.Error() + ")"}
	}
	return &Problem{Path: p, Kind: ProblemUnreadable, Message: "cannot read: " + err.Error()}
}

// notANoteProblem is the Problem of a file that is not a note.
func notANoteProblem(p string, e *NotANoteError) *Problem {
	kind := ProblemBinary
	if e.Rule == RuleTooLarge {
		kind = ProblemTooLarge
	}
	return &Problem{Path: p, Kind: kind, Rule: e.Rule, Message: e.Error() + ": not loaded"}
}

// makeNote classifies and parses src as the note at p.
func (m *Memory) makeNote(r Root, p string, src []byte) (*Note, *Problem) {
	if err := CheckNote(src); err != nil {
		e, _ := AsNotANote(err)
		return nil, notANoteProblem(p, e)
	}
	rel, ok := r.rel(p)
	if !ok {
		return nil, &Problem{Path: p, Kind: ProblemUnreadable, Message: "not inside " + r.Dir}
	}
	scope, key, unregistered := m.ids.classify(r.Dimension, rel)
	e := &Note{
		Path: p, Root: r.Dir, Dimension: r.Dimension, Owner: scope, Key: key, Unregistered: unregistered,
		Layer: m.layers.match(key), Legacy: r.Legacy, Mounted: r.Mount != "",
	}
	e.setSrc(src)
	return e, nil
}

// makeLoaded is makeNote for a note read from the disk at p (not through a
// link), its file's stamp st as read: with BodiesOnDemand a large one keeps
// only its frontmatter resident (Note.dropBody). When reused, src is the
// caller's buffer, read into again for the next note: the note keeps a copy
// of what it keeps.
func (m *Memory) makeLoaded(r Root, p string, src []byte, st safefs.Stamp, reused bool) (*Note, *Problem) {
	e, prob := m.makeNote(r, p, src)
	if e != nil && m.onDemand {
		e.dropBody(m, st)
	}
	if e != nil && reused && e.Resident() {
		e.src = bytes.Clone(e.src)
	}
	return e, prob
}

func (m *Memory) putLocked(e *Note) {
	if old := m.entries[e.Path]; old != nil {
		m.dropLocked(old)
	}
	m.entries[e.Path] = e
	m.noteAddedLocked(e)
	g := groupOf(e)
	if m.groups[g] == nil {
		m.groups[g] = map[*Note]struct{}{}
	}
	m.groups[g][e] = struct{}{}
	if _, ok := m.byKey[e.Key]; ok {
		m.moreByKey[e.Key] = append(m.moreByKey[e.Key], e)
	} else {
		m.byKey[e.Key] = e
	}
}

func (m *Memory) dropLocked(e *Note) {
	delete(m.entries, e.Path)
	m.noteRemovedLocked(e)
	if g := m.groups[groupOf(e)]; g != nil {
		delete(g, e)
	}
	more := m.moreByKey[e.Key]
	if m.byKey[e.Key] == e {
		if len(more) == 0 {
			delete(m.byKey, e.Key)
			return
		}
		m.byKey[e.Key], more = more[0], more[1:]
	} else {
		for i, x := range more {
			if x == e {
				more = append(more[:i:i], more[i+1:]...)
				break
			}
		}
	}
	if len(more) == 0 {
		delete(m.moreByKey, e.Key)
		return
	}
	m.moreByKey[e.Key] = more
}

// versionsLocked is every note of key, in the order they came.
func (m *Memory) versionsLocked(key string) []*Note {
	first, ok := m.byKey[key]
	if !ok {
		return nil
	}
	more := m.moreByKey[key]
	return append(append(make([]*Note, 0, 1+len(more)), first), more...)
}

// OneShot reports a memory that serves one command and is never read again
// (Options.OneShot).
func (m *Memory) OneShot() bool { return m.oneShot }

// Refresh re-reads whatever changed at path: a note, a folder of notes, or a
// configuration file (which reloads everything). It reports whether the tree
// changed.
func (m *Memory) Refresh(path string) bool {
	path = filepath.Clean(path)
	switch path {
	case m.Paths.LayersFile(), m.Paths.RosterFile(), m.Paths.ProjectConfigFile(), m.Paths.MachineIDFile():
		m.Reload()
		return true
	}
	changed, seens := m.refresh(path)
	// The history keeps the version the tree had and judges the disk's (an
	// overwrite of a newer version is caught here), for the note at path or
	// each note of the folder that changed.
	for _, s := range seens {
		m.recordSeen(s)
	}
	return changed
}

// refreshWritten is the refresh after Write put written at path over
// replaced, recordWrite having judged both (judged: nothing left to judge).
// What the refresh saw is judged as Refresh judges it, unless it is that
// write and nothing else: the tree had replaced and the disk holds written,
// so judging them again would only read the log. A version another writer
// put down in between, or a tree that had another, is judged.
func (m *Memory) refreshWritten(path string, replaced, written []byte, judged bool) {
	_, seens := m.refresh(path)
	for _, s := range seens {
		own := judged && s.path == path && s.exists &&
			s.now != nil && s.now.Resident() && bytes.Equal(s.now.src, written) &&
			s.before != nil && s.before.Resident() && bytes.Equal(s.before.src, replaced)
		if own {
			m.seen.record(s.path, s.turn, func() {}) // its turn, with nothing to keep
			continue
		}
		m.recordSeen(s)
	}
}

// refresh is Refresh below the configuration files. When the tree keeps a
// history, seens is what the refresh saw of each note that changed (the
// one at path, or those below the folder at path), with its turn to record
// it.
func (m *Memory) refresh(path string) (changed bool, seens []seen) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var before *Note
	var exists, single bool
	var dropped map[string]*Note // the notes below a folder at path the tree had
	loaded := 0                  // and how many notes it loaded there
	loc, ok := m.locateLocked(path)
	if !ok {
		return false, nil
	}
	info, err := os.Lstat(path)
	if err == nil && linkOnTheWay(loc.Root.Dir, path) {
		err = fs.ErrNotExist // reached through a folder link: no note of this tree
	}
	if e, ok := m.entries[path]; ok && err == nil && info.Mode().IsRegular() && sameText(e, path, info.Size()) {
		// The file holds the text the tree has: nothing to parse, hash or
		// judge again (an append's refresh before its write, moments after
		// the load read the note). Any other change is read below.
		if m.changes.pendingAny() {
			m.bumpLocked()
			return true, nil
		}
		return false, nil
	}
	// Whatever was at or below path goes; whatever is there now comes back. A
	// note's own path is looked up directly: scanning every note for a prefix
	// costs milliseconds at 100,000 notes, and most events are about one note.
	if e, ok := m.entries[path]; ok || (err == nil && !info.IsDir()) {
		single = isNoteName(filepath.Base(path))
		exists = err == nil
		if ok {
			before = e
			m.dropLocked(e)
			changed = true
		}
		if _, ok := m.problems[path]; ok {
			delete(m.problems, path)
			changed = true
		}
	} else {
		prefix := path + string(filepath.Separator)
		dropped = map[string]*Note{}
		for p, e := range m.entries {
			if p == path || strings.HasPrefix(p, prefix) {
				m.dropLocked(e)
				dropped[p] = e
				changed = true
			}
		}
		for p := range m.problems {
			if p == path || strings.HasPrefix(p, prefix) {
				delete(m.problems, p)
				changed = true
			}
		}
	}
	switch {
	case err != nil:
	case info.IsDir():
		before := len(m.entries)
		m.loadRoot(loc.Root, path)
		loaded = len(m.entries) - before
		changed = changed || loaded != 0
	case isNoteName(filepath.Base(path)) && !hiddenBelow(loc.Root.Dir, path):
		m.loadRoot(loc.Root, path)
		changed = true
	}
	if changed || m.changes.pendingAny() {
		changed = true
		m.bumpLocked()
	}
	switch {
	case m.scopeOnly:
	case single:
		seens = []seen{m.seenLocked(path, before, m.entries[path], exists)}
	case dropped != nil:
		seens = m.seenBelowLocked(path, dropped, loaded)
	}
	return changed, seens
}

// sameText reports whether the file at path, size bytes, holds e's text to
// the byte: a resident note's only (one read on demand has part of its text
// in memory).
func sameText(e *Note, path string, size int64) bool {
	if !e.Resident() || int64(e.size) != size {
		return false
	}
	b, err := safefs.ReadFile(path, MaxNoteSize)
	return err == nil && bytes.Equal(b, e.src)
}

// seenBelowLocked is what a refresh of the folder at path saw of the notes
// below it: each one the tree had (dropped) that is gone or not as it was,
// and each one it loaded (loaded of them) that the tree did not have, as a
// Reload sees them. The tree is scanned again only when there are new ones.
func (m *Memory) seenBelowLocked(path string, dropped map[string]*Note, loaded int) []seen {
	var out []seen
	for p, e := range dropped {
		n := m.entries[p]
		if n != nil {
			loaded--
		}
		if n == nil || n.Sum() != e.Sum() {
			out = append(out, m.seenLocked(p, e, n, n != nil || m.fileAtLocked(p)))
		}
	}
	if loaded <= 0 {
		return out
	}
	prefix := path + string(filepath.Separator)
	for p, n := range m.entries {
		if _, had := dropped[p]; !had && strings.HasPrefix(p, prefix) {
			out = append(out, m.seenLocked(p, nil, n, true))
		}
	}
	return out
}

// hiddenBelow reports whether any element of path below root starts with ".".
func hiddenBelow(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return true
	}
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if strings.HasPrefix(part, ".") && part != "." {
			return true
		}
	}
	return false
}

// Locate says where path sits in the memory model: its root, dimension, scope,
// key and layer, whether or not a note exists there.
func (m *Memory) Locate(path string) (Location, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.locateLocked(filepath.Clean(path))
}

func (m *Memory) locateLocked(path string) (Location, bool) {
	for _, r := range m.Paths.Roots() {
		rel, ok := r.rel(path)
		if !ok {
			if r.Mount != "" && within(r.Dir, path) {
				return Location{}, false // a workspace file that is not the journal's
			}
			continue
		}
		scope, key, unregistered := m.ids.classify(r.Dimension, rel)
		return Location{Root: r, Dimension: r.Dimension, Owner: scope, Key: key, Layer: m.layers.Match(key), Legacy: r.Legacy, Unregistered: unregistered}, true
	}
	return Location{}, false
}

// Parse classifies and parses src as if it were the note at path (an editor
// buffer that may differ from the disk). ok is false outside every root.
func (m *Memory) Parse(path string, src []byte) (*Note, *Problem, bool) {
	loc, ok := m.Locate(path)
	if !ok {
		return nil, nil, false
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	e, p := m.makeNote(loc.Root, filepath.Clean(path), src)
	return e, p, true
}

// Note returns the loaded note at path, or nil.
func (m *Memory) Note(path string) *Note {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.entries[filepath.Clean(path)]
}

// Notes returns every loaded note, sorted by dimension, scope and key.
func (m *Memory) Notes() []*Note {
	m.mu.RLock()
	out := make([]*Note, 0, len(m.entries))
	for _, e := range m.entries {
		out = append(out, e)
	}
	m.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return entryLess(out[i], out[j]) })
	return out
}

func entryLess(a, b *Note) bool {
	if a.Dimension != b.Dimension {
		return a.Dimension < b.Dimension
	}
	if a.Owner != b.Owner {
		return a.Owner < b.Owner
	}
	if a.Key != b.Key {
		return a.Key < b.Key
	}
	if a.Legacy != b.Legacy {
		return !a.Legacy
	}
	return a.Path < b.Path
}

// Versions returns every note with key, in any dimension or scope.
func (m *Memory) Versions(key string) []*Note {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.versionsLocked(key)
}

// Len is the number of loaded notes.
func (m *Memory) Len() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.entries)
}

// Problems lists configuration files and note files that could not be read.
func (m *Memory) Problems() []Problem {
	m.mu.RLock()
	out := append([]Problem(nil), m.config...)
	for _, p := range m.problems {
		out = append(out, p)
	}
	m.mu.RUnlock()
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// ProblemAt is the problem that kept the file at path from loading, if any.
func (m *Memory) ProblemAt(path string) (Problem, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	p, ok := m.problems[filepath.Clean(path)]
	return p, ok
}

// Version changes whenever the tree changes.
func (m *Memory) Version() uint64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.version
}

// Layers returns the configured layers, longest prefix first.
func (m *Memory) Layers() Layers {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return append(Layers(nil), m.layers...)
}

// Roster is the agent IDs: magicfrog.json plus the project's agents.
func (m *Memory) Roster() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return append([]string(nil), m.roster...)
}

// SharedFolders are the first folders under agent/ that magicfrog.json says
// hold notes for every agent ("shared"), so they are not agent IDs.
func (m *Memory) SharedFolders() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return append([]string(nil), m.shared...)
}

// Binding is the project's configuration.
func (m *Memory) Binding() Binding {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.binding
}

// IsTaskID reports whether id names a task of this project.
func (m *Memory) IsTaskID(id string) bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.ids.tasks.has(id)
}

// SharedTaskFolder reports whether a first folder of the task root holds
// notes every task shares, as the view reads it: one not shaped like a task
// ID (notes/, style/), a layer's folder (journal/, skills/), or one the
// project lists in "shared". Its notes apply to every task (SPEC §2).
func (m *Memory) SharedTaskFolder(name string) bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return !m.ids.tasks.has(name) && (!looksLikeTaskID(name) || m.ids.layers[name] || m.ids.taskShared[name])
}

// IsAgentID reports whether id is an agent ID: on the roster, in the project's
// agents, or named by the session's scope.
func (m *Memory) IsAgentID(id string) bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.ids.agents.has(id)
}

// IsRegistered reports whether id is a registered ID of d (agent or task), the
// only IDs a write may create notes under.
func (m *Memory) IsRegistered(d Dimension, id string) bool {
	switch d {
	case Agent:
		return m.IsAgentID(id)
	case Task:
		return m.IsTaskID(id)
	}
	return false
}

// MachineID is this machine's id ("" when none was made yet).
func (m *Memory) MachineID() string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.machine
}

// EnsureMachineID returns this machine's id, making <data>/machine-id on first use.
func (m *Memory) EnsureMachineID() (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.machine != "" {
		return m.machine, nil
	}
	id, err := ReadMachineID(m.Paths, true)
	if err != nil {
		return "", fmt.Errorf("machine id: %w", err)
	}
	m.machine = id
	return id, nil
}

// DefaultScope is the scope the project binding and this machine give.
func (m *Memory) DefaultScope() Scope {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return Scope{Task: m.binding.Task, Agents: append([]string(nil), m.binding.Agents...), Machine: m.machine}
}

func set(xs []string) map[string]bool {
	s := make(map[string]bool, len(xs))
	for _, x := range xs {
		s[x] = true
	}
	return s
}

func unique(xs []string) []string {
	out, _ := uniqueSet(xs)
	return out
}

// uniqueSet is unique(xs) and the set of its elements.
func uniqueSet(xs []string) ([]string, map[string]bool) {
	seen := make(map[string]bool, len(xs))
	out := xs[:0]
	for _, x := range xs {
		if x != "" && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out, seen
}
