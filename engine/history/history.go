// Package history is the local history of a memory root (SPEC §7, "Local
// history"; docs/cli.md#history): every version of a note that the engine
// wrote or saw, kept append-only and content-addressed in
// <root>/.mf-lsp/history, next to the store's lock.
//
// Versions are git blobs in a bare repository's object store (objects.go,
// through go-git's format packages: a blob's id is the hash of its content, so a version
// seen twice is stored once, and `git --git-dir <root>/.mf-lsp/history
// cat-file -p ID` reads one). Each note has an append-only log,
// log/<path in the root>.log, one JSON line per event (written, observed,
// deleted, overwrite). Overwrites nobody asked for that are still open are in
// overwrites.json, what the diagnostics read; sums names the logged versions
// by their SHA-256 (sums.go). The history is bounded by a
// Policy (age and size); the newest version of every note, and every version
// an open overwrite names, are never pruned. A version is stored loose (a
// file each); a prune packs the loose versions it keeps into new packs of
// bounded size (pack).
package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/magicfrog/mf-lsp/engine/safefs"
	"github.com/magicfrog/mf-lsp/engine/store"
)

// How an entry came into the log.
const (
	Written   = "written"   // the engine wrote this version
	Observed  = "observed"  // the engine saw it on disk (loaded, changed, or about to be replaced)
	Deleted   = "deleted"   // the note was removed
	Overwrote = "overwrite" // this version replaced a newer one (Entry.Lost) without descending from it
)

// Entry is one line of a note's log.
type Entry struct {
	Time     time.Time `json:"t"`
	How      string    `json:"how"`
	Revision int       `json:"rev"`
	Blob     string    `json:"blob,omitempty"`
	// Lost and LostRevision name the version an overwrite replaced.
	Lost         string `json:"lost,omitempty"`
	LostRevision int    `json:"lostRev,omitempty"`
}

// Overwrite is an open overwrite of one note: a version (Blob, Revision)
// replaced a version (Lost, LostRevision) it does not descend from. It stays
// open until the version lost is back, or a version above both revisions is
// recorded (restore, merge, keep).
type Overwrite struct {
	Path         string    `json:"path"` // the note's path in the root, slash-separated
	Revision     int       `json:"rev"`
	Blob         string    `json:"blob"`
	Lost         string    `json:"lost"`
	LostRevision int       `json:"lostRev"`
	Base         string    `json:"base,omitempty"` // what the overwriting version was based on, when the history holds it
	By           string    `json:"by"`             // "disk": seen on disk; "write": a write without the content hash
	Time         time.Time `json:"t"`
}

// Policy bounds a root's history: versions older than MaxAge go, then the
// oldest go until the objects take at most MaxBytes. The newest version of
// every note, and every version an open overwrite names, stay.
type Policy struct {
	MaxAge   time.Duration
	MaxBytes int64
}

// DefaultPolicy keeps 90 days and at most 256 MiB per memory root.
var DefaultPolicy = Policy{MaxAge: 90 * 24 * time.Hour, MaxBytes: 256 << 20}

// PruneEvery is how often recording prunes a root's history by its policy.
const PruneEvery = 24 * time.Hour

// Store is the history of one memory root. One per root and process (For).
type Store struct {
	root, dir string

	mu     sync.Mutex
	objMu  sync.Mutex // guards obj
	obj    objects
	made   bool // the repository is there (storage)
	policy Policy
	// held is the root an underShared opened for the calls it makes
	// (holdRoot), heldRefs its users; heldMu guards both.
	heldMu   sync.Mutex
	held     *os.Root
	heldRefs int
	ow       cachedOverwrites
	logs     logCache
}

type cachedOverwrites struct {
	size int64
	mod  time.Time
	m    map[string]Overwrite
}

var stores = struct {
	sync.Mutex
	m map[string]*Store
}{m: map[string]*Store{}}

// DirOf is the history folder of a memory root.
func DirOf(root string) string { return filepath.Join(root, store.LockDir, "history") }

// For is the history of the memory root (<data>/memory or a project's
// .magicfrog/memory), created on the first record.
func For(root string) *Store {
	root = filepath.Clean(root)
	stores.Lock()
	defer stores.Unlock()
	s, ok := stores.m[root]
	if !ok {
		s = &Store{root: root, dir: DirOf(root), policy: DefaultPolicy}
		stores.m[root] = s
	}
	return s
}

// SetPolicy sets the bounds prune uses; zero fields keep the default's.
func (s *Store) SetPolicy(p Policy) {
	if p.MaxAge <= 0 {
		p.MaxAge = DefaultPolicy.MaxAge
	}
	if p.MaxBytes <= 0 {
		p.MaxBytes = DefaultPolicy.MaxBytes
	}
	s.mu.Lock()
	s.policy = p
	s.mu.Unlock()
}

// Dir is the store's folder.
func (s *Store) Dir() string { return s.dir }

// storage checks that the repository is there, and on the first call with
// create makes it.
func (s *Store) storage(create bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.made {
		return nil
	}
	if _, err := s.stat("HEAD"); err != nil {
		if !create {
			return fs.ErrNotExist
		}
		if err := s.makeDir(); err != nil {
			return err
		}
		r, done, err := s.openRoot()
		if err != nil {
			return err
		}
		defer done()
		if err := initBare(r); err != nil {
			return fmt.Errorf("history: %w", err)
		}
	}
	s.made = true
	return nil
}

