package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/magicfrog/mf-lsp/engine/frontmatter"
	"github.com/magicfrog/mf-lsp/engine/safefs"
)

// Note is one note: a .md file in a dimension root (SPEC §2).
//
// A loaded tree keeps one per file, so what it holds is counted: at 100,000
// notes each byte of it is 100 KB of every process that loads the tree. Its
// frontmatter is kept as the few values the engine reads of every note (front);
// Doc parses the whole block again for the rarer reader that needs it.
type Note struct {
	Path  string // absolute, OS separators
	Root  string // the dimension root it was found under
	Owner string // agent or task ID prefix; "" applies to every agent or task
	Key   string // slash-separated path inside the dimension root, ID prefix removed
	// Layer is the layer Key falls in, shared by every note of that layer (a
	// 48-byte copy in every note was 4.8 MB at 100,000 notes): read it, never
	// write through it.
	Layer *Layer
	// src is the note's text (Text), or, for a note loaded with
	// Options.BodiesOnDemand larger than ResidentMax, its frontmatter only
	// (the text up to BodyStart): Text reads the whole again from the disk.
	src  []byte
	size int32 // the whole text's length
	// od is how a text kept in part is read again; nil when src is the
	// whole text (a resident note pays no more than the pointer).
	od *onDemand
	// sum is the SHA-256 of the text; Hash spells it in hex only when asked
	// (the hex string took 80 bytes a note, kept for every note of the tree).
	// It is taken at the first Sum (sumOnce): a note kept whole has its text
	// to hash, a command that never asks (render) hashes nothing, and a note
	// whose text is dropped is hashed before (dropBody).
	sum       [32]byte
	sumOnce   sync.Once
	front     front
	Dimension Dimension
	Legacy    bool // read from machine/ or project/ in place
	// Mounted: read from a journal kept in place (Binding.Journals), whose
	// host may keep its files without frontmatter.
	Mounted bool
	// Unregistered marks a note under a first folder that is neither an ID nor
	// shared (SPEC §2): Scope holds that folder, and only a scope that names it
	// sees the note; every other block leaves it out visibly.
	Unregistered bool
	// noLinks: read on demand, its body holds none of what a Markdown link
	// or wikilink needs ("](", "]:", "[["), as the load saw (MayLink).
	noLinks bool

	// counts are the note's token counts and block lines, made when first
	// counted: most notes of a language server's tree never are, and kept in
	// every note they took 32 bytes of it.
	counts atomic.Pointer[noteCounts]
}

// front is what the engine reads of every note's frontmatter, in 32 bytes:
// the parsed Document it comes from took about 330 (the Document, its fields,
// their boxed values), 33 MB at 100,000 notes. Offsets fit in 32 bits: a note
// is at most MaxNoteSize.
type front struct {
	body             int32  // offset of the first body byte
	revision         int32  // Revision
	updated, machine span32 // Updated and Machine, as the bytes of Src they are
	// rare holds the values as decoded when they are not that: a revision
	// past 32 bits, a quoted or escaped updated or machine.
	rare *frontValues
}

// span32 is a byte range [start, end) of a note's source.
type span32 struct{ start, end int32 }

func (s span32) of(src []byte) []byte { return src[s.start:s.end] }

type frontValues struct {
	revision         int
	updated, machine string
}

// frontOf keeps what the engine reads of src's frontmatter, as Parse's
// Document says it: the first revision that is a whole number of 0 or more,
// the first updated and machine that are strings. The flat frontmatter the
// engine writes is read in place (frontmatter.PeekFlat), which leaves no
// garbage behind for the load; any other is parsed whole.
func frontOf(src []byte) front {
	const revisionAt, updatedAt, machineAt = 0, 1, 2
	var first [3]frontmatter.FlatField // of revision, updated and machine
	var seen [3]bool
	body, flat := frontmatter.PeekFlat(src, func(fl frontmatter.FlatField) {
		i := -1
		switch string(fl.Key.Of(src)) {
		case "revision":
			i = revisionAt
		case "updated":
			i = updatedAt
		case "machine":
			i = machineAt
		}
		if i >= 0 && !seen[i] {
			first[i], seen[i] = fl, true
		}
	})
	if !flat {
		return frontOfDoc(src, frontmatter.Parse(src))
	}
	revision, updated, machine := first[revisionAt], first[updatedAt], first[machineAt]
	f := front{body: int32(body)}
	if seen[revisionAt] && revision.IsInt {
		if revision.Int > math.MaxInt32 { // flat integers have 18 digits at most
			f.rare = &frontValues{revision: revision.Int}
		} else {
			f.revision = int32(revision.Int)
		}
	}
	// A flat value that is not an integer is a string, exactly its bytes.
	if seen[updatedAt] && !updated.IsInt {
		f.updated = span32{int32(updated.Value.Start), int32(updated.Value.End)}
	}
	if seen[machineAt] && !machine.IsInt {
		f.machine = span32{int32(machine.Value.Start), int32(machine.Value.End)}
	}
	if f.rare != nil {
		f.rare.updated, f.rare.machine = string(f.updated.of(src)), string(f.machine.of(src))
	}
	return f
}

