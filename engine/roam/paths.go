package roam

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
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
	// dirs maps a top folder of the portable tree ("user/", "task/T-7/") to the
	// local root it mirrors.
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
}

// newMapping decides what roams: the data directory's account, user and agent
// roots, the roster, layers.json and, when the project is bound to a task and
// its own git repository does not track .magicfrog/, its task root under
// task/<ID>/.
func newMapping(m *engine.Memory) *mapping {
	p := m.Paths
	mp := &mapping{paths: p}
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
		if tracked, where := gitTracksMagicfrog(p.ProjectDir); tracked {
			mp.taskNote = fmt.Sprintf("the project's git repository (%s) tracks .magicfrog/: task notes roam with the project, not through sync", where)
			break
		}
		mp.task = task
		mp.dirs = append(mp.dirs, dirMap{prefix: "task/" + task + "/", root: p.TaskDir(), lock: p.TaskDir()})
	}
	return mp
}

// owns reports whether a portable path is in this machine's sync set: paths
// outside it (other projects' tasks, files other tools keep in the remote)
// are carried along untouched.
func (mp *mapping) owns(rel string) bool {
	if rel == rosterPath || rel == layersPath {
		return true
	}
	for _, d := range mp.dirs {
		if strings.HasPrefix(rel, d.prefix) {
			return true
		}
	}
	return false
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
	for _, d := range mp.dirs {
		if inner, found := strings.CutPrefix(rel, d.prefix); found && inner != "" {
			return filepath.Join(d.root, filepath.FromSlash(inner)), d.lock, true
		}
	}
	return "", "", false
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

// scan reads the sync set from disk: every note below the mapped roots, the
// roster and layers.json. Files that are not notes (links, binary, too
// large, hidden) are not part of it; notes that must not leave the machine
// (a machine binding) are reported in held.
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
	for _, d := range mp.dirs {
		err := filepath.WalkDir(d.root, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				if p == d.root && errors.Is(err, fs.ErrNotExist) {
					return fs.SkipDir
				}
				return err
			}
			if p == d.root {
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
			r, _ := filepath.Rel(d.root, p)
			rel := d.prefix + filepath.ToSlash(r)
			if !e.Type().IsRegular() {
				held = append(held, skipped{rel, "not a regular file (links are not synced)"})
				return nil
			}
			if engine.CheckImportPath(rel) != nil {
				held = append(held, skipped{rel, "a name that cannot travel (see mf-lsp import)"})
				return nil
			}
			info, err := e.Info()
			if err != nil {
				return err
			}
			size, mod := info.Size(), info.ModTime().UnixNano()
			if c, ok := cache[rel]; ok && c.Size == size && c.ModNs == mod && mod < trustBefore.Add(-racyWindow).UnixNano() {
				files[rel] = &localFile{file: p, lock: d.lock, hash: plumbing.NewHash(c.Blob), rev: c.Revision, size: size, modNs: mod}
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if err := engine.CheckNote(b); err != nil {
				held = append(held, skipped{rel, err.Error()})
				return nil
			}
			if d := frontmatter.Parse(b); d.Has() {
				if mach, _ := d.String("machine"); mach != "" {
					held = append(held, skipped{rel, "bound to machine " + mach + " (a device note in a chain dimension): device notes never leave the machine"})
					return nil
				}
			}
			files[rel] = &localFile{file: p, lock: d.lock, content: b, hash: blobHash(b), rev: revision(b), size: size, modNs: mod}
			return nil
		})
		if err != nil {
			return nil, nil, fmt.Errorf("reading %s: %w", d.root, err)
		}
	}
	return files, held, nil
}