// makeDir makes <root>/.mf-lsp/history, with the .mf-lsp folder's
// .gitignore of "*" when the store's lock has not made it yet: the history
// is never committed by a repository the root is in.
func (s *Store) makeDir() error {
	// A folder Lstat finds is one MkdirAll would find and leave (its Stat):
	// only a missing one is made (an append asks about five times).
	lockDir := filepath.Join(s.root, store.LockDir)
	fi, err := os.Lstat(lockDir)
	if err == nil && !fi.IsDir() {
		return fmt.Errorf("history: %s is not a folder", lockDir)
	}
	if err != nil {
		if err := os.MkdirAll(lockDir, 0o755); err != nil {
			return err
		}
	}
	if f, err := os.OpenFile(filepath.Join(lockDir, ".gitignore"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); err == nil {
		_, _ = f.WriteString("# mf-lsp's write lock and local history: never committed.\n*\n")
		f.Close()
	}
	fi, err = os.Lstat(s.dir)
	if err == nil && !fi.IsDir() {
		return fmt.Errorf("history: %s is not a folder", s.dir)
	}
	if err == nil {
		return nil
	}
	return os.MkdirAll(s.dir, 0o755)
}

// openRoot opens the history folder as an os.Root, after checking that
// neither it nor <root>/.mf-lsp is a link: every file of the history is
// reached through it, so a tree that plants links there (a cloned project)
// never has a file written or read outside the folder.
//
// While an underShared holds the history's lock, the root it opened serves
// every openRoot (holdRoot): an append opened the folder, each time after
// its two checks, 27 times. done ends the caller's use (Close for a root of
// its own).
func (s *Store) openRoot() (r *os.Root, done func(), err error) {
	s.heldMu.Lock()
	if s.held != nil {
		s.heldRefs++
		r = s.held
		s.heldMu.Unlock()
		return r, s.releaseRoot, nil
	}
	s.heldMu.Unlock()
	if r, err = s.openRootNow(); err != nil {
		return nil, nil, err
	}
	return r, func() { r.Close() }, nil
}

// openRootNow is openRoot's own open: <root>/.mf-lsp, then its history
// folder, each refused when it is a link or is swapped for one while it is
// opened (safefs.OpenRoot, safefs.OpenRootIn): a check by path followed by
// an open by path would follow a link planted in between.
func (s *Store) openRootNow() (*os.Root, error) {
	parent, err := safefs.OpenRoot(filepath.Join(s.root, store.LockDir))
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer parent.Close()
	r, err := safefs.OpenRootIn(parent, filepath.Base(s.dir))
	if err != nil {
		return nil, fmt.Errorf("history: %s: %w", s.dir, err)
	}
	return r, nil
}

// Hold keeps the history's folder open for every use of the store until
// release, as holdRoot does for one judgement: a write's record (Replaced,
// Wrote, PruneDue, the overwrites file) opened it, each time after its two
// checks, five times. When the folder is not there yet (the first version
// is being kept) each use opens it on its own.
func (s *Store) Hold() (release func()) {
	if release, ok := s.holdRoot(); ok {
		return release
	}
	return func() {}
}

// holdRoot opens the root (unless one is held already) and keeps it for
// every openRoot until its release; false when it could not be opened (each
// openRoot then tries, and fails, on its own).
func (s *Store) holdRoot() (release func(), ok bool) {
	s.heldMu.Lock()
	defer s.heldMu.Unlock()
	if s.held == nil {
		r, err := s.openRootNow()
		if err != nil {
			return nil, false
		}
		s.held = r
	}
	s.heldRefs++
	return s.releaseRoot, true
}

// releaseRoot ends one use of the held root, closing it after the last.
func (s *Store) releaseRoot() {
	s.heldMu.Lock()
	defer s.heldMu.Unlock()
	if s.heldRefs--; s.heldRefs == 0 {
		s.held.Close()
		s.held = nil
	}
}

// stat is the Lstat of a file of the history, by its slash-separated name.
func (s *Store) stat(name string) (fs.FileInfo, error) {
	r, done, err := s.openRoot()
	if err != nil {
		return nil, err
	}
	defer done()
	return r.Lstat(name)
}

// readFile reads a file of the history by its slash-separated name.
func (s *Store) readFile(name string) ([]byte, error) {
	r, done, err := s.openRoot()
	if err != nil {
		return nil, err
	}
	defer done()
	return safefs.ReadInFollow(r, name, -1) // as r.ReadFile, non-blocking, a regular file only
}

// lock takes the history's own lock, shared (appends) or exclusive (the
// overwrites file, pruning); it is not the store's write lock, so recording
// never waits for a write and a write never waits for a prune.
func (s *Store) lock(exclusive bool) (func(), error) {
	if fi, err := s.stat("lock"); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("history: %s is %s; it must be the history's lock file (remove it)", filepath.Join(s.dir, "lock"), fi.Mode().Type())
	}
	fl := store.NewFlock(filepath.Join(s.dir, "lock"), 0o600)
	var err error
	if exclusive {
		err = fl.Lock()
	} else {
		err = fl.RLock()
	}
	if err != nil {
		return nil, err
	}
	return func() { _ = fl.Unlock() }, nil
}

// BlobID is the id content has (and would have) in the history.
func BlobID(content []byte) string {
	return blobHash(content).String()
}