// frontOfDoc is frontOf from d, src's parsed frontmatter.
func frontOfDoc(src []byte, d *frontmatter.Document) front {
	f := front{body: int32(d.Body)}
	revision, ok := d.Int("revision")
	if !ok || revision < 0 {
		revision = 0
	}
	updated, _ := d.String("updated")
	machine, _ := d.String("machine")
	// A plain value is its bytes; a quoted or escaped one is not.
	inSrc := func(key, value string) (span32, bool) {
		if value == "" {
			return span32{}, true
		}
		vs := d.Field(key).ValueSpan
		return span32{int32(vs.Start), int32(vs.End)}, string(src[vs.Start:vs.End]) == value
	}
	var plainUpdated, plainMachine bool
	f.updated, plainUpdated = inSrc("updated", updated)
	f.machine, plainMachine = inSrc("machine", machine)
	if revision > math.MaxInt32 || !plainUpdated || !plainMachine {
		return front{body: f.body, rare: &frontValues{revision: revision, updated: updated, machine: machine}}
	}
	f.revision = int32(revision)
	return f
}

// setSrc makes src the note's source: its frontmatter's values and its hash.
func (e *Note) setSrc(src []byte) {
	e.src, e.size, e.od = src, int32(len(src)), nil
	e.front = frontOf(src)
}

// ResidentMax is the largest note whose whole text a tree loaded with
// Options.BodiesOnDemand keeps: below it, reading the file again costs more
// than the bytes kept (a read through the memory root is an open per folder
// of the path, a read, and a SHA-256 unless its stamp is trusted), and most
// notes an agent writes are that small. A larger note keeps its frontmatter
// (Doc, Updated, Machine and Revision need no read) and its hash.
const ResidentMax = 4096

// dropBody keeps of e, read from its file in m with the stamp st, only the
// frontmatter when the whole is larger than ResidentMax. A note whose
// frontmatter Parse could not read alone keeps its text: one that opens a
// block it does not close (the whole note is then body, and the opening
// line the error).
func (e *Note) dropBody(m *Memory, st safefs.Stamp) {
	body := int(e.front.body)
	if len(e.src) <= ResidentMax || body <= len(frontmatterBOM) && bytes.HasPrefix(bytes.TrimPrefix(e.src, frontmatterBOM), []byte("---")) {
		return
	}
	// The hash a text read again is checked against when its stamp is not
	// trusted, and the one the history's keep pass looks the version up by
	// (KeepLoaded): it is taken now, while the text is at hand, unless the
	// load leaves it to Sum (Options.SumsOnDemand) and the stamp is trusted.
	od := &onDemand{mem: m, stamp: m.trustedStamp(st, int(e.size))}
	if od.unhashed = m.sumsLater && od.stamp.Known(); !od.unhashed {
		e.Sum()
	}
	if !m.sumsLater {
		// A load that leaves sums to Sum is a command's that indexes no links
		// (render): three more passes over every body would be for nothing,
		// and a note left MayLink is only read again.
		b := e.src[body:]
		e.noLinks = !bytes.Contains(b, []byte("](")) && !bytes.Contains(b, []byte("]:")) && !bytes.Contains(b, []byte("[["))
	}
	e.src, e.od = bytes.Clone(e.src[:body]), od
}

// MayLink reports whether the note's body may hold a link (mdlinks: an
// inline or reference link, a wikilink). False only for a note read on
// demand whose body, at load, had none of the bytes one needs: an index of
// links skips it without reading it again.
func (e *Note) MayLink() bool { return !e.noLinks }

var frontmatterBOM = []byte("\xef\xbb\xbf")

// Resident reports whether the note's whole text is kept in memory (Text
// then never reads the disk).
func (e *Note) Resident() bool { return e.od == nil }

// Size is the length of the note's text in bytes.
func (e *Note) Size() int { return int(e.size) }

// Text is the note's text. A resident note's is at hand; any other's is
// read from its file through the memory root (no link followed, as the
// load reads) and must be what the load read: the same file stamp, old
// enough when the load read it, or else the same hash (Sum). When it is
// not, or cannot be read, the note changed behind the tree's back, and Text
// answers a *ChangedError (errcode.Stale) and has the tree refresh the note
// as its watcher would (Memory.SetOnStale), never the text that was.
func (e *Note) Text() ([]byte, error) {
	if e.od == nil {
		return e.src, nil
	}
	return e.od.mem.readText(e)
}

// TextOrNil is Text's text, nil when Text fails (the note changed on disk
// since the load; the tree is told): for a reader that leaves such a note
// out rather than answer from a text that is no longer there.
func (e *Note) TextOrNil() []byte {
	src, err := e.Text()
	if err != nil {
		return nil
	}
	return src
}

// BodyOrNil is Body's body, nil when Body fails (TextOrNil).
func (e *Note) BodyOrNil() []byte {
	body, err := e.Body()
	if err != nil {
		return nil
	}
	return body
}

