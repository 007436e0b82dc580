package roam

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
)

// Portable paths of the two configuration files in the remote.
const (
	rosterPath = "magicfrog.json"
	layersPath = "layers.json"
)

// mapping ties the portable tree in the remote to the files on this machine.
type mapping struct {
	paths engine.Paths
	mem   *engine.Memory
	// dirs maps a top folder of the portable tree ("user/", "task/",
	// "agent/larry/journal/" for a journal mounted in place) to the local
	// root it mirrors, longest prefix first.
	dirs []dirMap
	// task is the project's task ID when its notes roam; "" otherwise.
	task string
	// taskNote explains why the project's task notes do not roam ("" when they do).
	taskNote string
}

type dirMap struct {
	prefix string // portable, ends in "/"
	root   string // local directory
	lock   string // the memory root whose lock serializes writes there
	// mount: root is a workspace mounted in place as a journal
	// (engine.Mount): its files are memory/… and MEMORY.md at its root.
	mount bool
}

// newMapping decides what roams: the data directory's account, user and agent
// roots, the roster, layers.json, the journals mounted in place (each under
// its dimension's journal prefix, as export writes it) and, when the project
// is bound to a task and its own git repository does not track .magicfrog/,
// its task root under task/ (the portable tree of SPEC §8: its shared notes
// at task/…, each task ID's under task/<ID>/…).
func newMapping(m *engine.Memory) *mapping {
	return mappingFor(m, gitTracksMagicfrog)
}

// mappingFor is newMapping with tracked asking whether the project's git
// repository tracks .magicfrog/ (nil: it is not asked, the task notes map).
func mappingFor(m *engine.Memory, tracked func(project string) (bool, string)) *mapping {
	p := m.Paths
	mp := &mapping{paths: p, mem: m}
	for _, d := range []engine.Dimension{engine.Account, engine.User, engine.Agent} {
		mp.dirs = append(mp.dirs, dirMap{prefix: d.String() + "/", root: p.CanonicalRoot(d), lock: p.MemoryDir()})
	}
	switch task := m.Binding().Task; {
	case p.TaskDir() == "":
		mp.taskNote = "no project: task notes do not roam"
	case task == "":
		if _, err := os.Stat(p.TaskDir()); err == nil {
			mp.taskNote = "the project is bound to no task (.magicfrog/config.json \"task\"): its task notes do not roam"
		}
	case engine.CheckImportPath(task) != nil || strings.Contains(task, "/"):
		mp.taskNote = fmt.Sprintf("task ID %q cannot be a folder name: task notes do not roam", task)
	default:
		if tracked != nil {
			if yes, where := tracked(p.ProjectDir); yes {
				mp.taskNote = fmt.Sprintf("the project's git repository (%s) tracks .magicfrog/: task notes roam with the project, not through sync", where)
				break
			}
		}
		mp.task = task
		mp.dirs = append(mp.dirs, dirMap{prefix: "task/", root: p.TaskDir(), lock: p.TaskDir()})
	}
	for _, mt := range p.Mounts() {
		if mt.Dimension == engine.Task && mp.task == "" {
			continue // the task's journal roams with its task notes
		}
		prefix := mt.Dimension.String() + "/" + mt.Prefix
		if mt.Owner != "" {
			prefix = mt.Dimension.String() + "/" + mt.Owner + "/" + mt.Prefix
		}
		if engine.CheckImportPath(strings.TrimSuffix(prefix, "/")) != nil {
			continue
		}
		mp.dirs = append(mp.dirs, dirMap{prefix: prefix, root: mt.Dir, lock: p.LockRoot(filepath.Join(mt.Dir, engine.MountMemoryDir)), mount: true})
	}
	sort.SliceStable(mp.dirs, func(i, j int) bool { return len(mp.dirs[i].prefix) > len(mp.dirs[j].prefix) })
	return mp
}

// dirOf is the mapped root a portable path is under (the longest prefix).
func (mp *mapping) dirOf(rel string) (dirMap, string, bool) {
	for _, d := range mp.dirs {
		if inner, found := strings.CutPrefix(rel, d.prefix); found && inner != "" {
			return d, inner, true
		}
	}
	return dirMap{}, "", false
}

// portable is the portable path of a file of the memory tree (the reverse
// of local); ok is false for a file outside the sync set.
func (mp *mapping) portable(file string) (string, bool) {
	switch file {
	case mp.paths.RosterFile():
		return rosterPath, true
	case mp.paths.LayersFile():
		return layersPath, true
	}
	for _, d := range mp.dirs {
		root := d.root
		if d.mount {
			if file == filepath.Join(d.root, "MEMORY.md") {
				return d.prefix + "MEMORY.md", true
			}
			root = filepath.Join(d.root, engine.MountMemoryDir)
		}
		r, err := filepath.Rel(root, file)
		if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			continue
		}
		rel := d.prefix + filepath.ToSlash(r)
		if under, _, _ := mp.dirOf(rel); under.prefix != d.prefix || (d.mount && r == "MEMORY.md") || !mp.owns(rel) {
			return "", false // a copy under a mounted journal's prefix, the workspace's memory/MEMORY.md, another project's task
		}
		return rel, true
	}
	return "", false
}

