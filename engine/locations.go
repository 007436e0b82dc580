package engine

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/magicfrog/mf-lsp/engine/secrets/scancache"
)

// Options say where memory is and who is looking at it.
type Options struct {
	// DataDir is the MagicFrog data directory; "" resolves it as SPEC §1 says.
	DataDir string
	// ProjectDir is the workspace folder whose .magicfrog/ holds task memory;
	// "" means there is no project (the data directory alone, or a lone file).
	ProjectDir string
	// Machine overrides this machine's id (otherwise <data>/machine-id).
	Machine string
	// Named is the session's scope as the caller knows it before loading (flags,
	// editor settings): the agents and task it names are IDs whether or not they
	// are registered, so their folders read as theirs (SPEC §2).
	Named Scope
	// Getenv reads the environment; nil means os.Getenv. Tests set it.
	Getenv func(string) string
	// OnDir, when set, is called with every folder a load walks, before its
	// notes are read (and again on every reload): the language server watches
	// them from the same walk instead of walking the tree twice.
	OnDir func(dir string)
	// AwaitDirs, when set beside OnDir, is called before a load reads a
	// batch of notes and returns once the caller is done with every folder
	// OnDir was called with so far (the watcher watches them): a note written
	// after it is read is then an event. OnDir may so hand its work to a
	// goroutine beside the load without a write in between being missed
	// (engine/watch.Open).
	AwaitDirs func()
	// ScopeOnly loads only what a view of the session's own scopes can hold,
	// for a process that reads those views and nothing else (mf-lsp render:
	// an agent's boot). Its scopes are decided once the configuration is
	// read, as render decides: Named's agents, or the binding's when Named
	// names none; Named's task, or the binding's. The folder of a registered
	// agent (agent/<id>/) or task (<task root>/<id>/, and the same in a
	// legacy project/ tree) that they do not name is not walked, so neither
	// its notes nor its unreadable files are seen. Everything else loads as
	// without it: account, user and shared notes, shared and layer folders,
	// every device note (its machine is in its frontmatter) and unregistered
	// folders (every block lists their notes). The memory says so
	// (Memory.ScopeOnly), refuses to write, and is wrong for anything but
	// those views: Notes, Len, Versions and Problems hold what it read.
	ScopeOnly bool
	// Within, with ScopeOnly, names the agents and the task whose folders a
	// scope-only load reads in place of Named's, without making them IDs:
	// for a session whose scope is decided as the roster has it, where an
	// unregistered agent stays unregistered (mf-lsp mcp). Its Agents, when
	// empty, and its Task, when "", fall back to Named's and then the
	// binding's, as ScopeOnly says.
	Within Scope
	// TokenCache keeps the token counts of renders under a budget, views and
	// hovers across processes (the binary makes one in the user's cache
	// folder); nil counts in this process only.
	TokenCache *TokenCache
	// SecretScans remembers, across processes, the texts gitleaks' rules found
	// clean, for the checks' advice on this memory's notes (diagnostics reads
	// it, Memory.SecretScans; sync's gate never does). nil scans every text.
	SecretScans *scancache.Cache
	// BodiesOnDemand keeps resident, of a note larger than ResidentMax, only
	// its frontmatter: its text is read again from the disk when asked
	// (Note.Text), checked against the hash taken at load. For a long-lived
	// process (the language server), whose memory would otherwise grow with
	// the notes' text; a command that reads its notes once keeps them.
	BodiesOnDemand bool
	// SumsOnDemand, with BodiesOnDemand, leaves unhashed at load a large
	// note whose file stamp is trusted (old enough, stampMargin): a read
	// finding the same stamp trusts its bytes without the hash, and Sum
	// reads the text again and hashes it when asked. For a command that
	// reads few of the texts it loads and records none (render: at 100,000
	// notes of 8-64 KB its block holds 5% of its scope's notes, and hashing
	// the rest at load was a third of its CPU). A note whose stamp moved
	// since the load reads as changed (Note.Text's *ChangedError), even when
	// its bytes are the same: there is no hash to tell.
	SumsOnDemand bool
	// OneShot is for a process that runs one command on this memory and
	// exits (the CLI's append): nothing reads the tree after the command, so
	// a write does not read the note it wrote back into it (Memory.Write's
	// refresh: a tenth of a hook's append), and an append's first try does
	// not look again at the note the load read moments before
	// (Memory.OneShot). A change on disk since the load still fails the
	// write (the store checks the revision under the lock), and a writer that
	// tries again refreshes first. Memory.Write's result is the same; the
	// tree is the load's after it.
	OneShot bool
}

