package participant

import (
	"encoding/binary"
	"slices"
	"sync"

	"github.com/magicfrog/mf-lsp/engine"
)

// The search index is inverted across the notes in scope: each term lists
// the notes holding it (in the body or the key) and keeps its positions in
// all of them in one array, so a query reads only its terms' lists, in a row,
// never the notes that hold none of them. It is kept in step
// with the tree incrementally, by content hash: on a new version of the tree
// the scope is listed again, a note whose content is the same keeps its
// analysis and id, a changed or new one is analyzed and added under a new id,
// and a note that changed or left the scope leaves a dead id behind, skipped
// by every list until a compaction drops the dead ids (when they outnumber
// the live ones). The scope's line statistics (lines, terms, lines holding
// each stop word) are running totals, added and taken away with the notes.
// The index is derived: in memory, rebuilt from the notes at any time (a
// first build may read the analyses of unchanged notes from the stored copy,
// searchcache.go); a fresh one and a kept one answer alike
// (TestSearchIndexAgrees, TestStoredIndexAgrees).
type searchIndex struct {
	mu      sync.Mutex
	built   bool
	version uint64 // the tree's version the index is of

	docs  []doc            // by id; a dead id's doc has a nil a
	ids   map[string]int32 // the live ids by path
	terms map[string]*termList
	days  []int32 // the ids of journal days (dead ones until compaction)
	dead  int     // dead ids in docs
	// fromStore is how many notes the first build read from the stored
	// index (searchcache.go).
	fromStore int
	eager     bool // compact at every change (tests)
	// exhaustive scores every match, none left out by its bound (tests).
	exhaustive bool

	// Running totals over the live notes.
	lines, length int            // lines, terms
	minor         map[string]int // lines holding each stop word

	// mark is scratch for a query: a cand's index + 1 by id.
	mark []int32
	// spare is a search's scratch, lent to one search at a time (a search
	// that finds it lent makes its own).
	spare *searchScratch
}

// searchScratch is the space one search works in: its candidates and their
// postings, and the matched ones. The occurrences a search decodes (of the
// notes it scores, cand.decode) are not kept in it: they are a few notes'.
type searchScratch struct {
	cands   []cand
	posts   []posting // the candidates' postings of the query's terms
	hits    []*posting
	inKey   []bool
	matched []*cand

	// The scoring's (query.score): the scores, the ties and the rest, which
	// hold notes (giveBack clears them); each match's bound, whether it is
	// scored in full (done), and the floats a floor is selected from.
	all                        []scored
	ties                       []tie
	rest                       []*cand
	bound, open, scores, pairs []float64
	done                       []bool
}

// borrow lends the index's scratch, or a new one when it is lent.
func (ix *searchIndex) borrow() *searchScratch {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	sc := ix.spare
	ix.spare = nil
	if sc == nil {
		sc = &searchScratch{}
	}
	return sc
}

// giveBack returns a search's scratch, emptied so that it holds no note.
// It clears what this search used, the slices' lengths: a search writes
// only below the lengths it leaves (candidates, their hits and postings,
// the matched ones are set before or as they are written), and what lies
// beyond was cleared by the giveBack of the search that used it, so the
// whole capacity is zero again. Clearing the capacity instead made every
// query after a common word clear that word's 100,000 candidates (about
// 4 ms at 100,000 notes).
func (ix *searchIndex) giveBack(sc *searchScratch) {
	clear(sc.cands)
	clear(sc.hits)
	clear(sc.posts)
	clear(sc.matched)
	clear(sc.all)
	clear(sc.ties)
	clear(sc.rest)
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.spare = sc
}

// doc is a note in scope with its analysis.
type doc struct {
	e         *engine.Note
	a         *analyzed
	effective bool
}

// termList is the notes holding one term, by ascending id, each with the
// term's occurrences in it, in one byte slice (postings.go): a query reads
// them in a row rather than from every note's own allocation.
type termList struct {
	b    []byte
	refs int32 // the notes in b
	last int32 // the last note's id, -1 for none

	// The workers' shares of a batch of new notes, in order, while it is
	// added.
	pending []*partList
}

// merge adds the pending shares to the list, in one new array (a search
// that has let go of the lock may still be reading the old), or takes the
// share as it is when it is a new term's, held by the notes of one worker
// only (copied when more than half its array is room); the shares are then
// emptied.
func (l *termList) merge() {
	if l.refs == 0 && len(l.pending) == 1 {
		p := l.pending[0]
		l.b, l.refs, l.last = p.b, p.refs, p.last
		if cap(l.b) > 2*len(l.b) {
			l.b = slices.Clone(l.b) // put grew it for more notes than came: no more room kept than a doubling's
		}
	} else {
		size := len(l.b)
		for _, p := range l.pending {
			size += len(p.b) + binary.MaxVarintLen32
		}
		l.b = append(make([]byte, 0, size), l.b...)
		for _, p := range l.pending {
			l.add(p)
		}
	}
	for _, p := range l.pending {
		*p = partList{}
	}
	l.pending = nil
}

