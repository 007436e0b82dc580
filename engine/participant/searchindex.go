package participant

import (
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
// postings, and the matched ones.
type searchScratch struct {
	cands   []cand
	posts   []posting // the candidates' postings of the query's terms
	hits    []*posting
	inKey   []bool
	matched []*cand
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
func (ix *searchIndex) giveBack(sc *searchScratch) {
	clear(sc.cands[:cap(sc.cands)])
	clear(sc.hits[:cap(sc.hits)])
	clear(sc.posts[:cap(sc.posts)])
	clear(sc.matched[:cap(sc.matched)])
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

// termList is the notes holding one term, by ascending id, and the term's
// positions in all of them, in one array in the order of the notes: a query
// reads them in a row rather than from every note's own allocation.
type termList struct {
	refs []noteRef
	at   []uint64 // packAt's, per note in order

	grow, growRefs int // what a batch of new notes adds, while it is added
}

// noteRef is one note holding a term: its id, the lines of its body holding
// the term, and the term's positions there, at[lo:lo+n] (n is 0 where the
// term is in the key only).
type noteRef struct {
	id           int32
	lines, lo, n int32
	key          bool
}

// posting is the note's posting of the term, r of list l.
func (l *termList) posting(r noteRef) posting {
	return posting{lines: r.lines, at: l.at[r.lo : r.lo+r.n : r.lo+r.n]}
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
		if id, ok := ix.ids[sn.e.Path]; ok && ix.docs[id].a.hash == sn.e.Sum() {
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
	// Each worker analyzes a run of the notes with a scratch of its own,
	// whose term ids then find the terms' lists without a lookup per note.
	as := make([]*analyzed, len(missing))
	scratchOf := make([]*analysisScratch, len(missing))
	parallelRange(len(missing), func(lo, hi int) {
		sc := &analysisScratch{}
		for j := lo; j < hi; j++ {
			as[j], scratchOf[j] = analyze(scope[missing[j]].e, sc), sc
		}
	})
	tables := map[*analysisScratch][]*termList{} // the lists by the scratches' term ids
	for _, sc := range scratchOf {
		if tables[sc] == nil {
			tables[sc] = make([]*termList, len(sc.ids))
		}
	}
	// Each list grows once: first what the new notes add to it.
	var grown []*termList
	for j, a := range as {
		lists := tables[scratchOf[j]]
		for slot := range a.vocab {
			l := ix.listOf(a, slot, lists)
			if l.grow == 0 {
				grown = append(grown, l)
			}
			l.grow += len(a.posts[slot].at)
			l.growRefs++
		}
	}
	for _, l := range grown {
		l.at, l.refs = slices.Grow(l.at, l.grow), slices.Grow(l.refs, l.growRefs)
		l.grow, l.growRefs = 0, 0
	}
	for j, i := range missing {
		ix.add(scope[i], as[j], tables[scratchOf[j]])
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

// add gives a note the next id and lists it under its terms; lists is the
// terms' lists by the ids of the scratch that analyzed it, filled as found.
func (ix *searchIndex) add(sn scopedNote, a *analyzed, lists []*termList) {
	id := ix.addDoc(sn, a)
	for slot := range a.vocab {
		l := ix.listOf(a, slot, lists)
		p := &a.posts[slot]
		l.refs = append(l.refs, noteRef{id: id, lines: p.lines, lo: int32(len(l.at)), n: int32(len(p.at))})
		l.at = append(l.at, p.at...)
	}
	a.termIDs, a.posts = nil, nil // the lists hold the positions
	for _, t := range a.keyTerms {
		l := ix.terms[t]
		if l == nil {
			l = &termList{}
			ix.terms[t] = l
		}
		if n := len(l.refs); n > 0 && l.refs[n-1].id == id {
			l.refs[n-1].key = true
		} else {
			l.refs = append(l.refs, noteRef{id: id, key: true})
		}
	}
}

// addDoc gives a note the next id and counts it in the totals; its terms
// are listed by the caller.
func (ix *searchIndex) addDoc(sn scopedNote, a *analyzed) int32 {
	id := int32(len(ix.docs))
	ix.docs = append(ix.docs, doc{e: sn.e, a: a, effective: sn.effective})
	ix.ids[sn.e.Path] = id
	ix.lines += a.lines()
	ix.length += a.terms
	for w, ls := range a.minor {
		ix.minor[w] += len(ls)
	}
	if !a.day.IsZero() {
		ix.days = append(ix.days, id)
	}
	return id
}

// listOf is the list of term slot of a, made if new; lists is the lists by
// the ids of the scratch that analyzed a, filled as found.
func (ix *searchIndex) listOf(a *analyzed, slot int, lists []*termList) *termList {
	id := a.termIDs[slot]
	l := lists[id]
	if l == nil {
		t := a.vocab[slot]
		if l = ix.terms[t]; l == nil {
			l = &termList{}
			ix.terms[t] = l
		}
		lists[id] = l
	}
	return l
}

// remove takes a note's counts out of the totals and leaves its id dead.
func (ix *searchIndex) remove(id int32) {
	a := ix.docs[id].a
	ix.lines -= a.lines()
	ix.length -= a.terms
	for w, ls := range a.minor {
		if ix.minor[w] -= len(ls); ix.minor[w] == 0 {
			delete(ix.minor, w)
		}
	}
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
		var refs []noteRef
		var at []uint64
		for _, r := range l.refs {
			if r.id = renum[r.id]; r.id >= 0 {
				refs = append(refs, r)
			}
		}
		n := 0
		for _, r := range refs {
			n += int(r.n)
		}
		at = make([]uint64, 0, n)
		for i, r := range refs {
			p := l.posting(r)
			refs[i].lo = int32(len(at))
			at = append(at, p.at...)
		}
		if len(refs) == 0 {
			delete(ix.terms, t)
			continue
		}
		l.refs, l.at = refs, at
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
