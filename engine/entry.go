package engine

import (
	"encoding/hex"
	"path"
	"strings"
	"sync/atomic"
	"time"

	"github.com/magicfrog/mf-lsp/engine/frontmatter"
)

// Note is one note: a .md file in a dimension root (SPEC §2).
type Note struct {
	Path      string // absolute, OS separators
	Root      string // the dimension root it was found under
	Dimension Dimension
	Owner     string // agent or task ID prefix; "" applies to every agent or task
	Key       string // slash-separated path inside the dimension root, ID prefix removed
	Layer     Layer
	Legacy    bool // read from machine/ or project/ in place
	// Unregistered marks a note under a first folder that is neither an ID nor
	// shared (SPEC §2): Scope holds that folder, and only a scope that names it
	// sees the note; every other block leaves it out visibly.
	Unregistered bool
	Src          []byte
	Doc          *frontmatter.Document
	// sum is the SHA-256 of Src; Hash spells it in hex only when asked (the
	// hex string took 80 bytes a note, kept for every note of the tree).
	sum [32]byte

	// Token counts + 1, 0 until counted: the body, and the block's element,
	// skill line and omitted line for this note.
	tokens, elemTokens, skillLineTokens, omitTokens atomic.Int32
	elem, omit                                      atomic.Pointer[string] // the block's <note> element and <omitted/> line
}

// Hash is the hex SHA-256 of Src, as the store checks it.
func (e *Note) Hash() string { return hex.EncodeToString(e.sum[:]) }

// Sum is the SHA-256 of Src, for comparing contents without spelling them.
func (e *Note) Sum() [32]byte { return e.sum }

// Body is the note without its frontmatter.
func (e *Note) Body() []byte { return e.Src[e.Doc.Body:] }

// Revision is the frontmatter revision; 0 for a note the engine never wrote.
func (e *Note) Revision() int {
	n, ok := e.Doc.Int("revision")
	if !ok || n < 0 {
		return 0
	}
	return n
}

// Updated is the raw `updated` value ("" when missing).
func (e *Note) Updated() string {
	s, _ := e.Doc.String("updated")
	return s
}

// UpdatedTime parses Updated as RFC 3339.
func (e *Note) UpdatedTime() (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, e.Updated())
	return t, err == nil
}

// Machine is the device binding (SPEC §2); "" when unbound.
func (e *Note) Machine() string {
	s, _ := e.Doc.String("machine")
	return s
}

// Meta returns a string frontmatter value such as a skill's name.
func (e *Note) Meta(key string) string {
	s, _ := e.Doc.String(key)
	return s
}

// Ref is the note's portable path: dimension, ID prefix and key, as export
// writes it and the <memory> block names skills ("agent/larry/notes/style.md").
func (e *Note) Ref() string { return Ref(e.Dimension, e.Owner, e.Key) }

// LayerKey is the key inside its layer ("journal/2026-11-30.md" → "2026-11-30.md").
func (e *Note) LayerKey() string { return strings.TrimPrefix(e.Key, e.Layer.Prefix) }

// Location is where a path sits in the memory model, whether or not a note is
// there yet.
type Location struct {
	Root      Root
	Dimension Dimension
	Owner     string
	Key       string
	Layer     Layer
	Legacy    bool
	// Unregistered: Scope is a first folder that is neither an ID nor shared.
	Unregistered bool
}

// ownerIDs are what a first folder under agent/ or the task root can be: an
// ID, a shared folder, or neither (unregistered; SPEC §2).
type ownerIDs struct {
	agents map[string]bool // the roster, and agents the session's scope names
	tasks  map[string]bool // the project's task, its tasks list, and the scope's task
	shared map[string]bool // magicfrog.json "shared": first folders under agent/ for every agent
	layers map[string]bool // first folders of layer prefixes (skills, journal): shared in every dimension
}

// classify splits a slash path relative to a root into scope and key, and says
// whether the scope is unregistered. A first folder that is an ID is the scope.
// One that is neither an ID nor shared is unregistered: it still becomes the
// scope (so that no one else's view can hold it) and the note is marked, so the
// block leaves it out visibly and no write may add to it. Under agent/ that is
// any first folder not on the roster, not shared and not a layer's; in the task
// root only one shaped like a task ID (letters, dash, digits): notes/, style/
// and journal/ there are the shared task notes they always were.
func (ids ownerIDs) classify(d Dimension, rel string) (scope, key string, unregistered bool) {
	first, rest, ok := strings.Cut(rel, "/")
	if !ok {
		return "", rel, false
	}
	switch d {
	case Agent:
		switch {
		case ids.agents[first]:
			return first, rest, false
		case ids.shared[first] || ids.layers[first]:
			return "", rel, false
		}
		return first, rest, true
	case Task:
		switch {
		case ids.tasks[first]:
			return first, rest, false
		case looksLikeTaskID(first) && !ids.layers[first]:
			return first, rest, true
		}
	}
	return "", rel, false
}

// looksLikeTaskID reports whether a first folder of the task root is shaped like
// a task ID: letters (and digits after the first), a dash, digits ("T-7",
// "PROJ-1234"). Such a folder is never read as shared task notes: unless it is
// registered it is unregistered.
func looksLikeTaskID(s string) bool {
	dash := strings.LastIndexByte(s, '-')
	if dash < 1 || dash == len(s)-1 {
		return false
	}
	for i, r := range s[:dash] {
		isLetter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !isLetter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	for _, r := range s[dash+1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// layerFolders are the first folders of the layers' prefixes.
func layerFolders(ls Layers) map[string]bool {
	out := map[string]bool{}
	for _, l := range ls {
		if first, _, ok := strings.Cut(l.Prefix, "/"); ok && first != "" {
			out[first] = true
		}
	}
	return out
}

// isNoteName reports whether a file name is read as a note: .md, not hidden.
func isNoteName(name string) bool {
	return !strings.HasPrefix(name, ".") && strings.EqualFold(path.Ext(name), ".md")
}
