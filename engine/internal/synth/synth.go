// Package synth writes synthetic memory trees for benchmarks: a data directory
// and a project with a realistic spread of notes over the five dimensions.
package synth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

// Tree is a generated tree and the names a scope needs.
type Tree struct {
	Root       string // holds data/ and project/
	DataDir    string
	ProjectDir string
	Notes      int      // notes written
	Bytes      int64    // bytes of notes written
	Task       string   // the project's task id (config task)
	Agents     []string // the roster
	Machine    string   // this machine's id (data/machine-id)
	Counts     map[string]int
}

// Spread is the share of notes per place; the rest are device notes.
const (
	shareAccount = 0.02
	shareUser    = 0.03
	shareShared  = 0.01 // agent/ notes for every agent
	shareRoster  = 0.40 // agent/<id>/ notes
	shareTask    = 0.40 // <project>/.magicfrog/memory/<task>/ notes
	// device: the remaining 14%
)

const (
	numAgents   = 1000
	numTasks    = 1000
	numMachines = 50
)

// Generate writes n notes below root (which should be empty) and returns the
// tree. It is deterministic: the same n gives the same tree.
func Generate(root string, n int) (*Tree, error) { return GenerateSized(root, n, 200, 600) }

// GenerateSized is Generate with each note's text after its frontmatter
// between minSize and maxSize bytes (uniformly). Generate's 200-600 gives
// the same tree as it always did.
func GenerateSized(root string, n, minSize, maxSize int) (*Tree, error) {
	if minSize < 1 || maxSize < minSize {
		return nil, fmt.Errorf("synth: note sizes %d-%d: want 1 <= min <= max", minSize, maxSize)
	}
	t := names(root)
	tasks := make([]string, numTasks)
	for i := range tasks {
		tasks[i] = taskID(i)
	}
	mem := filepath.Join(t.DataDir, "memory")
	taskRoot := filepath.Join(t.ProjectDir, ".magicfrog", "memory")
	roster, _ := json.Marshal(map[string]any{"agents": t.Agents})
	binding, _ := json.Marshal(map[string]any{"task": t.Task, "tasks": tasks[1:], "agents": []string{t.Agents[0]}})
	for path, data := range map[string][]byte{
		filepath.Join(t.DataDir, "magicfrog.json"):               roster,
		filepath.Join(t.DataDir, "machine-id"):                   []byte(t.Machine + "\n"),
		filepath.Join(t.ProjectDir, ".magicfrog", "config.json"): binding,
		filepath.Join(mem, "layers.json"):                        []byte(`{"layers": [{"name": "core", "prefix": ""}, {"name": "skills", "prefix": "skills/"}, {"name": "journal", "prefix": "journal/", "kind": "fractal"}]}`),
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return nil, err
		}
	}

	rng := rand.New(rand.NewPCG(uint64(n), 7))
	text := corpus(rng, max(64<<10, 2*maxSize))
	// Shared topic keys: about a third of the chain notes use one, so the same
	// key turns up in several dimensions and shadowing happens.
	topics := n / 20
	if topics < 10 {
		topics = 10
	}
	type file struct {
		path string
		data []byte
	}
	files := make([]file, 0, n)
	used := make(map[string]bool, n)
	dirs := map[string]bool{}
	for i := 0; i < n; i++ {
		var dir, key, place string
		r := rng.Float64()
		switch {
		case r < shareAccount:
			dir, place = filepath.Join(mem, "account"), "account"
		case r < shareAccount+shareUser:
			dir, place = filepath.Join(mem, "user"), "user"
		case r < shareAccount+shareUser+shareShared:
			dir, place = filepath.Join(mem, "agent"), "agent"
		case r < shareAccount+shareUser+shareShared+shareRoster:
			dir, place = filepath.Join(mem, "agent", agentID(rng.IntN(numAgents))), "agent/<id>"
		case r < shareAccount+shareUser+shareShared+shareRoster+shareTask:
			dir, place = filepath.Join(taskRoot, taskID(rng.IntN(numTasks))), "task/<id>"
		default:
			dir, place = filepath.Join(mem, "device"), "device"
		}
		fm := fmt.Sprintf("---\nrevision: %d\nupdated: 2026-%02d-%02dT%02d:%02d:00.000Z\n", 1+rng.IntN(9), 1+rng.IntN(12), 1+rng.IntN(28), rng.IntN(24), rng.IntN(60))
		switch {
		case place == "device":
			key = fmt.Sprintf("hosts/h%02d/n%06d.md", i%64, i)
			fm += "machine: " + machineID(rng.IntN(numMachines)) + "\n"
		case place == "user" && rng.IntN(10) == 0:
			key = fmt.Sprintf("skills/skill-%06d.md", i)
			fm += fmt.Sprintf("name: skill-%06d\ndescription: How to do thing %d well\n", i, i)
		case rng.IntN(3) == 0:
			key = fmt.Sprintf("topics/t%02d/topic-%06d.md", (i/7)%50, rng.IntN(topics))
		default:
			key = fmt.Sprintf("notes/g%02d/n%06d.md", i%100, i)
		}
		p := filepath.Join(dir, filepath.FromSlash(key))
		if used[p] {
			p = filepath.Join(dir, "notes", "dup", fmt.Sprintf("n%06d.md", i))
		}
		used[p] = true
		dirs[filepath.Dir(p)] = true
		size := minSize + rng.IntN(maxSize-minSize+1)
		off := rng.IntN(len(text) - size)
		data := make([]byte, 0, len(fm)+4+size+1)
		data = append(data, fm...)
		data = append(data, "---\n"...)
		data = append(data, text[off:off+size]...)
		data = append(data, '\n')
		files = append(files, file{p, data})
		t.Counts[place]++
		t.Bytes += int64(len(data))
	}
	for d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	next := make(chan int, len(files))
	for i := range files {
		next <- i
	}
	close(next)
	for w := 0; w < 4*runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := os.WriteFile(files[i].path, files[i].data, 0o644); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	t.Notes = len(files)
	return t, first
}

