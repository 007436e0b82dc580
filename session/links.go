package session

import (
	"sort"
	"sync"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
	"github.com/magicfrog/mf-lsp/engine/mdlinks"
)

// Links between notes, as navigation sees them: a note's Markdown links
// ("[label](../user/style.md)", resolved by path from the note's folder) and
// its wikilinks ("[[notes/style]]", resolved by key to the note that wins the
// key in the participant's scope). A link resolves only to a note in the
// participant's scope: a link to another agent's or task's note, or to another
// machine's device note, leads nowhere (no document link, no definition), so
// navigation never shows a note the participant's block cannot hold.

// NoteLink is one link of a note and the note it resolves to.
type NoteLink struct {
	Link   mdlinks.Link
	Target *engine.Note
}

// linksOf are the Markdown links and wikilinks of src[body:], in source order.
func linksOf(src []byte, body int) []mdlinks.Link {
	return withWikiLinks(mdlinks.Links(src, body), src, body)
}

// withWikiLinks are the Markdown links ls with the wikilinks of src[body:],
// in source order (a new slice when there are wikilinks).
func withWikiLinks(ls []mdlinks.Link, src []byte, body int) []mdlinks.Link {
	if wl := mdlinks.WikiLinks(src, body); len(wl) > 0 {
		ls = append(ls[:len(ls):len(ls)], wl...)
		sort.SliceStable(ls, func(i, j int) bool { return ls[i].Span.Start < ls[j].Span.Start })
	}
	return ls
}

// noteLinks are the links of one version of an open buffer, each kind found
// at its first use and then shared (Snapshot.links): its Markdown links
// (the diagnostics' broken links read them too) and all of them.
type noteLinks struct {
	mdOnce, allOnce sync.Once
	md, all         []mdlinks.Link
}

// markdown are the Markdown links of src[body:] (mdlinks.Links), found once.
func (nl *noteLinks) markdown(src []byte, body int) []mdlinks.Link {
	nl.mdOnce.Do(func() { nl.md = mdlinks.Links(src, body) })
	return nl.md
}

// noteLinks are the snapshot's note's links, in source order: its open buffer's
// found once per version, a note on disk's read each time.
func (snap *Snapshot) noteLinks() []mdlinks.Link {
	src, body := snap.Src(), snap.Note.BodyStart()
	nl := snap.links
	if nl == nil {
		return linksOf(src, body)
	}
	nl.allOnce.Do(func() { nl.all = withWikiLinks(nl.markdown(src, body), src, body) })
	return nl.all
}

// inScope reports whether the participant can see e.
func inScope(m *engine.Memory, sc engine.Scope, e *engine.Note) bool {
	return e != nil && m.StatusOf(e, sc).InScope
}

// resolveLink is the note l (a link of the note at from) names, in scope sc;
// nil when it names none there.
func resolveLink(m *engine.Memory, sc engine.Scope, from string, l mdlinks.Link) *engine.Note {
	if l.Wiki {
		return KeyWinner(m, sc, mdlinks.WikiKey(l.Dest))
	}
	path, ok := mdlinks.NoteTarget(from, l.Dest)
	if !ok {
		return nil
	}
	if e := m.Note(path); inScope(m, sc, e) {
		return e
	}
	return nil
}

// KeyWinner is the note that wins key in scope sc: the effective chain
// version, else (a key only device notes have) this machine's device note.
func KeyWinner(m *engine.Memory, sc engine.Scope, key string) *engine.Note {
	var device *engine.Note
	for _, x := range m.Versions(key) {
		st := m.StatusOf(x, sc)
		if !st.InScope {
			continue
		}
		if x.Dimension == engine.Device {
			if device == nil {
				device = x
			}
			continue
		}
		if st.Effective {
			return x
		}
		if st.Winner != nil {
			return st.Winner
		}
	}
	return device
}

// DocumentLinks are the links of the snapshot's note that resolve to a note
// in the participant's scope.
func DocumentLinks(snap *Snapshot) []NoteLink {
	var out []NoteLink
	for _, l := range snap.noteLinks() {
		if t := resolveLink(snap.Memory, snap.Participant, snap.Path, l); t != nil {
			out = append(out, NoteLink{Link: l, Target: t})
		}
	}
	return out
}

// linkAt is the link of the snapshot's note at byte offset off.
func linkAt(snap *Snapshot, off int) (mdlinks.Link, bool) {
	n := snap.Note
	if off < n.BodyStart() {
		return mdlinks.Link{}, false
	}
	for _, l := range snap.noteLinks() {
		if off >= l.Span.Start && off <= l.Span.End {
			return l, true
		}
	}
	return mdlinks.Link{}, false
}

// Place is a span of a note's source: where navigation leads.
type Place struct {
	Path string
	Src  []byte // the note's bytes the span is of
	Span frontmatter.Span
	// release gives Src back when it was borrowed (placeIn): ReleasePlaces.
	release func()
}

// placeIn is the place span in e, its text borrowed (engine.Note.BorrowText):
// a note read on demand is read into a lent buffer, which ReleasePlaces gives
// back. Src is nil when e changed on disk since the load (the tree is told).
func placeIn(e *engine.Note, span frontmatter.Span) Place {
	src, release, _ := e.BorrowText()
	return Place{Path: e.Path, Src: src, Span: span, release: release}
}

// ReleasePlaces gives back the texts the places borrowed: a front end calls
// it when it has turned them into its own positions and keeps no Src. A
// place it is not called on keeps its text as any slice does.
func ReleasePlaces(ps []Place) {
	for i := range ps {
		if ps[i].release != nil {
			ps[i].release()
			ps[i].Src, ps[i].release = nil, nil
		}
	}
}

