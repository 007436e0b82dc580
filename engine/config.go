package engine

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/magicfrog/mf-lsp/engine/safefs"
)

// Layer is a path convention inside every dimension root (SPEC §4).
type Layer struct {
	Name   string `json:"name"`
	Prefix string `json:"prefix"`
	Kind   string `json:"kind,omitempty"` // "" or "fractal"
}

// KindFractal marks a layer that holds the journal (SPEC §6).
const KindFractal = "fractal"

// DefaultLayers exist even when layers.json does not.
var DefaultLayers = []Layer{{Name: "core", Prefix: ""}, {Name: "skills", Prefix: "skills/"}}

// Layers is the configured set, sorted longest prefix first so that the first
// match is the longest.
type Layers []Layer

// Match returns the layer of a key: the one with the longest matching prefix.
func (ls Layers) Match(key string) Layer { return *ls.match(key) }

// match is Match as a pointer into ls (or to the core layer), for the notes
// that share it.
func (ls Layers) match(key string) *Layer {
	for i := range ls {
		if strings.HasPrefix(key, ls[i].Prefix) {
			return &ls[i]
		}
	}
	return &coreLayer
}

// coreLayer is the layer of a key no configured prefix matches.
var coreLayer = Layer{Name: "core"}

// ByName finds a layer.
func (ls Layers) ByName(name string) (Layer, bool) {
	for _, l := range ls {
		if l.Name == name {
			return l, true
		}
	}
	return Layer{}, false
}

// IsSkills reports whether notes of l are a skill source.
func (l Layer) IsSkills() bool { return l.Name == "skills" }

// MaxConfigSize is the largest configuration file read (layers.json,
// magicfrog.json, config.json, machine-id): they hold a few IDs and prefixes.
const MaxConfigSize = 1 << 20

func readLayers(path string) (Layers, *Problem) {
	data, err := safefs.ReadFile(path, MaxConfigSize)
	return parseLayers(path, data, err)
}

// parseLayers reads layers.json's content (data and the error reading it
// gave) as readLayers does: path names the file in problems.
func parseLayers(path string, data []byte, err error) (Layers, *Problem) {
	ls := Layers(append([]Layer(nil), DefaultLayers...))
	if errors.Is(err, fs.ErrNotExist) {
		ls.sort()
		return ls, nil
	}
	if err != nil {
		ls.sort()
		return ls, &Problem{Path: path, Kind: ProblemConfig, Message: err.Error()}
	}
	var f struct {
		Layers []Layer `json:"layers"`
	}
	if fl, ok := decodeLayersFlat(data); ok {
		f.Layers = fl
	} else if err := json.Unmarshal(data, &f); err != nil {
		ls.sort()
		return ls, &Problem{Path: path, Kind: ProblemConfig, Message: "layers.json does not parse, using the default layers: " + err.Error()}
	}
	var bad []string
	for _, l := range f.Layers {
		if l.Name == "" || (l.Prefix != "" && !strings.HasSuffix(l.Prefix, "/")) || strings.HasPrefix(l.Prefix, "/") || strings.Contains(l.Prefix, "..") {
			bad = append(bad, fmt.Sprintf("%q", l.Name+":"+l.Prefix))
			continue
		}
		if l.Kind != "" && l.Kind != KindFractal {
			bad = append(bad, fmt.Sprintf("%q (unknown kind %q)", l.Name, l.Kind))
			continue
		}
		replaced := false
		for i := range ls {
			if ls[i].Name == l.Name {
				ls[i], replaced = l, true
			}
		}
		if !replaced {
			ls = append(ls, l)
		}
	}
	ls.sort()
	if bad != nil {
		return ls, &Problem{Path: path, Kind: ProblemConfig, Message: "layers.json: ignored layers " + strings.Join(bad, ", ") + ": a layer needs a name and a relative prefix ending in /"}
	}
	return ls, nil
}

func (ls Layers) sort() {
	sort.SliceStable(ls, func(i, j int) bool { return len(ls[i].Prefix) > len(ls[j].Prefix) })
}

// Binding is a project's .magicfrog/config.json.
type Binding struct {
	Task       string   `json:"task,omitempty"`
	Tasks      []string `json:"tasks,omitempty"`
	Agents     []string `json:"agents,omitempty"`
	Summarizer string   `json:"summarizer,omitempty"`
	// Promote is "auto" to have rollups write the lessons monthlies propose
	// into MEMORY.md (rollup --promote); "" or "review" leaves them proposed.
	Promote string `json:"promote,omitempty"`
	// Transcripts is a folder of session transcripts (absolute, "~/…", or
	// relative to the project) that day refines read besides the raw daily.
	Transcripts string `json:"transcripts,omitempty"`
	// Shared lists first folders of the task root that are shaped like a task
	// ID (python-3/, utf-8/) but hold notes every task shares: the "keep
	// shared" answer to the warning an unregistered task folder gets.
	Shared []string `json:"shared,omitempty"`
	// Journals are journals kept where an agent host already keeps them
	// (mf-lsp init --journal): each workspace's memory/ and MEMORY.md are
	// read and written in place as that dimension's journal.
	Journals []JournalMount `json:"journals,omitempty"`
}