// owns reports whether a portable path is in this machine's sync set: paths
// outside it (other projects' task IDs, files other tools keep in the
// remote) are carried along untouched.
func (mp *mapping) owns(rel string) bool {
	if rel == rosterPath || rel == layersPath {
		return true
	}
	d, inner, ok := mp.dirOf(rel)
	if !ok {
		return false
	}
	return d.prefix != "task/" || mp.ownsTaskPath(inner)
}

// ownsTaskPath: under task/, this project's are the notes every task shares
// (a note at the top, a folder not shaped like a task ID, a layer's folder,
// the binding's "shared") and its own task IDs' folders. Another ID-shaped
// folder is another project's task (one remote serves many projects): not
// this project's to take, change or delete.
func (mp *mapping) ownsTaskPath(inner string) bool {
	first, _, nested := strings.Cut(inner, "/")
	return !nested || mp.mem.IsTaskID(first) || mp.mem.SharedTaskFolder(first)
}

// local returns the file a portable path is kept in on this machine and the
// memory root whose lock covers it; ok is false for a path outside the sync
// set or one that is not a note.
func (mp *mapping) local(rel string) (file, lock string, ok bool) {
	switch rel {
	case rosterPath:
		return mp.paths.RosterFile(), mp.paths.DataDir, true
	case layersPath:
		return mp.paths.LayersFile(), mp.paths.MemoryDir(), true
	}
	if engine.CheckImportPath(rel) != nil || !isNote(path.Base(rel)) {
		return "", "", false
	}
	d, inner, found := mp.dirOf(rel)
	switch {
	case !found:
		return "", "", false
	case !d.mount:
		return filepath.Join(d.root, filepath.FromSlash(inner)), d.lock, true
	case inner == "MEMORY.md":
		return filepath.Join(d.root, inner), d.lock, true
	}
	return filepath.Join(d.root, engine.MountMemoryDir, filepath.FromSlash(inner)), d.lock, true
}

// isNote: a .md name that does not start with "." (as the engine reads notes).
func isNote(name string) bool {
	return !strings.HasPrefix(name, ".") && strings.EqualFold(path.Ext(name), ".md")
}

// localFile is one file of the sync set as it is on this machine.
type localFile struct {
	file string        // absolute path
	lock string        // memory root for engine/store
	hash plumbing.Hash // git blob id of the content
	rev  int
	// content is nil until load when the file was known unchanged from the
	// stat cache (its size and modification time).
	content     []byte
	size, modNs int64
}

// load returns the file's content, reading it when the scan did not. A file
// that changed since the scan is an error: the sync leaves it for next time.
func (l *localFile) load() ([]byte, error) {
	if l.content != nil {
		return l.content, nil
	}
	b, err := os.ReadFile(l.file)
	if err != nil {
		return nil, err
	}
	if blobHash(b) != l.hash {
		return nil, fmt.Errorf("%s changed during the sync", l.file)
	}
	l.content = b
	return b, nil
}

// StatEntry is what the last scan knew of a local file: when its size and
// modification time are the same, its content is too, and it is not read.
type StatEntry struct {
	Size     int64  `json:"size"`
	ModNs    int64  `json:"mod"`
	Blob     string `json:"blob"`
	Revision int    `json:"revision,omitempty"`
}

// racyWindow: a file modified this close to a scan may change again within
// the same timestamp, so its stat entry is not trusted (git's "racy" rule).
const racyWindow = 2 * time.Second

// statCache returns the stat entries worth keeping after a scan that began
// at start: files that were not modified within racyWindow of it, minus
// those the sync wrote.
func statCache(files map[string]*localFile, start time.Time, written map[string]bool) map[string]StatEntry {
	out := make(map[string]StatEntry, len(files))
	limit := start.Add(-racyWindow).UnixNano()
	for p, f := range files {
		if written[p] || f.modNs == 0 || f.modNs >= limit {
			continue
		}
		out[p] = StatEntry{Size: f.size, ModNs: f.modNs, Blob: f.hash.String(), Revision: f.rev}
	}
	return out
}

// skipped is a file of the sync set that is not sent, with why.
type skipped struct {
	Path   string // portable path
	Reason string
}

