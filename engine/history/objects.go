package history

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/objfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/magicfrog/mf-lsp/engine/safefs"
)

// The object store: a bare repository's objects folder, read and written
// here through go-git's format packages (objfile for loose objects, idxfile
// and packfile for packs) rather than go-git's storage (storage/filesystem),
// which links go-git's configuration package, gcfg and encoding/gob: their
// initializers ran on every hook call and cost several times what the
// call's own work does. Every file is reached through the history's
// os.Root. The methods are called with objMu held.

// objects is what the store keeps between calls: the packs' indexes (read
// on the first read, again after reindex) and a cache of the objects read
// from them (deltas' bases). A pack's file is opened for each read, as
// go-git's storage does when it has no exclusive access: a pack another
// process removed is not read on through a file kept open.
type objects struct {
	packs  []indexedPack
	loaded bool
	cache  cache.Object
}

type indexedPack struct {
	id  plumbing.Hash
	idx *idxfile.MemoryIndex
}

// open opens the pack's file for a read; close it after.
func (o *objects) open(r *os.Root, p indexedPack) (*packfile.Packfile, *os.File, error) {
	f, err := safefs.OpenIn(r, packName(p.id, ".pack"), os.O_RDONLY, 0)
	if err != nil {
		return nil, nil, err
	}
	return packfile.NewPackfileWithCache(p.idx, nil, packFile{f}, o.cache, 0), f, nil
}

// packFile is an *os.File as go-git's packfile reader takes it; a pack is
// never written in place, so the locks are not needed.
type packFile struct{ *os.File }

func (packFile) Lock() error   { return nil }
func (packFile) Unlock() error { return nil }

func looseName(h plumbing.Hash) string {
	s := h.String()
	return "objects/" + s[:2] + "/" + s[2:]
}

func packName(id plumbing.Hash, ext string) string {
	return "objects/pack/pack-" + id.String() + ext
}