// names is the tree at root before any note is written.
func names(root string) *Tree {
	t := &Tree{
		Root:       root,
		DataDir:    filepath.Join(root, "data"),
		ProjectDir: filepath.Join(root, "project"),
		Task:       taskID(0),
		Machine:    machineID(0),
		Counts:     map[string]int{},
	}
	for i := 0; i < numAgents; i++ {
		t.Agents = append(t.Agents, agentID(i))
	}
	return t
}

// Describe is the tree Generate(root, n) wrote earlier, read back (its notes
// counted, not made again); Counts is left empty.
func Describe(root string, n int) (*Tree, error) {
	t := names(root)
	for _, r := range t.Roots() {
		err := filepath.WalkDir(r, func(p string, d fs.DirEntry, err error) error {
			if p == r && errors.Is(err, fs.ErrNotExist) {
				return nil // a small tree has no note in every root
			}
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(p, ".md") {
				info, err := d.Info()
				if err != nil {
					return err
				}
				t.Notes++
				t.Bytes += info.Size()
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if t.Notes != n {
		return nil, fmt.Errorf("%s holds %d notes, not the %d generated there", root, t.Notes, n)
	}
	return t, nil
}

func agentID(i int) string   { return fmt.Sprintf("agent-%04d", i) }
func taskID(i int) string    { return fmt.Sprintf("T-%04d", i) }
func machineID(i int) string { return fmt.Sprintf("machine-%02d", i) }

// corpus is at least size bytes (64 KiB unless notes are larger) of
// prose-like text to cut bodies from: words, sentences,
// an occasional Markdown heading, list item or code span.
func corpus(rng *rand.Rand, size int) string {
	words := strings.Fields(`the a to of and in is for on with that this it as be by are use run test
		build deploy review note memory agent task user account device prefer never always when before
		after because config file path api client server cache index query budget token render view
		layer skill journal weekly monthly daily refined sticky commit branch merge release rollback
		go node python yaml json markdown lint format error retry timeout latency throughput owner`)
	var b strings.Builder
	for b.Len() < size {
		switch rng.IntN(12) {
		case 0:
			b.WriteString("\n## ")
		case 1:
			b.WriteString("\n- ")
		case 2:
			b.WriteString(" `")
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteString("()` ")
		}
		n := 5 + rng.IntN(12)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		b.WriteString(". ")
	}
	return b.String()
}

// Roots are the tree's two memory roots: the data directory's and the
// project's task memory.
func (t *Tree) Roots() []string {
	return []string{filepath.Join(t.DataDir, "memory"), filepath.Join(t.ProjectDir, ".magicfrog", "memory")}
}

// Floor reads every note below roots the way a loader must — one walk, then a
// worker per CPU reading whole files — and splits off each frontmatter (finds
// where it ends), nothing more: the least any cold path that reads the tree
// can cost. It returns the notes whose frontmatter it found.
func Floor(roots []string) int { return floor(roots, nil) }

// ScopeFloor is Floor over what the binding's participant of the tree at
// root reads (render, mf-lsp mcp): every note but those in the folders of
// the registered agents and tasks other than its agent and task.
func ScopeFloor(root string) int {
	t := names(root)
	agents := filepath.Join(t.DataDir, "memory", "agent")
	tasks := filepath.Join(t.ProjectDir, ".magicfrog", "memory")
	return floor(t.Roots(), func(dir string) bool {
		parent, id := filepath.Dir(dir), filepath.Base(dir)
		switch parent {
		case agents:
			return id != t.Agents[0] && strings.HasPrefix(id, "agent-")
		case tasks:
			return id != t.Task && strings.HasPrefix(id, "T-")
		}
		return false
	})
}

// floor reads the notes below roots, skipping the folders skip names.
func floor(roots []string, skip func(dir string) bool) int {
	var paths []string
	for _, r := range roots {
		filepath.WalkDir(r, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() && skip != nil && skip(p) {
				return fs.SkipDir
			}
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
				paths = append(paths, p)
			}
			return nil
		})
	}
	next := make(chan int, len(paths))
	for i := range paths {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	var found atomic.Int64
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 0
			for i := range next {
				src, err := os.ReadFile(paths[i])
				if err != nil {
					continue
				}
				if bytes.HasPrefix(src, []byte("---\n")) && bytes.Index(src[3:], []byte("\n---\n")) >= 0 {
					n++
				}
			}
			found.Add(int64(n))
		}()
	}
	wg.Wait()
	return int(found.Load())
}