// linkIndexCache holds a tree's backlink index, kept in step with the tree:
// at each new version of the tree only the notes that changed (a changed note
// is a new *engine.Note; one that did not change keeps its pointer), as the
// tree tells them (engine.Memory.ChangesSince), are taken out of it or put
// into it, so a request after a save costs what changed, not a pass over the
// tree's notes. It is read and updated
// under mu only (linksTo).
type linkIndexCache struct {
	mu  sync.Mutex
	idx *linkIndex
}

// linkIndex is every note's links, by the path or key they name.
type linkIndex struct {
	notes  noteSet // the tree's version indexed
	out    map[*engine.Note][]mdlinks.Link
	byPath map[string][]*engine.Note // notes with a Markdown link to the path
	byKey  map[string][]*engine.Note // notes with a wikilink to the key
}

// linkSource is a note with a link that may name a target, and its links.
type linkSource struct {
	from  *engine.Note
	links []mdlinks.Link
}

// linksTo are the notes with a link to path (a Markdown link) or key (a
// wikilink), from the index brought to m's version.
func (c *linkIndexCache) linksTo(m *engine.Memory, path, key string) []linkSource {
	c.mu.Lock()
	defer c.mu.Unlock()
	idx := c.updateLocked(m)
	var out []linkSource
	seen := map[*engine.Note]bool{}
	for _, group := range [][]*engine.Note{idx.byPath[path], idx.byKey[key]} {
		for _, src := range group {
			if !seen[src] {
				seen[src] = true
				out = append(out, linkSource{from: src, links: idx.out[src]})
			}
		}
	}
	return out
}

// updateLocked brings the index to m's version: the notes that came since
// are added, the notes gone from the tree (deleted, renamed, or replaced by a
// new version) are removed; when the tree cannot tell what changed (a
// reload), the index is built again from every note.
func (c *linkIndexCache) updateLocked(m *engine.Memory) *linkIndex {
	idx := c.idx
	if idx != nil && idx.notes.current(m) {
		return idx
	}
	if idx == nil {
		idx = newLinkIndex()
	}
	ch := idx.notes.update(m)
	if ch.Full {
		notes := idx.notes
		idx = newLinkIndex()
		idx.notes = notes
	}
	for _, e := range ch.Removed {
		idx.remove(e)
	}
	for _, e := range ch.Added {
		idx.add(e)
	}
	c.idx = idx
	return idx
}

func newLinkIndex() *linkIndex {
	return &linkIndex{out: map[*engine.Note][]mdlinks.Link{}, byPath: map[string][]*engine.Note{}, byKey: map[string][]*engine.Note{}}
}

// linkTargets calls f with the path or key each of e's links names.
func linkTargets(e *engine.Note, ls []mdlinks.Link, f func(byKey bool, target string)) {
	for _, l := range ls {
		if l.Wiki {
			f(true, mdlinks.WikiKey(l.Dest))
		} else if p, ok := mdlinks.NoteTarget(e.Path, l.Dest); ok {
			f(false, p)
		}
	}
}

func (idx *linkIndex) add(e *engine.Note) {
	if !e.MayLink() {
		return // none of a link's bytes at load: not read again
	}
	src := e.TextOrNil()
	if len(src) < e.BodyStart() {
		return // changed on disk: its next version is indexed
	}
	ls := linksOf(src, e.BodyStart())
	if len(ls) == 0 {
		return
	}
	idx.out[e] = ls
	linkTargets(e, ls, func(byKey bool, t string) {
		m := idx.byPath
		if byKey {
			m = idx.byKey
		}
		if g := m[t]; len(g) == 0 || g[len(g)-1] != e {
			m[t] = append(g[:len(g):len(g)], e) // a new slice: never written under a reader
		}
	})
}

func (idx *linkIndex) remove(e *engine.Note) {
	ls, ok := idx.out[e]
	if !ok {
		return
	}
	delete(idx.out, e)
	linkTargets(e, ls, func(byKey bool, t string) {
		m := idx.byPath
		if byKey {
			m = idx.byKey
		}
		g := m[t]
		kept := make([]*engine.Note, 0, len(g))
		for _, x := range g {
			if x != e {
				kept = append(kept, x)
			}
		}
		if len(kept) == 0 {
			delete(m, t)
		} else {
			m[t] = kept
		}
	})
}

// Backlinks are the links, in notes of the participant's scope, that resolve
// to target: each link's span in its note, by note then position.
func Backlinks(snap *Snapshot, target *engine.Note) []Place {
	var out []Place
	for _, b := range backlinks(snap, target) {
		out = append(out, placeIn(b.from, b.link.Span))
	}
	return out
}

// backlink is one link to a note, in the note it stands in.
type backlink struct {
	from *engine.Note
	link mdlinks.Link
}

func backlinks(snap *Snapshot, target *engine.Note) []backlink {
	m, sc := snap.Memory, snap.Participant
	var out []backlink
	for _, src := range snap.tree.links.linksTo(m, target.Path, target.Key) {
		if !inScope(m, sc, src.from) {
			continue
		}
		for _, l := range src.links {
			if t := resolveLink(m, sc, src.from.Path, l); t != nil && t.Path == target.Path {
				out = append(out, backlink{from: src.from, link: l})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].from.Path != out[j].from.Path {
			return out[i].from.Path < out[j].from.Path
		}
		return out[i].link.Span.Start < out[j].link.Span.Start
	})
	return out
}