// initBare makes the history folder a bare repository with HEAD at master,
// the files go-git's git.Init makes (TestInitBareAsGitInit). A repository
// with a HEAD already is left as it is.
func initBare(r *os.Root) error {
	for _, d := range []string{"objects", "objects/info", "objects/pack", "refs", "refs/heads", "refs/tags"} {
		if err := r.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	if _, err := r.Lstat("config"); errors.Is(err, fs.ErrNotExist) {
		if err := r.WriteFile("config", []byte("[core]\n\tbare = true\n"), 0o644); err != nil {
			return err
		}
	}
	// HEAD last: its presence is what says the repository is made.
	f, err := safefs.OpenIn(r, "HEAD", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = f.WriteString("ref: refs/heads/master\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// reindex drops the packs' indexes; the next read lists and reads them
// again.
func (o *objects) reindex() { o.packs, o.loaded = nil, false }

// load reads the index of every pack, once.
func (o *objects) load(r *os.Root) error {
	if o.loaded {
		return nil
	}
	if o.cache == nil {
		o.cache = cache.NewObjectLRU(1 << 20)
	}
	ids, err := packIDs(r)
	if err != nil {
		return err
	}
	for _, id := range ids {
		idx, err := readIndex(r, id)
		if errors.Is(err, fs.ErrNotExist) {
			continue // a pack whose index is not there yet (or any more)
		}
		if err != nil {
			return err
		}
		o.packs = append(o.packs, indexedPack{id, idx})
	}
	o.loaded = true
	return nil
}

// packIDs lists the packs in objects/pack.
func packIDs(r *os.Root) ([]plumbing.Hash, error) {
	es, err := fs.ReadDir(r.FS(), "objects/pack")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []plumbing.Hash
	for _, e := range es {
		n := e.Name()
		if !strings.HasPrefix(n, "pack-") || !strings.HasSuffix(n, ".pack") {
			continue
		}
		if hex := n[5 : len(n)-5]; plumbing.IsHash(hex) {
			out = append(out, plumbing.NewHash(hex))
		}
	}
	return out, nil
}

// readIndex decodes a pack's index.
func readIndex(r *os.Root, id plumbing.Hash) (*idxfile.MemoryIndex, error) {
	f, err := safefs.OpenIn(r, packName(id, ".idx"), os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	idx := idxfile.NewMemoryIndex()
	if err := idxfile.NewDecoder(bufio.NewReader(f)).Decode(idx); err != nil {
		return nil, fmt.Errorf("history: %s: %w", packName(id, ".idx"), err)
	}
	return idx, nil
}

// object reads an object, from the packs first, then loose.
func (o *objects) object(r *os.Root, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if err := o.load(r); err != nil {
		return nil, err
	}
	for _, p := range o.packs {
		if ok, _ := p.idx.Contains(h); !ok {
			continue
		}
		pf, f, err := o.open(r, p)
		if err != nil {
			return nil, err // removed since it was indexed: the caller reindexes
		}
		defer f.Close()
		return pf.Get(h) // a memory object: read whole, before the close
	}
	return readLoose(r, h)
}

// has reports whether the object is there: a pack's index names it, or its
// loose file is there (nothing is read).
func (o *objects) has(r *os.Root, h plumbing.Hash) bool {
	if o.load(r) == nil {
		for _, p := range o.packs {
			if ok, _ := p.idx.Contains(h); ok {
				return true
			}
		}
	}
	fi, err := r.Lstat(looseName(h))
	return err == nil && fi.Mode().IsRegular()
}

// readLoose reads a loose object.
func readLoose(r *os.Root, h plumbing.Hash) (plumbing.EncodedObject, error) {
	f, err := safefs.OpenIn(r, looseName(h), os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, plumbing.ErrObjectNotFound
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	or, err := objfile.NewReader(f)
	if err != nil {
		return nil, err
	}
	defer or.Close()
	t, size, err := or.Header()
	if err != nil {
		return nil, err
	}
	obj := &plumbing.MemoryObject{}
	obj.SetType(t)
	obj.SetSize(size)
	w, _ := obj.Writer()
	if _, err := io.Copy(w, or); err != nil {
		return nil, err
	}
	return obj, nil
}

// size is an object's full (inflated) size.
func (o *objects) size(r *os.Root, h plumbing.Hash) (int64, error) {
	if err := o.load(r); err != nil {
		return 0, err
	}
	for _, p := range o.packs {
		off, err := p.idx.FindOffset(h)
		if err != nil {
			continue
		}
		pf, f, err := o.open(r, p)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		return pf.GetSizeByOffset(off)
	}
	f, err := safefs.OpenIn(r, looseName(h), os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, plumbing.ErrObjectNotFound
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	or, err := objfile.NewReader(f)
	if err != nil {
		return 0, err
	}
	defer or.Close()
	_, n, err := or.Header()
	return n, err
}

// putLoose writes a blob as a loose object: through a temporary file in
// objects, renamed into place, so a reader never sees half of one.
// Its fan-out folder (objects/xx) is made when missing (inDir).
func putLoose(r *os.Root, h plumbing.Hash, content []byte) error {
	name := looseName(h)
	tmp := fmt.Sprintf("objects/tmp_obj_%s_%d", h.String()[:12], os.Getpid())
	f, err := safefs.OpenIn(r, tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o444)
	if err != nil {
		return err
	}
	_, err = f.Write(storedZlib(looseHeader(len(content)), content))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = inDir(r, name[:len("objects/xx")], false, func() error { return r.Rename(tmp, name) })
	}
	if err != nil {
		r.Remove(tmp)
	}
	return err
}

// inDir runs fn, a write into the folder dir (relative to r), and when it
// finds dir missing (fs.ErrNotExist: not made yet, or removed behind the
// store's back) makes dir (all: with its parents) and runs fn again, once.
// Trying first costs a write into a folder that is there (nearly every
// one) no mkdir: made up front, each write asked the disk for its folders
// again in every process.
func inDir(r *os.Root, dir string, all bool, fn func() error) error {
	err := fn()
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if all {
		err = r.MkdirAll(dir, 0o755)
	} else if err = r.Mkdir(dir, 0o755); errors.Is(err, fs.ErrExist) {
		err = nil
	}
	if err != nil {
		return err
	}
	return fn()
}

// looseHeader is a loose blob's header: "blob SIZE" and a NUL.
func looseHeader(size int) []byte {
	return append(strconv.AppendInt([]byte("blob "), int64(size), 10), 0)
}

// storedZlib is a zlib stream of head and body in stored (uncompressed)
// deflate blocks, which every zlib reader reads (RFC 1950, 1951): what a
// loose object is, git's own with core.looseCompression 0. objfile's writer
// compressed at zlib's default level, whose compressor alone is 600 KB of
// tables a process clears before its first byte, and hashed the content
// again. compress/zlib's NoCompression level does not help: its compressor
// embeds the same hash arrays whatever the level, zeroed at every NewWriter.
// A loose version is short-lived anyway, since a prune packs the loose
// versions it keeps, compressed together (pack).
func storedZlib(head, body []byte) []byte {
	const maxBlock = 65535
	n := len(head) + len(body)
	out := make([]byte, 0, 2+n+5*(n/maxBlock+1)+4)
	out = append(out, 0x78, 0x01) // deflate, 32 KB window, no dictionary, fastest
	sum := adler32.New()
	sum.Write(head)
	sum.Write(body)
	for first := true; first || len(head)+len(body) > 0; first = false {
		size := min(len(head)+len(body), maxBlock)
		final := byte(0)
		if size == len(head)+len(body) {
			final = 1
		}
		out = append(out, final, byte(size), byte(size>>8), ^byte(size), ^byte(size>>8))
		h := min(size, len(head))
		out = append(out, head[:h]...)
		out = append(out, body[:size-h]...)
		head, body = head[h:], body[size-h:]
	}
	return binary.BigEndian.AppendUint32(out, sum.Sum32())
}

// looseHashes lists the loose objects.
func looseHashes(r *os.Root) []plumbing.Hash {
	var out []plumbing.Hash
	dirs, _ := fs.ReadDir(r.FS(), "objects")
	for _, d := range dirs {
		if !d.IsDir() || len(d.Name()) != 2 {
			continue
		}
		es, _ := fs.ReadDir(r.FS(), "objects/"+d.Name())
		for _, e := range es {
			if hex := d.Name() + e.Name(); plumbing.IsHash(hex) && e.Type().IsRegular() {
				out = append(out, plumbing.NewHash(hex))
			}
		}
	}
	return out
}

// writePack writes the objects into one new pack, with deltas go-git's
// encoder chooses, and its index (go-git's parser over the pack written);
// both are synced to disk before they take their names, the index last.
// The pack's id.
func (o *objects) writePack(r *os.Root, hs []plumbing.Hash) (plumbing.Hash, error) {
	tmp := fmt.Sprintf("objects/pack/tmp_pack_%d", os.Getpid())
	f, err := safefs.OpenIn(r, tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o444)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer r.Remove(tmp)
	defer f.Close()
	bw := bufio.NewWriter(f)
	id, err := packfile.NewEncoder(bw, source{o, r}, false).Encode(hs, 10)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return id, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return id, err
	}
	iw := new(idxfile.Writer)
	p, err := packfile.NewParser(packfile.NewScanner(f), iw)
	if err != nil {
		return id, err
	}
	if _, err := p.Parse(); err != nil {
		return id, err
	}
	idx, err := iw.Index()
	if err != nil {
		return id, err
	}
	var ib bytes.Buffer
	if _, err := idxfile.NewEncoder(&ib).Encode(idx); err != nil {
		return id, err
	}
	if err := f.Sync(); err != nil {
		return id, err
	}
	if err := r.Rename(tmp, packName(id, ".pack")); err != nil {
		return id, err
	}
	itmp := tmp + ".idx"
	defer r.Remove(itmp)
	if err := r.WriteFile(itmp, ib.Bytes(), 0o444); err != nil {
		return id, err
	}
	if err := syncFile(r, itmp); err != nil {
		return id, err
	}
	return id, r.Rename(itmp, packName(id, ".idx"))
}

// source hands the store's objects to go-git's pack encoder, which reads
// them by id and nothing else.
type source struct {
	o *objects
	r *os.Root
}

var errReadOnly = errors.New("history: the pack encoder's source is read-only")

func (s source) EncodedObject(_ plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	return s.o.object(s.r, h)
}
func (s source) EncodedObjectSize(h plumbing.Hash) (int64, error) { return s.o.size(s.r, h) }
func (s source) HasEncodedObject(h plumbing.Hash) error {
	_, err := s.o.size(s.r, h)
	return err
}
func (source) NewEncodedObject() plumbing.EncodedObject { return &plumbing.MemoryObject{} }
func (source) SetEncodedObject(plumbing.EncodedObject) (plumbing.Hash, error) {
	return plumbing.ZeroHash, errReadOnly
}
func (source) IterEncodedObjects(plumbing.ObjectType) (storer.EncodedObjectIter, error) {
	return nil, errReadOnly
}
func (source) AddAlternate(string) error { return errReadOnly }
