package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"time"

	"github.com/magicfrog/mf-lsp/engine/errcode"
	"github.com/magicfrog/mf-lsp/engine/internal/ondemandtrace"
	"github.com/magicfrog/mf-lsp/engine/safefs"
)

// ChangedError is a note's text read on demand (Note.Text) that is no
// longer the text the tree loaded: its file changed, went, or became
// unreadable behind the tree's back. The tree has been told (SetOnStale);
// the note the tree holds after that refresh answers with the new text.
type ChangedError struct {
	Path string
	Hash string // the file's SHA-256 now, hex; "" when it could not be read
	Err  error  // the read's error, when it failed
}

func (e *ChangedError) Error() string {
	if e.Err != nil {
		return e.Path + ": changed on disk since it was loaded (" + e.Err.Error() + ")"
	}
	return e.Path + ": changed on disk since it was loaded"
}

func (e *ChangedError) Unwrap() error { return e.Err }

// ErrorCode: what was loaded is not the disk's; ask again.
func (e *ChangedError) ErrorCode() errcode.Code { return errcode.Stale }

// ErrorData names the note and the disk's hash.
func (e *ChangedError) ErrorData() errcode.Data {
	return errcode.Data{Code: errcode.Stale, Path: e.Path, Hash: e.Hash}
}

// SetOnStale makes f what is told of a note whose text, read on demand, no
// longer hashes to what the load took: a watcher queues the path as if its
// file had sent an event, so the tree's refresh and whatever follows a change
// (new diagnostics, the indexes) happen as for any other change. Without one
// (nil) the note is refreshed at once (Refresh). f may be called from any
// goroutine, never with the tree's lock held.
func (m *Memory) SetOnStale(f func(path string)) {
	if f == nil {
		m.onStale.Store(nil)
		return
	}
	m.onStale.Store(&f)
}

// stale tells of path, whose text changed behind the tree's back.
func (m *Memory) stale(path string) {
	if f := m.onStale.Load(); f != nil {
		(*f)(path)
		return
	}
	m.Refresh(path)
}

// onDemand is how a note whose text the load dropped (dropBody) is read
// again: through its tree's memory root, and checked against what the load
// read.
type onDemand struct {
	mem *Memory
	// stamp is the file's as the load read it, when a read that finds the
	// same one may answer its bytes without hashing them (trustedStamp);
	// zero when every read is hashed against the load's Sum.
	stamp safefs.Stamp
	// unhashed: the load took no hash (Options.SumsOnDemand), so only a
	// read finding stamp again has the load's bytes; Sum hashes such a read.
	unhashed bool
}

// stampMargin is how much older than a load's start a file's modification
// and change times must be for its stamp to be trusted: a write within the
// same tick of the file system's clock as the load's read (a few
// milliseconds on Linux's file systems, 2 s on FAT's modification time)
// would leave every field of the stamp as it was.
const stampMargin = 2 * time.Second

// The clock a load reads its start from (tests set it), and the counts of
// texts read on demand and hashed, are ondemandtrace's.
var (
	onDemandHashes = &ondemandtrace.Hashes
	onDemandReads  = &ondemandtrace.Reads
)

// trustedStamp is st, the stamp of size bytes the load read, when a later
// read finding it again may trust its bytes: both its times more than
// stampMargin older than the start of the load (m.loadStart), so any later
// write moves the change time. Zero otherwise.
func (m *Memory) trustedStamp(st safefs.Stamp, size int) safefs.Stamp {
	before := m.loadStart.Add(-stampMargin).UnixNano()
	if !st.Known() || st.Size != int64(size) || st.Mtime >= before || st.Ctime >= before {
		return safefs.Stamp{}
	}
	return st
}

// readText reads e's text again through its memory root, as the load read
// it (Note.Text), and tells of a change (stale).
func (m *Memory) readText(e *Note) ([]byte, error) {
	src, err := m.readTextQuiet(e)
	if err != nil {
		m.stale(e.Path)
	}
	return src, err
}

// readTextQuiet is readText telling no one: for Refresh's own reads.
func (m *Memory) readTextQuiet(e *Note) ([]byte, error) { return m.readTextWith(e, nil) }

// readTextWith is readTextQuiet through t's opened roots and into its
// buffer; nil t opens the root for this read and reads into a new buffer.
func (m *Memory) readTextWith(e *Note, t *textReader) ([]byte, error) {
	onDemandReads.Add(1)
	memRoot := m.Paths.LockRoot(e.Root)
	rel, err := filepath.Rel(memRoot, e.Path)
	var src []byte
	var st safefs.Stamp
	if err == nil {
		var root *os.Root
		if t == nil {
			if root, err = safefs.OpenRoot(memRoot); err == nil {
				src, st, err = readNote(root, rel)
				root.Close()
			}
		} else {
			folder, name := filepath.Split(rel)
			var d *safefs.Dir
			if d, err = t.dir(memRoot, folder); err == nil {
				if src, st, err = d.ReadFileInto(name, MaxNoteSize, t.buf); err == nil {
					t.buf = src
				}
			}
		}
	}
	if err == nil && st.Known() && st == e.od.stamp {
		return src, nil // the bytes the load read and hashed
	}
	if err == nil && e.od.unhashed {
		sum := sha256.Sum256(src)
		return nil, &ChangedError{Path: e.Path, Hash: hex.EncodeToString(sum[:])} // no hash to tell the same bytes from others
	}
	if err == nil {
		onDemandHashes.Add(1)
		sum := sha256.Sum256(src)
		if sum == e.Sum() {
			return src, nil
		}
		return nil, &ChangedError{Path: e.Path, Hash: hex.EncodeToString(sum[:])}
	}
	return nil, &ChangedError{Path: e.Path, Err: err}
}