// ResolveDataDir finds the data directory: the flag or client setting, else
// $MAGICFROG_HOME, else $XDG_DATA_HOME/magicfrog, else the platform default.
func ResolveDataDir(flag string, getenv func(string) string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if flag != "" {
		return filepath.Abs(flag)
	}
	if v := getenv("MAGICFROG_HOME"); v != "" {
		return filepath.Abs(v)
	}
	if v := getenv("XDG_DATA_HOME"); v != "" {
		return filepath.Join(v, "magicfrog"), nil
	}
	switch runtime.GOOS {
	case "windows":
		if v := getenv("AppData"); v != "" {
			return filepath.Join(v, "MagicFrog"), nil
		}
	case "darwin":
		if h := getenv("HOME"); h != "" {
			return filepath.Join(h, "Library", "Application Support", "MagicFrog"), nil
		}
	}
	home := getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", errors.New("cannot find the data directory: set --data-dir, $MAGICFROG_HOME or $HOME")
		}
	}
	return filepath.Join(home, ".local", "share", "magicfrog"), nil
}

// Root is one directory that holds a dimension's notes.
type Root struct {
	Dir       string
	Dimension Dimension
	Legacy    bool // machine/ read as device, project/ read as task
	// Mount, when set, makes Dir a journal kept where an agent host keeps it
	// (Binding.Journals, docs/journal.md): Dir is the workspace, Mount the
	// dimension-relative prefix its files take (owner and journal layer:
	// "larry/journal/"). Only <Dir>/memory/… and <Dir>/MEMORY.md belong to it.
	Mount string
}

// MountMemoryDir is the folder of a mounted workspace that holds its dailies,
// rollups and sticky notes; MEMORY.md sits at the workspace's root.
const MountMemoryDir = "memory"