// blobHash is content's blob id. The last few are kept: one write asks for
// the same contents' ids many times (17 for an append: seen on disk,
// recorded, kept, stored), and SHA-1 with collision detection costs about
// 150 instructions a byte.
func blobHash(content []byte) plumbing.Hash {
	if len(content) > blobMemoMax {
		return plumbing.ComputeHash(plumbing.BlobObject, content)
	}
	blobMemo.mu.Lock()
	for _, e := range blobMemo.ent {
		if e.content != nil && bytes.Equal(e.content, content) {
			blobMemo.mu.Unlock()
			return e.h
		}
	}
	blobMemo.mu.Unlock()
	h := plumbing.ComputeHash(plumbing.BlobObject, content)
	blobMemo.mu.Lock()
	blobMemo.ent[blobMemo.next] = blobMemoEntry{bytes.Clone(content), h}
	blobMemo.next = (blobMemo.next + 1) % len(blobMemo.ent)
	blobMemo.mu.Unlock()
	return h
}

// blobMemoMax bounds the contents blobHash keeps (a long-lived server keeps
// at most four of them).
const blobMemoMax = 64 << 10

type blobMemoEntry struct {
	content []byte // nil: empty slot (an empty content's id is computed)
	h       plumbing.Hash
}

var blobMemo struct {
	mu   sync.Mutex
	next int
	ent  [4]blobMemoEntry
}

// put stores content as a blob; its id.
func (s *Store) put(content []byte) (string, error) {
	if err := s.storage(true); err != nil {
		return "", err
	}
	h := blobHash(content)
	s.objMu.Lock()
	defer s.objMu.Unlock()
	r, done, err := s.openRoot()
	if err != nil {
		return "", err
	}
	defer done()
	// Kept loose unless a loose copy is there: a pack another process is
	// about to replace (a prune drops the versions no entry names) is not
	// trusted to hold it; the next pack takes the duplicate in.
	if fi, err := r.Lstat(looseName(h)); err == nil && fi.Mode().IsRegular() {
		return h.String(), nil
	}
	if err := putLoose(r, h, content); err != nil {
		return "", fmt.Errorf("history: store a version: %w", err)
	}
	return h.String(), nil
}