// scan reads the sync set from disk: every note below the mapped roots
// (in a mounted journal, memory/… and MEMORY.md), the roster and
// layers.json. Files that are not notes (links, binary, too large, hidden)
// are not part of it; notes that must not or cannot leave the machine (a
// machine binding, an unregistered task folder, a file hidden by a mounted
// journal) are reported in held.
func (mp *mapping) scan(cache map[string]StatEntry, trustBefore time.Time) (files map[string]*localFile, held []skipped, err error) {
	files = map[string]*localFile{}
	for _, c := range []struct{ rel, file, lock string }{
		{rosterPath, mp.paths.RosterFile(), mp.paths.DataDir},
		{layersPath, mp.paths.LayersFile(), mp.paths.MemoryDir()},
	} {
		b, err := os.ReadFile(c.file)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, nil, err
		default:
			files[c.rel] = &localFile{file: c.file, lock: c.lock, content: b, hash: blobHash(b)}
		}
	}
	sc := &scanning{mp: mp, cache: cache, trust: trustBefore.Add(-racyWindow).UnixNano(), files: files, unowned: map[string]bool{}}
	for _, d := range mp.dirs {
		root := d.root
		if d.mount {
			root = filepath.Join(d.root, engine.MountMemoryDir)
			if err := sc.file(d, filepath.Join(d.root, "MEMORY.md"), d.prefix+"MEMORY.md", nil); err != nil {
				return nil, nil, fmt.Errorf("reading %s: %w", d.root, err)
			}
		}
		err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				if p == root && errors.Is(err, fs.ErrNotExist) {
					return fs.SkipDir
				}
				return err
			}
			if p == root {
				return nil
			}
			if strings.HasPrefix(e.Name(), ".") {
				if e.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if e.IsDir() || !isNote(e.Name()) {
				return nil
			}
			r, _ := filepath.Rel(root, p)
			r = filepath.ToSlash(r)
			if d.mount && r == "MEMORY.md" {
				return nil // memory/MEMORY.md is not the journal's: the workspace root's is
			}
			return sc.file(d, p, d.prefix+r, e)
		})
		if err != nil {
			return nil, nil, fmt.Errorf("reading %s: %w", root, err)
		}
	}
	return files, sc.held, nil
}

// scanning is one scan's progress.
type scanning struct {
	mp      *mapping
	cache   map[string]StatEntry
	trust   int64 // stat entries of files modified before this are trusted
	files   map[string]*localFile
	held    []skipped
	unowned map[string]bool // task folders reported as not this project's
}

// file takes the note at p (portable path rel, found under d; e nil when
// it was not found by a walk: the file may be missing) into the scan.
func (sc *scanning) file(d dirMap, p, rel string, e fs.DirEntry) error {
	if e == nil {
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		e = fs.FileInfoToDirEntry(info)
	}
	if under, inner, _ := sc.mp.dirOf(rel); under.prefix != d.prefix {
		sc.held = append(sc.held, skipped{rel, fmt.Sprintf("%s is kept in place in the journal mounted at %s: this copy in %s is not that journal's, and is not synced", inner, under.root, d.root)})
		return nil
	}
	if inner := strings.TrimPrefix(rel, d.prefix); d.prefix == "task/" && !sc.mp.ownsTaskPath(inner) {
		folder, _, _ := strings.Cut(inner, "/")
		if !sc.unowned[folder] {
			sc.unowned[folder] = true
			sc.held = append(sc.held, skipped{"task/" + folder + "/", "a folder shaped like a task ID that is not this project's (register it in .magicfrog/config.json \"tasks\", or keep it shared): not synced"})
		}
		return nil
	}
	if !e.Type().IsRegular() {
		sc.held = append(sc.held, skipped{rel, "not a regular file (links are not synced)"})
		return nil
	}
	if engine.CheckImportPath(rel) != nil {
		sc.held = append(sc.held, skipped{rel, "a name that cannot travel (see mf-lsp import)"})
		return nil
	}
	info, err := e.Info()
	if err != nil {
		return err
	}
	size, mod := info.Size(), info.ModTime().UnixNano()
	if c, ok := sc.cache[rel]; ok && c.Size == size && c.ModNs == mod && mod < sc.trust {
		sc.files[rel] = &localFile{file: p, lock: d.lock, hash: plumbing.NewHash(c.Blob), rev: c.Revision, size: size, modNs: mod}
		return nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	if err := engine.CheckNote(b); err != nil {
		sc.held = append(sc.held, skipped{rel, err.Error()})
		return nil
	}
	if fm := frontmatter.Parse(b); fm.Has() {
		if mach, _ := fm.String("machine"); mach != "" {
			sc.held = append(sc.held, skipped{rel, "bound to machine " + mach + " (a device note in a chain dimension): device notes never leave the machine"})
			return nil
		}
	}
	sc.files[rel] = &localFile{file: p, lock: d.lock, content: b, hash: blobHash(b), rev: revision(b), size: size, modNs: mod}
	return nil
}
