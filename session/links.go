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
	ls := mdlinks.Links(src, body)
	if wl := mdlinks.WikiLinks(src, body); len(wl) > 0 {
		ls = append(ls, wl...)
		sort.SliceStable(ls, func(i, j int) bool { return ls[i].Span.Start < ls[j].Span.Start })
	}
	return ls
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
	n := snap.Note
	var out []NoteLink
	for _, l := range linksOf(n.Src, n.BodyStart()) {
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
	for _, l := range linksOf(n.Src, n.BodyStart()) {
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
}

// linkIndexCache holds a tree's backlink index, built once per version of the
// tree; a note that did not change keeps the links found in it before.
type linkIndexCache struct {
	mu  sync.Mutex
	idx *linkIndex
}

// linkIndex is every note's links, by the path or key they name.
type linkIndex struct {
	version uint64
	out     map[*engine.Note][]mdlinks.Link
	byPath  map[string][]*engine.Note // notes with a Markdown link to the path
	byKey   map[string][]*engine.Note // notes with a wikilink to the key
}

func (c *linkIndexCache) of(snap *Snapshot) *linkIndex {
	m := snap.Memory
	v := m.Version()
	c.mu.Lock()
	defer c.mu.Unlock()
	prev := c.idx
	if prev != nil && prev.version == v {
		return prev
	}
	idx := &linkIndex{version: v, out: map[*engine.Note][]mdlinks.Link{}, byPath: map[string][]*engine.Note{}, byKey: map[string][]*engine.Note{}}
	for _, e := range snap.tree.index.of(m).notes {
		var ls []mdlinks.Link
		if prev != nil {
			var seen bool
			ls, seen = prev.out[e]
			if !seen {
				ls = linksOf(e.Src, e.BodyStart())
			}
		} else {
			ls = linksOf(e.Src, e.BodyStart())
		}
		if len(ls) == 0 {
			continue
		}
		idx.out[e] = ls
		for _, l := range ls {
			if l.Wiki {
				k := mdlinks.WikiKey(l.Dest)
				idx.byKey[k] = appendOnce(idx.byKey[k], e)
			} else if p, ok := mdlinks.NoteTarget(e.Path, l.Dest); ok {
				idx.byPath[p] = appendOnce(idx.byPath[p], e)
			}
		}
	}
	c.idx = idx
	return idx
}

func appendOnce(es []*engine.Note, e *engine.Note) []*engine.Note {
	if n := len(es); n > 0 && es[n-1] == e {
		return es
	}
	return append(es, e)
}

// Backlinks are the links, in notes of the participant's scope, that resolve
// to target: each link's span in its note, by note then position.
func Backlinks(snap *Snapshot, target *engine.Note) []Place {
	var out []Place
	for _, b := range backlinks(snap, target) {
		out = append(out, Place{Path: b.from.Path, Src: b.from.Src, Span: b.link.Span})
	}
	return out
}

// backlink is one link to a note, in the note it stands in.
type backlink struct {
	from *engine.Note
	link mdlinks.Link
}

func backlinks(snap *Snapshot, target *engine.Note) []backlink {
	idx := snap.tree.links.of(snap)
	m, sc := snap.Memory, snap.Participant
	seen := map[*engine.Note]bool{}
	var out []backlink
	for _, group := range [][]*engine.Note{idx.byPath[target.Path], idx.byKey[target.Key]} {
		for _, src := range group {
			if seen[src] || !inScope(m, sc, src) {
				continue
			}
			seen[src] = true
			for _, l := range idx.out[src] {
				if t := resolveLink(m, sc, src.Path, l); t != nil && t.Path == target.Path {
					out = append(out, backlink{from: src, link: l})
				}
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