// sumAgain is the SHA-256 of the text the load read of e, which it did not
// hash (onDemand.unhashed): the file's text read again when its stamp is
// the load's, else the zero sum, which no text hashes to (the note changed,
// or cannot be read: it compares unequal to every version).
func (m *Memory) sumAgain(e *Note) [32]byte {
	memRoot := m.Paths.LockRoot(e.Root)
	rel, err := filepath.Rel(memRoot, e.Path)
	if err != nil {
		return [32]byte{}
	}
	root, err := safefs.OpenRoot(memRoot)
	if err != nil {
		return [32]byte{}
	}
	defer root.Close()
	onDemandReads.Add(1)
	src, st, err := readNote(root, rel)
	if err != nil || !st.Known() || st != e.od.stamp {
		return [32]byte{}
	}
	onDemandHashes.Add(1)
	return sha256.Sum256(src)
}

// textReader reads notes' texts again one after the other, for one pass
// that uses each text only until it asks for the next (a render writing its
// block): each memory root is opened once, each folder of notes once while
// it is among the last textFolders read (a block's notes come by key, a
// folder's together), every text into one buffer. Opening the root and each
// folder of the path for every note, and reading each into a buffer of its
// own (page faults, then the collector's work), was most of what reading a
// block's notes again cost (engine/internal/coldbench, the nineteenth
// pass). A folder is opened as readNote opens it, through no link; held
// open, it is the folder the load read, as the load's walk holds its
// folders. Not for concurrent use.
type textReader struct {
	roots   map[string]*os.Root
	folders map[[2]string]*safefs.Dir // by memory root and folder in it
	buf     []byte
	// keeping has text keep a copy of what it reads, up to textKeepMax
	// bytes in all, for the pass after (kept): a block of a few MB (10,000
	// notes of 200 B-8 KB: 486 elements, 2 MB) is read again once, not
	// twice, for what a larger one is read twice.
	keeping   bool
	kept      map[*Note][]byte
	keptBytes int
}

// textKeepMax bounds the texts a textReader keeps for the next pass.
const textKeepMax = 8 << 20

// textFolders bounds the folders a textReader holds open (descriptors).
const textFolders = 64

// dir is the folder (relative, "" for the root itself) of the memory root
// at memRoot, opened on first use.
func (t *textReader) dir(memRoot, folder string) (*safefs.Dir, error) {
	key := [2]string{memRoot, folder}
	if d, ok := t.folders[key]; ok {
		return d, nil
	}
	root, err := t.root(memRoot)
	if err != nil {
		return nil, err
	}
	d, err := safefs.OpenDirNoLinks(root, folder)
	if err != nil {
		return nil, err
	}
	if len(t.folders) >= textFolders {
		t.closeFolders()
	}
	if t.folders == nil {
		t.folders = map[[2]string]*safefs.Dir{}
	}
	t.folders[key] = d
	return d, nil
}

func (t *textReader) closeFolders() {
	for _, d := range t.folders {
		d.Close()
	}
	t.folders = nil
}

// text is e's text (Note.Text), valid until the next call.
func (t *textReader) text(e *Note) ([]byte, error) {
	if e.od == nil {
		return e.src, nil
	}
	if src, ok := t.kept[e]; ok {
		return src, nil
	}
	src, err := e.od.mem.readTextWith(e, t)
	if err != nil {
		e.od.mem.stale(e.Path)
		return nil, err
	}
	if t.keeping && t.keptBytes+len(src) <= textKeepMax {
		if t.kept == nil {
			t.kept = map[*Note][]byte{}
		}
		t.kept[e] = bytes.Clone(src)
		t.keptBytes += len(src)
	}
	return src, nil
}

// root is the memory root at dir, opened on first use.
func (t *textReader) root(dir string) (*os.Root, error) {
	if r, ok := t.roots[dir]; ok {
		return r, nil
	}
	r, err := safefs.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	if t.roots == nil {
		t.roots = map[string]*os.Root{}
	}
	t.roots[dir] = r
	return r, nil
}

// close closes the folders and roots t opened.
func (t *textReader) close() {
	t.closeFolders()
	for _, r := range t.roots {
		r.Close()
	}
	t.roots, t.buf, t.kept, t.keptBytes = nil, nil, nil, 0
}