// add appends a share's entries (encoded from id -1 on) to the list.
func (l *termList) add(p *partList) {
	first, i := uvarint(p.b, 0) // the share's first id
	l.b = binary.AppendUvarint(l.b, first-uint64(l.last)-1)
	l.b = append(l.b, p.b[i:]...)
	l.refs += p.refs
	l.last = p.last
}

// partList is a worker's share of a term's list while a batch of notes is
// added: the notes it analyzed holding the term, with the ids the index gives
// them, encoded as a list of its own.
type partList struct {
	b          []byte
	refs, last int32
}

// put appends r to the share, the done-th note of the worker's run with left
// notes after it. Before the share outgrows its array it grows to what it
// would hold were the notes left to hold the term as often as those done (2
// to 8 times its length): a common term's share is copied a few times, not
// at every doubling from 8 bytes.
func (p *partList) put(r ref, done, left int32) {
	if p.refs == 0 {
		p.last = -1
	}
	if len(p.b)+16+4*len(r.at) > cap(p.b) && p.refs >= 4 && left > 0 {
		n := len(p.b)
		p.b = slices.Grow(p.b, min(max(n*int(left)/int(done), n), 7*n))
	}
	p.b = appendRef(p.b, p.last, r)
	p.refs++
	p.last = r.id
}

// list adds the note a, the last the scratch analyzed, to be id, to the
// worker's lists, under its terms and its key's.
func (sc *analysisScratch) list(a *analyzed, id int32) {
	keyIDs := sc.keyIDs[:0]
	for _, t := range a.keyTerms {
		keyIDs = append(keyIDs, sc.ids[t])
	}
	for slot, tid := range sc.vids {
		at := sc.all[sc.off[slot] : sc.off[slot]+sc.vs[slot].n]
		sc.share(tid).put(ref{id: id, n: int32(len(at)), lines: sc.vs[slot].lines, key: slices.Contains(keyIDs, tid), sum: summarize(at, &a.lineLen), at: at}, sc.note, sc.left)
	}
	for _, tid := range keyIDs {
		if sc.at[tid].seen == sc.note {
			continue // in the body too: listed above
		}
		sc.share(tid).put(ref{id: id, key: true}, sc.note, sc.left)
	}
	sc.keyIDs = keyIDs
}

// share is the worker's share of term tid's list.
func (sc *analysisScratch) share(tid int32) *partList {
	p := &sc.parts[tid]
	if p.refs == 0 {
		sc.used = append(sc.used, tid)
	}
	return p
}

// maxDeadFree is how many dead ids the index keeps before compacting
// whatever the live count.
const maxDeadFree = 1024

// syncIndex brings the index up to the tree's version: see searchIndex. The
// caller holds p.index.mu.
func (p *Participant) syncIndex() {
	ix := &p.index
	v := p.m.Version()
	if ix.built && v == ix.version {
		return
	}
	scope := p.scopeNotes()
	// A first build reads the notes the stored copy of the index holds as
	// they are (searchcache.go); the rest is brought up to date as after any
	// change, and the copy written again when it was not the scope's.
	stored, stale := !ix.built && p.cacheDir != "", false
	if !ix.built {
		ix.ids, ix.terms, ix.minor = map[string]int32{}, map[string]*termList{}, map[string]int{}
		if stored {
			stale = p.loadStored(scope)
		}
	}
	keep := make([]bool, len(ix.docs))
	var missing []int
	for i, sn := range scope {
		// The same note is the same version (a changed file is a new Note),
		// and asks no hash: a note the load did not hash is not read again.
		if id, ok := ix.ids[sn.e.Path]; ok && (ix.docs[id].e == sn.e || ix.docs[id].a.hash == sn.e.Sum()) {
			d := &ix.docs[id]
			d.e, d.effective, keep[id] = sn.e, sn.effective, true
			continue
		}
		missing = append(missing, i)
	}
	for path, id := range ix.ids {
		if !keep[id] {
			ix.remove(id)
			delete(ix.ids, path)
		}
	}
	// Each worker analyzes a run of the notes with a scratch of its own and
	// lists them under its terms in lists of its own (by its term ids, no
	// lookup per note, no lock); the runs are in order of the notes, so each
	// term's lists from the workers follow one another in order of ids.
	base := int32(len(ix.docs))
	as := make([]*analyzed, len(missing))
	scratchOf := make([]*analysisScratch, len(missing))
	parallelRange(len(missing), func(lo, hi int) {
		sc := &analysisScratch{}
		for j := lo; j < hi; j++ {
			sc.left = int32(hi - j - 1)
			as[j], scratchOf[j] = analyze(scope[missing[j]].e, sc), sc
			sc.list(as[j], base+int32(j))
		}
	})
	var scratches []*analysisScratch // in order of their notes
	for j, sc := range scratchOf {
		if j == 0 || sc != scratchOf[j-1] {
			scratches = append(scratches, sc)
		}
	}
	// Each list grows once, by what the new notes add to it, one list at a
	// time (the shares of one list freed before the next grows).
	var grown []*termList
	for _, sc := range scratches {
		for _, tid := range sc.used {
			t := sc.terms[tid]
			l := ix.terms[t]
			if l == nil {
				l = &termList{last: -1}
				ix.terms[t] = l
			}
			if len(l.pending) == 0 {
				grown = append(grown, l)
			}
			l.pending = append(l.pending, &sc.parts[tid])
		}
	}
	for _, l := range grown {
		l.merge()
	}
	for j, i := range missing {
		ix.addDoc(scope[i], as[j])
	}
	if ix.dead > 0 && (ix.eager || ix.dead > maxDeadFree && ix.dead > len(ix.ids)) {
		ix.compact()
	}
	ix.built, ix.version = true, v
	if stored && (stale || len(missing) > 0) {
		p.saveStored()
	}
}