// Get is the version with the blob id.
func (s *Store) Get(id string) ([]byte, error) {
	if err := s.storage(false); err != nil {
		return nil, fmt.Errorf("history: no version %s: %w", id, err)
	}
	s.objMu.Lock()
	defer s.objMu.Unlock()
	r, done, err := s.openRoot()
	if err != nil {
		return nil, err
	}
	defer done()
	obj, err := s.obj.object(r, plumbing.NewHash(id))
	if err != nil {
		// Another process may have packed it (or replaced the pack this
		// one indexed) since: index the packs again and look once more.
		s.obj.reindex()
		obj, err = s.obj.object(r, plumbing.NewHash(id))
	}
	if err != nil {
		return nil, fmt.Errorf("history: version %s: %w", id, err)
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	return io.ReadAll(rd)
}

func logName(rel string) string { return "log/" + rel + ".log" }

// parseLog reads a whole log's lines in place, into a slice made once for
// them (Prune; Log parses what was appended since its last read, logread.go).
// A line over maxLogLine ends the log, as the scanner it replaced did.
func parseLog(b []byte) []Entry {
	if len(b) == 0 {
		return nil
	}
	out, _ := parseLines(make([]Entry, 0, bytes.Count(b, []byte{'\n'})+1), b)
	if len(out) == 0 {
		return nil
	}
	return out
}

// parseLines appends the entries of b's lines to out; ended reports a line
// over maxLogLine, which ends the log (what follows it is not read).
func parseLines(out []Entry, b []byte) (_ []Entry, ended bool) {
	for line := range bytes.Lines(b) {
		line = bytes.TrimSuffix(line, []byte{'\n'})
		if len(line) >= maxLogLine {
			return out, true
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		var e Entry
		if unmarshalEntry(line, &e) && e.How != "" {
			out = append(out, e) // a torn last line (a crash) is skipped
		}
	}
	return out, false
}

// maxLogLine bounds one line of a log.
const maxLogLine = 1 << 20

// appendEntry adds one line to the note's log (O_APPEND, one write: lines of
// two processes never interleave).
func (s *Store) appendEntry(rel string, e Entry) error {
	return s.underShared(func() error { return s.appendLine(rel, e) })
}

// underShared runs fn with the history's folder made and its shared lock
// held (appends take it; a prune takes it exclusively).
func (s *Store) underShared(fn func() error) error {
	// A held folder is there (holdRoot opened it, checks first), and so is
	// the .mf-lsp folder's .gitignore, made with it (or by the store's lock,
	// which every write takes first); otherwise it is made.
	release, held := s.holdRoot()
	if !held {
		if err := s.makeDir(); err != nil {
			return err
		}
		if release, held = s.holdRoot(); !held {
			release = func() {}
		}
	}
	defer release()
	unlock, err := s.lock(false)
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}

// appendLine is appendEntry under the lock.
func (s *Store) appendLine(rel string, e Entry) error {
	r, done, err := s.openRoot()
	if err != nil {
		return err
	}
	defer done()
	var fh *os.File
	err = inDir(r, path.Dir(logName(rel)), true, func() (err error) {
		fh, err = safefs.OpenIn(r, logName(rel), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		return err
	})
	if err != nil {
		return err
	}
	line := marshalEntry(e)
	_, werr := fh.Write(append(line, '\n'))
	if cerr := fh.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// current is the part of a log since the note was last deleted.
func current(log []Entry) []Entry {
	for i := len(log) - 1; i >= 0; i-- {
		if log[i].How == Deleted {
			return log[i+1:]
		}
	}
	return log
}

// highest is the entry with the highest revision since the last deletion
// (the latest of equals); ok is false when there is none.
func highest(log []Entry) (Entry, bool) { return highestBut(log, "") }

// highestBut is highest among the entries of versions other than blob.
func highestBut(log []Entry, blob string) (Entry, bool) {
	var h Entry
	ok := false
	for _, e := range current(log) {
		if e.Blob != "" && e.Blob != blob && (!ok || e.Revision >= h.Revision) {
			h, ok = e, true
		}
	}
	return h, ok
}

func has(log []Entry, blob string) bool {
	for _, e := range current(log) {
		if e.Blob == blob {
			return true
		}
	}
	return false
}

// Record keeps content as a version of the note rel (how: Written or
// Observed). A version the log already holds since the last deletion is not
// logged again (its blob is there). It closes an open overwrite of rel when
// content is the version lost, or a revision above both the version lost and
// the one that overwrote it (a restore, merge or keep as the next revision).
func (s *Store) Record(rel string, content []byte, how string, now time.Time) error {
	log, err := s.Log(rel)
	if err != nil {
		return err
	}
	_, err = s.record(rel, log, content, how, onDisk, now)
	return err
}

// Wrote is Record of a version a writer put on disk (Written), made after
// the write: it closes an open overwrite only when stillThere (the disk read
// again) still holds it. A watcher may have seen a foreign version over it,
// and opened the overwrite that version is, before the writer got here.
func (s *Store) Wrote(rel string, content []byte, stillThere func() []byte, now time.Time) error {
	if release, ok := s.holdRoot(); ok {
		defer release() // one open of the folder for the whole judgement
	}
	log, err := s.Log(rel)
	if err != nil {
		return err
	}
	id := BlobID(content)
	_, err = s.record(rel, log, content, Written, func() bool {
		again := stillThere()
		return again != nil && BlobID(again) == id
	}, now)
	return err
}

// onDisk and notOnDisk say a version recorded is, or is not, what the disk
// holds now (record).
func onDisk() bool    { return true }
func notOnDisk() bool { return false }

// keep stores content and logs it (unless the log since the last deletion
// names it already), under the history's shared lock: a prune (exclusive)
// between the two would find a version no entry names yet and delete it. The
// lock is let go before the overwrites file is touched (it takes the lock
// exclusively).
//
// A version the log names as written or observed is there already (stored):
// it takes no lock and stores nothing. A refresh judges again the versions a
// write has just recorded, and a lock, a folder check and a stat of the
// object each time were most of an append's history.
func (s *Store) keep(rel string, log []Entry, content []byte, how string, now time.Time) (Entry, error) {
	rev, _ := store.RevisionOf(content)
	e := Entry{Time: now.UTC(), How: how, Revision: rev, Blob: BlobID(content)}
	if stored(log, e.Blob) {
		return e, nil
	}
	return e, s.keepNamed(rel, content, e, !has(log, e.Blob))
}

// stored reports whether the log since the last deletion names blob in an
// entry logged with its content (written, observed): such an entry is
// appended only after its blob was stored, under the same shared lock, and a
// prune deletes a blob only with the last entry naming it (a blob stored
// again without an entry of its own would go at the next prune anyway). An
// overwrite's entry may name a version stored after it (Replaced names the
// version being written, which Wrote stores next): it is not proof.
func stored(log []Entry, blob string) bool {
	for _, e := range current(log) {
		if e.Blob == blob && (e.How == Written || e.How == Observed) {
			return true
		}
	}
	return false
}

// keepNamed stores content (unless nil) and, when logIt, logs e, which
// names it, both under the history's shared lock.
func (s *Store) keepNamed(rel string, content []byte, e Entry, logIt bool) error {
	return s.underShared(func() error {
		if content != nil {
			if _, err := s.put(content); err != nil {
				return err
			}
		}
		if !logIt {
			return nil
		}
		if err := s.appendLine(rel, e); err != nil || content == nil {
			return err
		}
		return s.appendSum(rel, content, e.Blob)
	})
}

// record keeps content; cur says whether it is what the disk holds now
// (only that may close an overwrite; asked only when it would).
func (s *Store) record(rel string, log []Entry, content []byte, how string, cur func() bool, now time.Time) (Entry, error) {
	e, err := s.keep(rel, log, content, how, now)
	if err != nil {
		return e, err
	}
	rev, id := e.Revision, e.Blob
	if o, ok := s.OverwriteAt(rel); ok && (rev > max(o.LostRevision, o.Revision) || id == o.Lost) && cur() {
		return e, s.setOverwrite(rel, nil) // restored, merged or kept as a newer revision
	}
	return e, nil
}

// RecordDeleted logs that the note rel was removed, after keeping its last
// content (nil: unknown).
func (s *Store) RecordDeleted(rel string, last []byte, now time.Time) error {
	if last != nil {
		if err := s.Record(rel, last, Observed, now); err != nil {
			return err
		}
	}
	log, err := s.Log(rel)
	if err != nil || len(log) == 0 || log[len(log)-1].How == Deleted {
		return err
	}
	if err := s.appendEntry(rel, Entry{Time: now.UTC(), How: Deleted}); err != nil {
		return err
	}
	return s.setOverwrite(rel, nil)
}

// EmptySettle is how long Seen waits before reading again a note it saw
// empty when it had content, to tell a writer between its truncate and its
// write from a note emptied for good.
const EmptySettle = 50 * time.Millisecond

// Seen keeps what a process saw of a note that changed on disk outside it:
// before (the version it had loaded; nil when none) and now (the disk's
// content; nil when the note is gone). When now's revision is below the
// highest revision the history holds of the note since it was last deleted,
// now did not descend from what was on disk: the overwrite is logged and
// opened, unless stillThere (a second read of the disk) says the disk moved
// on meanwhile (a writer that logged a newer version has already written
// it). The overwrite is returned when one was opened.
func (s *Store) Seen(rel string, before, now []byte, stillThere func() []byte, at time.Time) (*Overwrite, error) {
	if release, ok := s.holdRoot(); ok {
		defer release() // one open of the folder for the whole judgement
	}
	log, err := s.Log(rel)
	if err != nil {
		return nil, err
	}
	if len(now) == 0 && now != nil {
		if h, ok := highest(log); len(before) > 0 || (ok && h.Blob != BlobID(nil)) {
			// An empty read of a note that had content is most often a
			// writer between its truncate and its write: it is a version
			// only when the disk still holds it after EmptySettle.
			time.Sleep(EmptySettle)
			if again := stillThere(); again == nil || len(again) > 0 {
				if before != nil {
					_, err := s.record(rel, log, before, Observed, notOnDisk, at)
					return nil, err
				}
				return nil, nil // the next event judges what is there
			}
		}
	}
	if len(before) > 0 {
		// An empty version the tree had is no version to keep: one that
		// lasted was logged when seen on disk (above).
		e, err := s.record(rel, log, before, Observed, notOnDisk, at)
		if err != nil {
			return nil, err
		}
		if !has(log, e.Blob) {
			log = append(log, e)
		}
	}
	if now == nil {
		return nil, s.RecordDeleted(rel, nil, at)
	}
	id := BlobID(now)
	rev, _ := store.RevisionOf(now)
	h, ok := highest(log)
	overwrite := ok && rev < h.Revision && h.Blob != id
	if overwrite {
		if o, open := s.OverwriteAt(rel); open {
			overwrite = false // one is open already: it names the version lost
			if o.Blob != id && rev < o.LostRevision {
				// Another version that does not descend from it is on disk
				// (an editor that truncates the file, then writes it): the
				// overwrite names it, with what it was based on.
				if again := stillThere(); again != nil && BlobID(again) == id {
					o.Revision, o.Blob, o.Base = rev, id, baseOf(log, rev, id)
					if err := s.keepNamed(rel, now, Entry{Time: at.UTC(), How: Overwrote, Revision: rev, Blob: id, Lost: o.Lost, LostRevision: o.LostRevision}, true); err != nil {
						return nil, err
					}
					return &o, s.setOverwrite(rel, &o)
				}
			}
		} else if again := stillThere(); again == nil || BlobID(again) != id {
			overwrite = false // the disk moved on: judged when seen again
		}
	}
	if !overwrite {
		_, err := s.record(rel, log, now, Observed, onDisk, at)
		return nil, err
	}
	o := Overwrite{Path: rel, Revision: rev, Blob: id, Lost: h.Blob, LostRevision: h.Revision, Base: baseOf(log, rev, id), By: "disk", Time: at.UTC()}
	return &o, s.openWith(o, now)
}

// Replaced judges a write by the engine that replaced old with a newer
// version. When old's revision is below the highest the history holds, old
// was itself an overwrite nobody saw (made while no process had the note
// loaded): it is opened against that version. Otherwise, for a write whose
// revision was checked but not its content hash (hashChecked false): when
// old is a version changed in place outside the engine (the history
// holds another version of the same revision, and the engine never wrote
// old), the writer cannot have read it: old is kept and the overwrite
// opened against the written version (id, rev).
//
// The written version itself is no version old was judged against: a
// watcher (of this process or another) may have seen it on disk and logged
// it between the store's write and this call, and an overwrite of it by
// old, the version it replaced, would name the writer's own version lost.
func (s *Store) Replaced(rel string, old []byte, hashChecked bool, id string, rev int, at time.Time) (*Overwrite, error) {
	if release, ok := s.holdRoot(); ok {
		defer release() // one open of the folder for the whole judgement
	}
	log, err := s.Log(rel)
	if err != nil {
		return nil, err
	}
	oldID := BlobID(old)
	oldRev, _ := store.RevisionOf(old)
	blind := false
	if !hashChecked {
		for _, e := range current(log) {
			if e.Revision == oldRev && e.Blob != oldID && e.Blob != id && e.Blob != "" {
				blind = true
			}
			if e.Blob == oldID && e.How == Written {
				blind = false
				break
			}
		}
	}
	// old itself may be an overwrite nobody saw (made while no process had
	// the note loaded): a revision below the highest the history holds.
	if h, ok := highestBut(log, id); ok && oldRev < h.Revision && h.Blob != oldID {
		o := Overwrite{Path: rel, Revision: oldRev, Blob: oldID, Lost: h.Blob, LostRevision: h.Revision, Base: baseOf(log, oldRev, oldID), By: "disk", Time: at.UTC()}
		return &o, s.openWith(o, old)
	}
	if _, err := s.record(rel, log, old, Observed, notOnDisk, at); err != nil {
		return nil, err
	}
	if !blind {
		return nil, nil
	}
	o := Overwrite{Path: rel, Revision: rev, Blob: id, Lost: oldID, LostRevision: oldRev, Base: baseOf(log, oldRev, oldID), By: "write", Time: at.UTC()}
	return &o, s.open(o)
}

// baseOf is the latest version of revision rev other than id the log holds:
// what a version of that revision was based on.
func baseOf(log []Entry, rev int, id string) string {
	for i := len(log) - 1; i >= 0; i-- {
		if e := log[i]; e.Blob != "" && e.Blob != id && e.Revision == rev && e.How != Overwrote {
			return e.Blob
		}
	}
	return ""
}

// open logs the overwrite and opens it in overwrites.json; an overwrite of
// the note already open stays (it names the first version lost).
func (s *Store) open(o Overwrite) error { return s.openWith(o, nil) }

// openWith is open that first stores content (the overwriting version, nil:
// stored already). The blob and the entry naming it are written under the
// history's shared lock, so that no prune between them deletes the blob.
func (s *Store) openWith(o Overwrite, content []byte) error {
	if err := s.keepNamed(o.Path, content, Entry{Time: o.Time, How: Overwrote, Revision: o.Revision, Blob: o.Blob, Lost: o.Lost, LostRevision: o.LostRevision}, true); err != nil {
		return err
	}
	if _, ok := s.OverwriteAt(o.Path); ok {
		return nil
	}
	return s.setOverwrite(o.Path, &o)
}

const overwritesFile = "overwrites.json"

// Overwrites is every open overwrite, by note path (a stat of a file when
// unchanged).
func (s *Store) Overwrites() map[string]Overwrite {
	fi, err := s.stat(overwritesFile)
	if err != nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ow.m != nil && s.ow.size == fi.Size() && s.ow.mod.Equal(fi.ModTime()) {
		return s.ow.m
	}
	m := s.readOverwrites()
	s.ow = cachedOverwrites{size: fi.Size(), mod: fi.ModTime(), m: m}
	return m
}

// OverwriteAt is the open overwrite of the note rel.
func (s *Store) OverwriteAt(rel string) (Overwrite, bool) {
	o, ok := s.Overwrites()[rel]
	return o, ok
}

func (s *Store) readOverwrites() map[string]Overwrite {
	b, err := s.readFile(overwritesFile)
	if err != nil {
		return map[string]Overwrite{}
	}
	var f struct {
		Notes map[string]Overwrite `json:"notes"`
	}
	if json.Unmarshal(b, &f) != nil || f.Notes == nil {
		return map[string]Overwrite{}
	}
	return f.Notes
}

// setOverwrite opens (o) or closes (nil) the overwrite of rel, rewriting
// overwrites.json atomically under the history's lock.
func (s *Store) setOverwrite(rel string, o *Overwrite) error {
	if o == nil {
		if _, ok := s.OverwriteAt(rel); !ok {
			return nil
		}
	}
	if err := s.makeDir(); err != nil {
		return err
	}
	unlock, err := s.lock(true)
	if err != nil {
		return err
	}
	defer unlock()
	m := s.readOverwrites()
	if o == nil {
		delete(m, rel)
	} else {
		m[rel] = *o
	}
	b, _ := json.MarshalIndent(struct {
		Notes map[string]Overwrite `json:"notes"`
	}{m}, "", " ")
	return s.writeFile(overwritesFile, append(b, '\n'))
}

// writeFile replaces a file of the history atomically (temporary file,
// rename), by its slash-separated name.
func (s *Store) writeFile(name string, b []byte) error {
	r, done, err := s.openRoot()
	if err != nil {
		return err
	}
	defer done()
	tmp := path.Join(path.Dir(name), fmt.Sprintf(".tmp-%d-%d", os.Getpid(), time.Now().UnixNano()))
	f, err := safefs.OpenIn(r, tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.Write(b)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = r.Rename(tmp, name)
	}
	if werr != nil {
		r.Remove(tmp)
	}
	return werr
}

// Version is one version of a note as History lists it.
type Version struct {
	Entry
	// Newest marks the newest version the log holds (never pruned).
	Newest bool
}

// Versions lists the versions of the note rel, newest first: every entry
// with content, and deletions.
func (s *Store) Versions(rel string) ([]Version, error) {
	log, err := s.Log(rel)
	if err != nil {
		return nil, err
	}
	var out []Version
	for i := len(log) - 1; i >= 0; i-- {
		out = append(out, Version{Entry: log[i], Newest: i == len(log)-1})
	}
	return out, nil
}

// PruneDue prunes by the store's policy when the last prune is older than
// PruneEvery; errors are the prune's.
func (s *Store) PruneDue(now time.Time) error {
	if fi, err := s.stat("pruned"); err == nil && now.Sub(fi.ModTime()) < PruneEvery && !s.manyLoose() {
		return nil
	}
	s.mu.Lock()
	p := s.policy
	s.mu.Unlock()
	if _, err := s.Prune(p, now); err != nil {
		return err
	}
	if err := s.writeFile("pruned", nil); err != nil {
		return err
	}
	r, done, err := s.openRoot()
	if err != nil {
		return err
	}
	defer done()
	return r.Chtimes("pruned", now, now)
}

// PackLoose is about how many versions are kept as loose objects (one file
// each) before a prune packs them (PruneDue prunes early then): estimated,
// as git's gc --auto does, from one of the 256 object folders.
const PackLoose = 1024

// manyLoose reports whether about PackLoose loose objects or more wait to be
// packed (one folder read).
func (s *Store) manyLoose() bool {
	r, done, err := s.openRoot()
	if err != nil {
		return false
	}
	defer done()
	f, err := safefs.OpenIn(r, "objects/17", os.O_RDONLY, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	names, _ := f.Readdirnames(-1)
	return len(names)*256 >= PackLoose
}

// Pruned says what a prune took away.
type Pruned struct {
	Entries, Blobs int
	Bytes          int64 // the size of the objects kept
	Packed         int   // versions written to new packs (0: none made)
}

// Prune applies the policy at now: entries older than MaxAge go, then the
// oldest entries until the objects kept take at most MaxBytes; the newest
// entry of every log, and every blob an open overwrite names, stay. Blobs
// no entry names any more are deleted.
func (s *Store) Prune(p Policy, now time.Time) (Pruned, error) {
	var out Pruned
	if err := s.storage(false); err != nil {
		return out, nil // nothing recorded yet
	}
	unlock, err := s.lock(true)
	if err != nil {
		return out, err
	}
	defer unlock()
	r, done, err := s.openRoot()
	if err != nil {
		return out, err
	}
	defer done()
	logs := map[string][]Entry{}
	err = fs.WalkDir(r.FS(), "log", func(f string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || !strings.HasSuffix(f, ".log") {
			return nil // a link or anything else that is not a log is not read
		}
		b, err := safefs.ReadInFollow(r, f, -1)
		if err != nil {
			return err
		}
		logs[strings.TrimSuffix(strings.TrimPrefix(f, "log/"), ".log")] = parseLog(b)
		return nil
	})
	if err != nil {
		return out, err
	}
	protected := map[string]bool{}
	for _, o := range s.readOverwrites() {
		protected[o.Blob], protected[o.Lost], protected[o.Base] = true, true, true
	}
	size := func(id string) int64 {
		if fi, err := r.Lstat(looseName(plumbing.NewHash(id))); err == nil {
			return fi.Size()
		}
		s.objMu.Lock()
		defer s.objMu.Unlock()
		n, err := s.obj.size(r, plumbing.NewHash(id)) // packed: its full size
		if err != nil {
			return 0
		}
		return n
	}
	// Candidates: every entry but each log's newest, unless protected.
	type cand struct {
		rel string
		i   int
	}
	var cands []cand
	drop := map[string]map[int]bool{}
	for rel, log := range logs {
		for i, e := range log {
			if i == len(log)-1 || protected[e.Blob] || protected[e.Lost] {
				continue
			}
			cands = append(cands, cand{rel, i})
		}
		drop[rel] = map[int]bool{}
	}
	sort.Slice(cands, func(a, b int) bool {
		ea, eb := logs[cands[a].rel][cands[a].i], logs[cands[b].rel][cands[b].i]
		if !ea.Time.Equal(eb.Time) {
			return ea.Time.Before(eb.Time)
		}
		return cands[a].rel < cands[b].rel || (cands[a].rel == cands[b].rel && cands[a].i < cands[b].i)
	})
	refs := map[string]int{}
	for _, log := range logs {
		for _, e := range log {
			if e.Blob != "" {
				refs[e.Blob]++
			}
			if e.Lost != "" {
				refs[e.Lost]++
			}
		}
	}
	var total int64
	for id := range refs {
		total += size(id)
	}
	unref := func(id string) {
		if id == "" {
			return
		}
		if refs[id]--; refs[id] == 0 {
			total -= size(id)
		}
	}
	for _, c := range cands {
		e := logs[c.rel][c.i]
		if now.Sub(e.Time) <= p.MaxAge && total <= p.MaxBytes {
			continue
		}
		drop[c.rel][c.i] = true
		out.Entries++
		unref(e.Blob)
		unref(e.Lost)
	}
	for rel, d := range drop {
		if len(d) == 0 {
			continue
		}
		var buf bytes.Buffer
		for i, e := range logs[rel] {
			if !d[i] {
				line := marshalEntry(e)
				buf.Write(append(line, '\n'))
			}
		}
		if err := s.writeFile(logName(rel), buf.Bytes()); err != nil {
			return out, err
		}
	}
	if err := s.pruneSums(keptBlobs(logs, drop)); err != nil {
		return out, err
	}
	s.objMu.Lock()
	defer s.objMu.Unlock()
	for _, h := range looseHashes(r) {
		if refs[h.String()] <= 0 && !protected[h.String()] {
			if err := r.Remove(looseName(h)); err == nil {
				out.Blobs++
			}
		}
	}
	out.Bytes = total
	keep := map[plumbing.Hash]bool{}
	for id, n := range refs {
		if n > 0 {
			keep[plumbing.NewHash(id)] = true
		}
	}
	for id := range protected {
		if id != "" {
			keep[plumbing.NewHash(id)] = true
		}
	}
	n, err := s.pack(r, keep)
	out.Packed = n
	return out, err
}

// PackBatch bounds the versions one new pack takes, by their full size:
// go-git's encoder holds every version of a pack in memory to choose its
// deltas, so a prune's heap grows by about twice this, whatever the history
// holds.
const PackBatch = 8 << 20

// MaxPacks is how many packs a history keeps before a prune merges the
// small ones (holding under PackBatch/2 each).
const MaxPacks = 16

// pack writes the loose versions in keep into new packs of at most PackBatch
// bytes each, then removes their loose copies: many small versions take a
// file each as loose objects, and a pack holds them compressed together,
// similar versions of a note as deltas. Packs made before stay as they are,
// unless at least half of the versions in one (by size) are no longer kept:
// then what it keeps goes into the new packs too and it is removed, so what
// the policy dropped leaves the disk without every prune rewriting every
// pack; and beyond MaxPacks packs the small ones are merged. Crash-safe: each new pack and its index are synced to disk and every
// version read back from them before anything it holds is removed, so a
// crash leaves each version loose, packed, or both. Called by Prune, under
// the history's exclusive lock and with objMu held.
func (s *Store) pack(r *os.Root, keep map[plumbing.Hash]bool) (int, error) {
	s.obj.reindex()
	if es, err := fs.ReadDir(r.FS(), "objects/pack"); err == nil {
		for _, e := range es {
			if strings.HasPrefix(e.Name(), "tmp_pack_") {
				r.Remove("objects/pack/" + e.Name()) // a pack a crash left half-written
			}
		}
	}
	size := func(h plumbing.Hash) int64 {
		n, err := s.obj.size(r, h)
		if err != nil {
			return 0
		}
		return n
	}
	var todo []plumbing.Hash
	queued := map[plumbing.Hash]bool{}
	for _, h := range looseHashes(r) {
		if keep[h] && !queued[h] {
			todo, queued[h] = append(todo, h), true
		}
	}
	old, err := packIDs(r)
	if err != nil {
		return 0, err
	}
	var rewrite, small []plumbing.Hash
	in := map[plumbing.Hash][]plumbing.Hash{}
	for _, p := range old {
		hs, err := packHashes(r, p)
		if err != nil {
			return 0, err
		}
		in[p] = hs
		var kept, dropped int64
		for _, h := range hs {
			if keep[h] {
				kept += size(h)
			} else {
				dropped += size(h)
			}
		}
		switch {
		case dropped > 0 && dropped >= kept:
			rewrite = append(rewrite, p)
		case kept < PackBatch/2:
			small = append(small, p)
		}
	}
	// Many packs (a prune or more a day makes one): the small ones are
	// merged, in the same bounded batches, so their number stays about
	// MaxPacks above what the history holds over PackBatch.
	if len(old)-len(rewrite) > MaxPacks && len(small) > 1 {
		rewrite = append(rewrite, small...)
	}
	for _, p := range rewrite {
		for _, h := range in[p] {
			if keep[h] && !queued[h] {
				todo, queued[h] = append(todo, h), true
			}
		}
	}
	if len(todo) == 0 && len(rewrite) == 0 {
		return 0, nil // packed already
	}
	// Sorted by id, as before: a batch is a run of them; versions of one
	// note are not adjacent either way, so batching by id loses no deltas a
	// note's order would find within the window.
	sort.Slice(todo, func(i, j int) bool { return bytes.Compare(todo[i][:], todo[j][:]) < 0 })
	packed := 0
	var made []plumbing.Hash
	for len(todo) > 0 {
		n, sum := 0, int64(0)
		for n < len(todo) && (n == 0 || sum+size(todo[n]) <= PackBatch) {
			sum += size(todo[n])
			n++
		}
		batch := todo[:n]
		todo = todo[n:]
		h, err := s.packBatch(r, batch)
		if err != nil {
			return packed, err
		}
		made = append(made, h)
		for _, h := range batch {
			// Only what the new pack holds: a version another process
			// stored meanwhile (it takes no lock to store one) stays loose.
			_ = r.Remove(looseName(h))
		}
		packed += len(batch)
	}
	for _, p := range rewrite {
		if slices.Contains(made, p) {
			continue // the same versions made the same pack again
		}
		s.obj.reindex() // closes the pack's file
		for _, ext := range []string{".idx", ".pack"} {
			if err := r.Remove(packName(p, ext)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return packed, err
			}
		}
	}
	s.obj.reindex()
	return packed, nil
}

// packBatch writes the versions into one new pack, syncs it and its index
// to disk and reads every version back from it; the pack's id.
func (s *Store) packBatch(r *os.Root, there []plumbing.Hash) (plumbing.Hash, error) {
	made, err := s.obj.writePack(r, there)
	if err != nil {
		return made, fmt.Errorf("history: pack: %w", err)
	}
	if err := syncFile(r, "objects/pack"); err != nil {
		return made, fmt.Errorf("history: pack: %w", err)
	}
	// Every version must read back from the new pack before anything goes:
	// named by its index, and read from that pack, never from a loose copy.
	idx, err := readIndex(r, made)
	if err != nil {
		return made, fmt.Errorf("history: pack: %w", err)
	}
	f, err := safefs.OpenIn(r, packName(made, ".pack"), os.O_RDONLY, 0)
	if err != nil {
		return made, fmt.Errorf("history: pack: %w", err)
	}
	defer f.Close()
	p := packfile.NewPackfile(idx, nil, packFile{f}, 0)
	for _, h := range there {
		if ok, _ := idx.Contains(h); !ok {
			return made, fmt.Errorf("history: pack: version %s is not in the new pack", h)
		}
		obj, err := p.Get(h)
		if err == nil {
			var rd io.ReadCloser
			if rd, err = obj.Reader(); err == nil {
				_, err = io.Copy(io.Discard, rd)
				rd.Close()
			}
		}
		if err != nil {
			return made, fmt.Errorf("history: pack: version %s does not read back: %w", h, err)
		}
	}
	s.obj.reindex()
	return made, nil
}

// packHashes is every version a pack's index names.
func packHashes(r *os.Root, p plumbing.Hash) ([]plumbing.Hash, error) {
	idx, err := readIndex(r, p)
	if err != nil {
		return nil, err
	}
	it, err := idx.Entries()
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var out []plumbing.Hash
	for {
		e, err := it.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, e.Hash)
	}
}

// syncFile syncs a file or folder of the history to disk.
func syncFile(r *os.Root, name string) error {
	f, err := safefs.OpenIn(r, name, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// RelOf is path's name in the root (slash-separated); ok is false outside it.
func RelOf(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") || filepath.IsAbs(rel) {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	if strings.HasPrefix(rel, ".") || strings.Contains(rel, "/.") || path.Clean(rel) != rel {
		return "", false
	}
	return rel, true
}