// rel is the slash path of p relative to the dimension root r stands for
// (for a mount: with its prefix, memory/ taken off); ok is false for a path
// outside r or, in a mount, a file of the workspace that is not the journal's
// (AGENTS.md, project folders, memory/MEMORY.md: the mount's MEMORY.md is the
// workspace root's).
func (r Root) rel(p string) (string, bool) {
	rel, in, sure := cleanRel(r.Dir, p)
	if !sure {
		var err error
		rel, err = filepath.Rel(r.Dir, p)
		in = err == nil && within(r.Dir, p)
	}
	if !in {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	if rel == "." {
		rel = ""
	}
	if r.Mount == "" {
		return rel, true
	}
	switch {
	case rel == "" || rel == MountMemoryDir:
		return strings.TrimSuffix(r.Mount, "/"), true
	case rel == "MEMORY.md":
		return r.Mount + rel, true
	case rel == MountMemoryDir+"/MEMORY.md":
		return "", false
	case strings.HasPrefix(rel, MountMemoryDir+"/"):
		return r.Mount + rel[len(MountMemoryDir)+1:], true
	}
	return "", false
}

// Mount is a journal kept in place: the workspace folder, and the dimension,
// owner and journal layer prefix its files are read as (Binding.Journals).
type Mount struct {
	Dir       string
	Dimension Dimension
	Owner     string
	Prefix    string // the journal layer's prefix, "journal/"
}

// prefix is the dimension-relative prefix of the mount's keys.
func (mt Mount) prefix() string {
	if mt.Owner == "" {
		return mt.Prefix
	}
	return mt.Owner + "/" + mt.Prefix
}

// file is where key (a key of the mount's layer) lives in the workspace.
func (mt Mount) file(key string) string {
	rest := strings.TrimPrefix(key, mt.Prefix)
	if rest == "MEMORY.md" {
		return filepath.Join(mt.Dir, rest)
	}
	return filepath.Join(mt.Dir, MountMemoryDir, filepath.FromSlash(rest))
}

// MountOf is the mount that holds path, if any.
func (p Paths) MountOf(path string) (Mount, bool) {
	for _, mt := range p.Mounts() {
		if within(mt.Dir, path) {
			return mt, true
		}
	}
	return Mount{}, false
}

// mountFor is the mount where the key of owner in d is written, if any.
func (p Paths) mountFor(d Dimension, owner, key string) (Mount, bool) {
	for _, mt := range p.Mounts() {
		if mt.Dimension == d && mt.Owner == owner && strings.HasPrefix(key, mt.Prefix) {
			return mt, true
		}
	}
	return Mount{}, false
}

// Paths of the files the engine reads, derived from the two directories.
type Paths struct {
	DataDir, ProjectDir string
	// mounts are the journals the project keeps in place (Binding.Journals),
	// replaced when the configuration is read again; nil for Paths made
	// without a Memory (no journal is mounted there).
	mounts *mountTable
}

// mountTable holds the mounts of a Memory: a reload replaces them while
// others read them (a write's LockRoot, a watcher's MountOf, a load's
// Roots), so the slice is swapped whole, atomically, and never changed in
// place. Copies of Paths share the table and so see the same mounts.
type mountTable struct {
	cur   atomic.Pointer[[]Mount]
	roots atomic.Pointer[rootList] // Roots as of the mounts it was made from
}

// rootList is a Paths' Roots, made once for the mounts and folders it names:
// Locate runs for every request of an editor and read the roots on each.
type rootList struct {
	mounts              *[]Mount
	dataDir, projectDir string
	roots               []Root
}

// Mounts are the journals the project keeps in place (Binding.Journals), as
// the configuration was last read. The slice is the caller's to read, never
// to change.
func (p Paths) Mounts() []Mount {
	if p.mounts == nil {
		return nil
	}
	if cur := p.mounts.cur.Load(); cur != nil {
		return *cur
	}
	return nil
}

// setMounts replaces the mounts (Memory's reload).
func (p Paths) setMounts(mounts []Mount) {
	p.mounts.cur.Store(&mounts)
}

func (p Paths) MemoryDir() string  { return filepath.Join(p.DataDir, "memory") }
func (p Paths) LayersFile() string { return filepath.Join(p.DataDir, "memory", "layers.json") }
func (p Paths) RosterFile() string { return filepath.Join(p.DataDir, "magicfrog.json") }
func (p Paths) MachineIDFile() string {
	return filepath.Join(p.DataDir, "machine-id")
}

// ProjectConfigFile is <project>/.magicfrog/config.json, or "" without a project.
func (p Paths) ProjectConfigFile() string {
	if p.ProjectDir == "" {
		return ""
	}
	return filepath.Join(p.ProjectDir, ".magicfrog", "config.json")
}

// TaskDir is the canonical task root, or "" without a project.
func (p Paths) TaskDir() string {
	if p.ProjectDir == "" {
		return ""
	}
	return filepath.Join(p.ProjectDir, ".magicfrog", "memory")
}

// Roots lists every directory notes are read from, canonical before legacy.
// The slice is the caller's to read, never to change: Paths of a Memory make
// it once for each set of mounts.
func (p Paths) Roots() []Root {
	if p.mounts == nil {
		return p.makeRoots()
	}
	cur := p.mounts.cur.Load()
	if l := p.mounts.roots.Load(); l != nil && l.mounts == cur && l.dataDir == p.DataDir && l.projectDir == p.ProjectDir {
		return l.roots
	}
	roots := p.makeRoots()
	p.mounts.roots.Store(&rootList{mounts: cur, dataDir: p.DataDir, projectDir: p.ProjectDir, roots: slices.Clip(roots)})
	return roots
}

func (p Paths) makeRoots() []Root {
	m := p.MemoryDir()
	var roots []Root
	for _, mt := range p.Mounts() {
		roots = append(roots, Root{Dir: mt.Dir, Dimension: mt.Dimension, Mount: mt.prefix()})
	}
	roots = append(roots, []Root{
		{Dir: filepath.Join(m, "account"), Dimension: Account},
		{Dir: filepath.Join(m, "user"), Dimension: User},
		{Dir: filepath.Join(m, "agent"), Dimension: Agent},
		{Dir: filepath.Join(m, "device"), Dimension: Device},
	}...)
	if t := p.TaskDir(); t != "" {
		roots = append(roots, Root{Dir: t, Dimension: Task})
	}
	roots = append(roots,
		Root{Dir: filepath.Join(m, "machine"), Dimension: Device, Legacy: true},
		Root{Dir: filepath.Join(m, "project"), Dimension: Task, Legacy: true},
	)
	return roots
}

// CanonicalRoot is where new writes of a dimension land; "" for task without a
// project.
func (p Paths) CanonicalRoot(d Dimension) string {
	if d == Task {
		return p.TaskDir()
	}
	return filepath.Join(p.MemoryDir(), d.String())
}

// LockRoot is the directory whose lock serializes writes to the note at path:
// the project's .magicfrog/memory for task notes, the data directory's memory/
// for everything else.
func (p Paths) LockRoot(path string) string {
	if mt, ok := p.MountOf(path); ok {
		return mt.Dir
	}
	if t := p.TaskDir(); t != "" && within(t, path) {
		return t
	}
	return p.MemoryDir()
}

// Inside reports whether path is dir or below it once both are made absolute
// and the links of their deepest existing parts are resolved: a path reached
// through a link to a folder inside dir is inside it.
func Inside(dir, path string) bool {
	d, err1 := filepath.Abs(dir)
	p, err2 := filepath.Abs(path)
	return err1 == nil && err2 == nil && within(realPath(d), realPath(p))
}

// within reports whether path is dir or below it (both cleaned, absolute).
func within(dir, path string) bool {
	if _, in, sure := cleanRel(dir, path); sure {
		return in
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !filepath.IsAbs(rel) && !startsWithDotDot(rel)
}

// cleanRel is filepath.Rel(dir, path) and whether path is within dir, without
// allocating, when both are clean and absolute (every root, and every path the
// engine is handed once cleaned): then path is dir or below it exactly when
// dir and a separator prefix it. Locate runs for every request of an editor,
// on each root until one holds the path. sure is false for any other pair,
// and on Windows (whose Rel folds case): ask filepath.Rel.
func cleanRel(dir, path string) (rel string, in, sure bool) {
	if runtime.GOOS == "windows" || !filepath.IsAbs(dir) || !filepath.IsAbs(path) || !cleanAbs(dir) || !cleanAbs(path) {
		return "", false, false
	}
	switch {
	case path == dir:
		return ".", true, true
	case !strings.HasPrefix(path, dir):
		return "", false, true
	case os.IsPathSeparator(dir[len(dir)-1]): // the file system's root
		return path[len(dir):], true, true
	case os.IsPathSeparator(path[len(dir)]):
		return path[len(dir)+1:], true, true
	}
	return "", false, true
}

// cleanAbs reports whether filepath.Clean(p) == p for an absolute path p
// outside Windows, without Clean's rewriting pass: no empty, "." or ".."
// element and no trailing separator ("/" itself is clean).
func cleanAbs(p string) bool {
	if p == "/" {
		return true
	}
	start := 1 // the element after the leading separator
	for i := 1; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		if e := p[start:i]; e == "" || e == "." || e == ".." {
			return false
		}
		start = i + 1
	}
	return true
}

func startsWithDotDot(rel string) bool {
	return len(rel) >= 3 && rel[:3] == ".."+string(filepath.Separator)
}
