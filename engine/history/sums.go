package history

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/magicfrog/mf-lsp/engine/safefs"
	"github.com/magicfrog/mf-lsp/engine/store"
)

// The sums file: which content each note's log names, by the SHA-256 a loaded
// tree keeps of every note (engine.Note.Sum), so a load can tell which of its
// notes the history holds without reading them (a blob's id is the SHA-1 of
// the content; the tree has only the SHA-256). One line per version logged:
// the first 8 bytes of the SHA-256 of the note's path in the root, the
// content's SHA-256 and the blob id, in hex. It is an accelerator, never a
// source of truth: a line names a blob that must still be in the store
// (Known checks), a torn or unknown line is skipped, a missing line only
// costs a read of the note, and a prune rewrites it with the entries it keeps.
const sumsFile = "sums"

// sumKey is a note's path key and a content's SHA-256.
type sumKey struct {
	rel [8]byte
	sum [32]byte
}

func keyOf(rel string, sum [32]byte) sumKey {
	h := sha256.Sum256([]byte(rel))
	var k sumKey
	copy(k.rel[:], h[:8])
	k.sum = sum
	return k
}

func sumLine(k sumKey, blob string) []byte {
	return []byte(hex.EncodeToString(k.rel[:]) + " " + hex.EncodeToString(k.sum[:]) + " " + blob + "\n")
}

// appendSum adds rel's version content (blob) to the sums file; the caller
// holds the history's shared lock.
func (s *Store) appendSum(rel string, content []byte, blob string) error {
	r, done, err := s.openRoot()
	if err != nil {
		return err
	}
	defer done()
	f, err := safefs.OpenIn(r, sumsFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.Write(sumLine(keyOf(rel, sha256.Sum256(content)), blob))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// Sums is what the sums file says the logs name, read once: a loaded tree
// asks it about each of its notes (Known) and lets it go.
type Sums struct {
	s *Store
	m map[sumKey]plumbing.Hash
}

// Sums reads the sums file; an empty Sums when there is none.
func (s *Store) Sums() (*Sums, error) {
	out := &Sums{s: s, m: map[sumKey]plumbing.Hash{}}
	b, err := s.readFile(sumsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return out, err
	}
	parseSums(b, func(k sumKey, blob plumbing.Hash) { out.m[k] = blob })
	return out, nil
}

func parseSums(b []byte, each func(sumKey, plumbing.Hash)) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) != 16+1+64+1+40 || line[16] != ' ' || line[81] != ' ' {
			continue // torn (a crash) or not ours
		}
		var k sumKey
		var blob plumbing.Hash
		if _, err := hex.Decode(k.rel[:], line[:16]); err != nil {
			continue
		}
		if _, err := hex.Decode(k.sum[:], line[17:81]); err != nil {
			continue
		}
		if _, err := hex.Decode(blob[:], line[82:]); err != nil {
			continue
		}
		each(k, blob)
	}
}

// Known reports whether the log of the note rel names a version whose
// content has the SHA-256 sum, and that version is in the store: a look-up in
// the file read and a check of the object's presence (a loose object's file,
// or a pack's index), never a read of the version.
func (x *Sums) Known(rel string, sum [32]byte) bool {
	blob, ok := x.m[keyOf(rel, sum)]
	if !ok {
		return false
	}
	if x.s.storage(false) != nil {
		return false
	}
	x.s.objMu.Lock()
	defer x.s.objMu.Unlock()
	r, done, err := x.s.openRoot()
	if err != nil {
		return false
	}
	defer done()
	return x.s.obj.has(r, blob)
}

// Observe keeps content, the version of the note rel a loaded tree holds, as
// Observed, unless its log names it already (then the sums file learns it,
// when it did not know). still is asked under the history's shared lock,
// after the version is stored and just before it is logged: it answers
// whether the tree still holds this version, and holds the tree so until
// release (a refresh logging what replaced it comes after, never before). It
// never opens or closes an overwrite: the version is what the disk held at
// load, and Seen judges what replaces it. kept reports whether it was logged.
func (s *Store) Observe(rel string, content []byte, at time.Time, still func() (ok bool, release func())) (kept bool, err error) {
	id := BlobID(content)
	rev, _ := store.RevisionOf(content)
	if log, err := s.Log(rel); err != nil {
		return false, err
	} else if has(log, id) {
		// Logged before the sums file was kept: it learns it now.
		return false, s.underShared(func() error { return s.appendSum(rel, content, id) })
	}
	err = s.underShared(func() error {
		if _, err := s.put(content); err != nil {
			return err
		}
		ok, release := still()
		defer release()
		if !ok {
			return nil
		}
		log, err := s.Log(rel)
		if err != nil {
			return err
		}
		if !has(log, id) {
			if err := s.appendLine(rel, Entry{Time: at.UTC(), How: Observed, Revision: rev, Blob: id}); err != nil {
				return err
			}
			kept = true
		}
		return s.appendSum(rel, content, id)
	})
	return kept, err
}

// ObjectBytes is what the store's objects take on disk (loose and packed),
// a walk of the objects folder: what a caller adding many versions at once
// weighs against the policy's MaxBytes.
func (s *Store) ObjectBytes() int64 {
	r, done, err := s.openRoot()
	if err != nil {
		return 0
	}
	defer done()
	var n int64
	_ = fs.WalkDir(r.FS(), "objects", func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// Policy is the store's policy.
func (s *Store) Policy() Policy {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.policy
}

// pruneSums rewrites the sums file keeping the lines of versions a log still
// names (kept: by the note's path key and blob), under the history's
// exclusive lock (Prune).
func (s *Store) pruneSums(kept map[string]map[string]bool) error {
	b, err := s.readFile(sumsFile)
	if err != nil {
		return nil
	}
	byKey := map[[8]byte]map[string]bool{}
	for rel, blobs := range kept {
		byKey[keyOf(rel, [32]byte{}).rel] = blobs
	}
	var buf bytes.Buffer
	seen := map[string]bool{}
	parseSums(b, func(k sumKey, blob plumbing.Hash) {
		line := sumLine(k, blob.String())
		if byKey[k.rel][blob.String()] && !seen[string(line)] {
			seen[string(line)] = true
			buf.Write(line)
		}
	})
	if buf.Len() == len(b) {
		return nil
	}
	return s.writeFile(sumsFile, buf.Bytes())
}

// keptBlobs is, by note, the blobs its log names after a prune drops the
// entries in drop.
func keptBlobs(logs map[string][]Entry, drop map[string]map[int]bool) map[string]map[string]bool {
	out := make(map[string]map[string]bool, len(logs))
	for rel, log := range logs {
		blobs := map[string]bool{}
		for i, e := range log {
			if !drop[rel][i] && e.Blob != "" {
				blobs[e.Blob] = true
			}
		}
		out[rel] = blobs
	}
	return out
}