// scopeNotes lists the notes in the participant's scope, and whether each
// wins its key.
func (p *Participant) scopeNotes() []scopedNote {
	view := p.m.View(p.Scope())
	out := make([]scopedNote, 0, len(view.Keys)+len(view.Device))
	for _, kv := range view.Keys {
		out = append(out, scopedNote{kv.Winner, true})
		for _, s := range kv.Shadowed {
			out = append(out, scopedNote{s, false})
		}
	}
	for _, e := range view.Device {
		out = append(out, scopedNote{e, true})
	}
	return out
}

type scopedNote struct {
	e         *engine.Note
	effective bool
}

// addDoc gives a note the next id and counts it in the totals; its terms
// are listed by the caller.
func (ix *searchIndex) addDoc(sn scopedNote, a *analyzed) int32 {
	id := int32(len(ix.docs))
	ix.docs = append(ix.docs, doc{e: sn.e, a: a, effective: sn.effective})
	ix.ids[sn.e.Path] = id
	ix.lines += a.lines()
	ix.length += a.terms
	a.minor.each(func(w, n int, _ []byte) { ix.minor[stopList()[w]] += n })
	if !a.day.IsZero() {
		ix.days = append(ix.days, id)
	}
	return id
}

// remove takes a note's counts out of the totals and leaves its id dead.
func (ix *searchIndex) remove(id int32) {
	a := ix.docs[id].a
	ix.lines -= a.lines()
	ix.length -= a.terms
	a.minor.each(func(i, n int, _ []byte) {
		w := stopList()[i]
		if ix.minor[w] -= n; ix.minor[w] == 0 {
			delete(ix.minor, w)
		}
	})
	ix.docs[id] = doc{}
	ix.dead++
}

// compact drops the dead ids, numbering the live notes again in order.
func (ix *searchIndex) compact() {
	renum := make([]int32, len(ix.docs))
	live := ix.docs[:0]
	for id, d := range ix.docs {
		renum[id] = -1
		if d.a != nil {
			renum[id] = int32(len(live))
			live = append(live, d)
		}
	}
	clear(ix.docs[len(live):])
	ix.docs = live
	for path, id := range ix.ids {
		ix.ids[path] = renum[id]
	}
	for t, l := range ix.terms {
		// New arrays, not the old ones overwritten: a search that has let
		// go of the lock may still be reading postings of the old.
		var b []byte
		refs, last := int32(0), int32(-1)
		for rr := newRefReader(l.b); ; {
			r, ok := rr.next()
			if !ok {
				break
			}
			if r.id = renum[r.id]; r.id >= 0 {
				b = appendRef(b, last, r)
				refs, last = refs+1, r.id
			}
		}
		if refs == 0 {
			delete(ix.terms, t)
			continue
		}
		l.b, l.refs, l.last = slices.Clip(b), refs, last
	}
	days := ix.days[:0]
	for _, id := range ix.days {
		if id = renum[id]; id >= 0 {
			days = append(days, id)
		}
	}
	ix.days = days
	ix.dead = 0
}