// JournalMount is one journal kept in place: a Fractal or OpenClaw
// workspace (Path: absolute, or relative to the project) read as the journal
// of Dimension ("task" or "agent") and Scope (an agent ID; a task ID, or ""
// for the project's shared journal).
type JournalMount struct {
	Path      string `json:"path"`
	Dimension string `json:"dimension"`
	Scope     string `json:"scope,omitempty"`
}

// Journal is the journal layer: the fractal layer named "journal" when there
// is one, else the first fractal layer (longest prefix first, as keys are
// matched).
func (ls Layers) Journal() (Layer, bool) {
	var first *Layer
	for i := range ls {
		if ls[i].Kind != KindFractal {
			continue
		}
		if ls[i].Name == "journal" {
			return ls[i], true
		}
		if first == nil {
			first = &ls[i]
		}
	}
	if first == nil {
		return Layer{}, false
	}
	return *first, true
}

// mounts resolves the binding's journals against the project folder and the
// journal layer; an entry that cannot be used is a configuration problem and
// is left out (its files are then in no tree, as before the mount).
func (b Binding) mounts(project string, layers Layers) ([]Mount, []Problem) {
	if len(b.Journals) == 0 || project == "" {
		return nil, nil
	}
	file := filepath.Join(project, ".magicfrog", "config.json")
	bad := func(j JournalMount, why string) Problem {
		return Problem{Path: file, Kind: ProblemConfig, Message: fmt.Sprintf("config.json: journal %q not mounted: %s", j.Path, why)}
	}
	l, ok := layers.Journal()
	var out []Mount
	var probs []Problem
	for _, j := range b.Journals {
		d, err := ParseDimension(j.Dimension)
		switch {
		case !ok:
			probs = append(probs, bad(j, `no journal layer: add {"name": "journal", "prefix": "journal/", "kind": "fractal"} to layers.json`))
			continue
		case err != nil || (d != Agent && d != Task):
			probs = append(probs, bad(j, fmt.Sprintf("dimension %q: a journal is kept in place for task or agent", j.Dimension)))
			continue
		case d == Agent && j.Scope == "":
			probs = append(probs, bad(j, "an agent journal names its agent (scope)"))
			continue
		case j.Path == "":
			probs = append(probs, bad(j, "no path"))
			continue
		}
		if err := CheckOwnerID(j.Scope); err != nil {
			probs = append(probs, bad(j, err.Error()))
			continue
		}
		dir := j.Path
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(project, dir)
		}
		out = append(out, Mount{Dir: filepath.Clean(dir), Dimension: d, Owner: j.Scope, Prefix: l.Prefix})
	}
	return out, probs
}

// sameMounts reports whether a and b mount the same journals.
func sameMounts(a, b []Mount) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Roster is <data>/magicfrog.json.
type Roster struct {
	Agents []string `json:"agents"`
	// Shared lists first folders under agent/ that are meant for every agent:
	// the "keep shared" answer to the warning an unregistered folder gets.
	Shared []string `json:"shared,omitempty"`
	// History bounds the local history (engine/history.go).
	History *HistoryConfig `json:"history,omitempty"`
}

// readJSON decodes the file at path into v, which is zero; a file that is
// missing is no problem. A roster or binding takes its fast path first
// (flatjson.go).
func readJSON(path string, v any) *Problem {
	if path == "" {
		return nil
	}
	data, err := safefs.ReadFile(path, MaxConfigSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if f, ok := v.(interface{ decodeFlat([]byte) bool }); ok && err == nil && f.decodeFlat(data) {
		return nil // v was zero: what the fast path leaves on false
	}
	if err == nil {
		err = json.Unmarshal(data, v)
	}
	if err != nil {
		return &Problem{Path: path, Kind: ProblemConfig, Message: filepath.Base(path) + " does not parse: " + err.Error()}
	}
	return nil
}

// ReadMachineID returns this machine's id from <data>/machine-id, making one on
// first use: random, never the hostname. create=false only reads.
func ReadMachineID(p Paths, create bool) (string, error) {
	path := p.MachineIDFile()
	data, err := safefs.ReadFile(path, MaxConfigSize)
	if err == nil {
		id := strings.TrimSpace(string(data))
		if id == "" || strings.ContainsAny(id, " \t/\\\"<>&") {
			return "", fmt.Errorf("%s: not a machine id: %q", path, id)
		}
		return id, nil
	}
	if !errors.Is(err, fs.ErrNotExist) || !create {
		return "", err
	}
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	id := hex.EncodeToString(b)
	if err := os.MkdirAll(p.DataDir, 0o755); err != nil {
		return "", err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return ReadMachineID(p, false) // another process made it first
	}
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(id + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return id, err
}