// quietText is Text telling no one of a change: for the tree's own reads
// while it refreshes.
func (e *Note) quietText() ([]byte, error) {
	if e.od == nil {
		return e.src, nil
	}
	return e.od.mem.readTextQuiet(e)
}

// LooseNote is the Markdown file at path read outside every memory tree: its
// source and frontmatter, and no dimension, owner, key or layer (the zero
// Layer).
func LooseNote(path string, src []byte) *Note {
	e := &Note{Path: path, Layer: &Layer{}}
	e.setSrc(src)
	return e
}

// Hash is the hex SHA-256 of the text, as the store checks it.
func (e *Note) Hash() string { sum := e.Sum(); return hex.EncodeToString(sum[:]) }

// Sum is the SHA-256 of the text, for comparing contents without spelling them.
func (e *Note) Sum() [32]byte {
	e.sumOnce.Do(func() {
		if e.od != nil && e.od.unhashed {
			e.sum = e.od.mem.sumAgain(e)
			return
		}
		e.sum = sha256.Sum256(e.src)
	})
	return e.sum
}

// TextSum is Text and Sum from one read: a note the load did not hash
// (Options.SumsOnDemand) is read once, not once for its text and once more
// for its hash. The bytes a read answers are the load's (Text answers an
// unhashed note's only when its file has the load's trusted stamp), so
// their hash is the load's.
func (e *Note) TextSum() ([]byte, [32]byte, error) {
	src, err := e.Text()
	if err != nil {
		return nil, [32]byte{}, err
	}
	e.sumOnce.Do(func() {
		if e.od != nil {
			onDemandHashes.Add(1)
		}
		e.sum = sha256.Sum256(src)
	})
	return src, e.sum, nil
}

// SumAtHand is Sum when it reads nothing: false for a note the load did
// not hash (Options.SumsOnDemand), whose Sum reads its file again.
func (e *Note) SumAtHand() ([32]byte, bool) {
	if e.od != nil && e.od.unhashed {
		return [32]byte{}, false
	}
	return e.Sum(), true
}

// TrustedStamp is the stamp of the note's file as the load read it, when a
// file found with it again holds the load's bytes (both its times older
// than the load's start by a margin: any write since moves the change
// time); the zero Stamp for a resident note, or when the load could not
// trust it. A derived copy keyed by it (the stored search index) may take
// the file for the one it analyzed without reading it.
func (e *Note) TrustedStamp() safefs.Stamp {
	if e.od == nil {
		return safefs.Stamp{}
	}
	return e.od.stamp
}

// Doc parses the note's frontmatter: the whole Document, with every field,
// span and error. The note keeps only what the engine reads of every note
// (Body, Revision, Updated, Machine), so each call parses the text again
// (about 2.5 µs for the four flat fields the engine writes on a skill): a
// caller that reads it more than once keeps the result. The frontmatter is
// always resident: Doc never reads the disk.
func (e *Note) Doc() *frontmatter.Document { return frontmatter.Parse(e.src) }

// BodyStart is the offset of the first body byte in the text.
func (e *Note) BodyStart() int { return int(e.front.body) }

// Body is the note without its frontmatter; its error is Text's.
func (e *Note) Body() ([]byte, error) {
	src, err := e.Text()
	if err != nil {
		return nil, err
	}
	return src[e.front.body:], nil
}

// Revision is the frontmatter revision; 0 for a note the engine never wrote
// (no revision, or one that is not a whole number of 0 or more).
func (e *Note) Revision() int {
	if r := e.front.rare; r != nil {
		return r.revision
	}
	return int(e.front.revision)
}

// Updated is the raw `updated` value ("" when missing).
func (e *Note) Updated() string {
	if r := e.front.rare; r != nil {
		return r.updated
	}
	return string(e.front.updated.of(e.src))
}

// UpdatedTime parses Updated as RFC 3339.
func (e *Note) UpdatedTime() (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, e.Updated())
	return t, err == nil
}

// Machine is the device binding (SPEC §2); "" when unbound.
func (e *Note) Machine() string {
	if r := e.front.rare; r != nil {
		return r.machine
	}
	return string(e.front.machine.of(e.src))
}

// Meta returns a string frontmatter value such as a skill's name. It parses
// the frontmatter (Doc): for more than one value, read them from one Doc.
func (e *Note) Meta(key string) string {
	s, _ := e.Doc().String(key)
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
	agents idSet           // the roster, and agents the session's scope names
	tasks  idSet           // the project's task, its tasks list, and the scope's task
	shared map[string]bool // magicfrog.json "shared": first folders under agent/ for every agent
	// taskShared: the project's config.json "shared": first folders of the task
	// root shaped like a task ID that hold notes every task shares.
	taskShared map[string]bool
	layers     map[string]bool // first folders of layer prefixes (skills, journal): shared in every dimension
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
		case ids.agents.has(first):
			return first, rest, false
		case ids.shared[first] || ids.layers[first]:
			return "", rel, false
		}
		return first, rest, true
	case Task:
		switch {
		case ids.tasks.has(first):
			return first, rest, false
		case looksLikeTaskID(first) && !ids.layers[first] && !ids.taskShared[first]:
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
