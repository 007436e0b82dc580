package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"strings"
	"sync/atomic"
	"time"

	"github.com/magicfrog/mf-lsp/engine/frontmatter"
)

// Entry is one note: a .md file in a dimension root (SPEC §2).
type Entry struct {
	Path      string // absolute, OS separators
	Root      string // the dimension root it was found under
	Dimension Dimension
	Scope     string // agent or task ID prefix; "" applies to every agent or task
	Key       string // slash-separated path inside the dimension root, ID prefix removed
	Layer     Layer
	Legacy    bool // read from machine/ or project/ in place
	Src       []byte
	Doc       *frontmatter.Document
	Hash      string // hex sha256 of Src, as the store checks it

	// Token counts + 1, 0 until counted: the body, and the block's element,
	// skill line and omitted line for this note.
	tokens, elemTokens, skillLineTokens, omitTokens atomic.Int32
	elem, omit                                      atomic.Pointer[string] // the block's <note> element and <omitted/> line
}

// Body is the note without its frontmatter.
func (e *Entry) Body() []byte { return e.Src[e.Doc.Body:] }

// Revision is the frontmatter revision; 0 for a note the engine never wrote.
func (e *Entry) Revision() int {
	n, ok := e.Doc.Int("revision")
	if !ok || n < 0 {
		return 0
	}
	return n
}

// Updated is the raw `updated` value ("" when missing).
func (e *Entry) Updated() string {
	s, _ := e.Doc.String("updated")
	return s
}

// UpdatedTime parses Updated as RFC 3339.
func (e *Entry) UpdatedTime() (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, e.Updated())
	return t, err == nil
}

// Machine is the device binding (SPEC §2); "" when unbound.
func (e *Entry) Machine() string {
	s, _ := e.Doc.String("machine")
	return s
}

// Meta returns a string frontmatter value such as a skill's name.
func (e *Entry) Meta(key string) string {
	s, _ := e.Doc.String(key)
	return s
}

// Ref is the entry's portable path: dimension, ID prefix and key, as export
// writes it and the <memory> block names skills ("agent/larry/notes/style.md").
func (e *Entry) Ref() string {
	if e.Scope != "" {
		return e.Dimension.String() + "/" + e.Scope + "/" + e.Key
	}
	return e.Dimension.String() + "/" + e.Key
}

// LayerKey is the key inside its layer ("journal/2026-11-30.md" → "2026-11-30.md").
func (e *Entry) LayerKey() string { return strings.TrimPrefix(e.Key, e.Layer.Prefix) }

func hashBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Location is where a path sits in the memory model, whether or not a note is
// there yet.
type Location struct {
	Root      Root
	Dimension Dimension
	Scope     string
	Key       string
	Layer     Layer
	Legacy    bool
}

// scopeIDs are the names a first folder must have to be an ID prefix.
type scopeIDs struct {
	agents map[string]bool // the roster
	tasks  map[string]bool // the project's task id and config tasks
}

// classify splits a slash path relative to a root into scope and key.
func (ids scopeIDs) classify(d Dimension, rel string) (scope, key string) {
	first, rest, ok := strings.Cut(rel, "/")
	if !ok {
		return "", rel
	}
	switch {
	case d == Agent && ids.agents[first], d == Task && ids.tasks[first]:
		return first, rest
	}
	return "", rel
}

// isNoteName reports whether a file name is read as a note: .md, not hidden.
func isNoteName(name string) bool {
	return !strings.HasPrefix(name, ".") && strings.EqualFold(path.Ext(name), ".md")
}
