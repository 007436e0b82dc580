package session

import (
	"bytes"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
)

// Completion in a memory note:
//
//   - a frontmatter key at the start of a line: the keys the engine reads that
//     the note lacks: revision and updated; machine on device notes only; name
//     and description in a skills layer;
//   - a frontmatter value after "key: ": revision (the note's revision, 1 for a
//     new note: a save bumps it), updated (now, as the engine writes it),
//     machine (this machine's ID, device notes only), name (the file's name);
//   - a Markdown link's destination after "](": every note in the participant's
//     scope, as a path relative to this note, each version marked effective or
//     shadowed (by what);
//   - a wikilink after "[[": every key in the participant's scope, marked with
//     the note that wins it, and the layer prefixes ("skills/").
//
// Nothing outside the participant's scope is ever offered: another agent's or
// task's notes and other machines' device notes are not candidates.

// MaxCompletions caps a completion answer; a longer list is marked incomplete
// and the client asks again as the user types.
const MaxCompletions = 100

// CompletionKind says what a completion item is.
type CompletionKind int

const (
	CompleteKey    CompletionKind = iota // a frontmatter key
	CompleteValue                        // a frontmatter value
	CompleteNote                         // a note (link target)
	CompleteFolder                       // a layer prefix
)

// CompletionItem is one completion: Edit replaces the typed text.
type CompletionItem struct {
	Label  string
	Detail string
	Kind   CompletionKind
	Edit   frontmatter.Edit
	// Sort orders items: the winner of a key before the versions it shadows.
	Sort string
}

// Completion is the answer at byte offset off of the snapshot's note.
type Completion struct {
	Items      []CompletionItem
	Incomplete bool
	pooled     *[]CompletionItem // Items' array, when add took it from itemArrays
}

// add appends it, making room for a whole answer at the first item: a list
// of notes stops at MaxCompletions, so that is one allocation, not the eight
// of growing it item by item.
func (c *Completion) add(it CompletionItem) {
	if c.Items == nil {
		c.pooled = itemArrays.Get().(*[]CompletionItem)
		c.Items = (*c.pooled)[:0]
	}
	c.Items = append(c.Items, it)
}

// itemArrays are the arrays of MaxCompletions items that add makes room in:
// a front end that converted an answer gives its array back (Release), so a
// keystroke's completion leaves no array of 100 items for the collector.
var itemArrays = sync.Pool{New: func() any {
	items := make([]CompletionItem, 0, MaxCompletions)
	return &items
}}

// Release gives c's items back for the next completion to reuse; c.Items must
// not be read after. Only the arrays add took are kept.
func (c *Completion) Release() {
	if c.pooled == nil || cap(c.Items) != cap(*c.pooled) {
		return
	}
	clear(c.Items) // no strings kept alive by the pool
	*c.pooled = c.Items[:0]
	itemArrays.Put(c.pooled)
	c.Items, c.pooled = nil, nil
}

// Complete is the completion at byte offset off of the snapshot's note.
func Complete(snap *Snapshot, off int) Completion {
	src := snap.Src()
	if off < 0 || off > len(src) {
		return Completion{}
	}
	doc := frontmatter.Parse(src)
	ls := lineStart(src, off)
	line := string(src[ls:off])
	if doc.Present && off > doc.Open.End && (!doc.Terminated || off <= doc.Close.Start) {
		return Completion{Items: frontmatterItems(snap, doc, ls, line)}
	}
	if off < doc.Body {
		return Completion{}
	}
	if i := strings.LastIndex(line, "[["); i >= 0 && !strings.Contains(line[i:], "]]") {
		return wikiItems(snap, ls+i+2, line[i+2:])
	}
	if i := strings.LastIndex(line, "]("); i >= 0 && !strings.ContainsAny(line[i:], ") ") {
		return linkItems(snap, ls+i+2, line[i+2:])
	}
	return Completion{}
}

// frontmatterItems completes a key at the start of a line, or the value of
// the key before the colon.
func frontmatterItems(snap *Snapshot, doc *frontmatter.Document, ls int, line string) []CompletionItem {
	e := snap.Note
	device := e.Dimension == engine.Device
	skill := e.Layer.IsSkills()
	if key, typed, ok := strings.Cut(line, ":"); ok {
		key = strings.TrimSpace(key)
		start := ls + len(line) - len(strings.TrimLeft(typed, " "))
		var v string
		switch {
		case key == "revision":
			v = strconv.Itoa(max(1, e.Revision()))
		case key == "updated":
			v = snap.Updated()
		case key == "machine" && device:
			v = snap.Machine()
		case key == "name" && skill:
			v = strings.TrimSuffix(filepath.Base(e.Path), filepath.Ext(e.Path))
		}
		if v == "" {
			return nil
		}
		return []CompletionItem{{Label: v, Detail: key, Kind: CompleteValue, Edit: frontmatter.Edit{Span: frontmatter.Span{Start: start, End: ls + len(line)}, Text: v}}}
	}
	if strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "-") {
		return nil
	}
	keys := []struct{ key, detail string }{
		{"revision", "the note's revision: +1 on every write"},
		{"updated", "the time of the last write, RFC 3339 UTC"},
	}
	if device {
		keys = append(keys, struct{ key, detail string }{"machine", "the machine this device note is bound to"})
	}
	if skill {
		keys = append(keys, struct{ key, detail string }{"name", "the skill's name"}, struct{ key, detail string }{"description", "what the skill is for: the <memory> block lists it"})
	}
	var out []CompletionItem
	for _, k := range keys {
		if doc.Field(k.key) != nil || !strings.HasPrefix(k.key, line) {
			continue
		}
		out = append(out, CompletionItem{Label: k.key, Detail: k.detail, Kind: CompleteKey,
			Edit: frontmatter.Edit{Span: frontmatter.Span{Start: ls, End: ls + len(line)}, Text: k.key + ": "}})
	}
	return out
}

// linkItems completes a Markdown link's destination: every note in scope but
// this one, as a path relative to this note's folder.
func linkItems(snap *Snapshot, start int, typed string) Completion {
	dir := filepath.Dir(snap.Path)
	// What is typed is a path from this note ("../../user/no"); its last
	// segment is matched against keys, and the client filters on the path.
	want := strings.ToLower(typed[strings.LastIndex(typed, "/")+1:])
	span := frontmatter.Span{Start: start, End: start + len(typed)}
	var c Completion
	snap.tree.candidates.lists(snap).matching(want, false, func(cand candidate) bool {
		e := cand.note
		if e.Path == snap.Path {
			return true
		}
		if len(c.Items) == MaxCompletions {
			c.Incomplete = true
			return false
		}
		rel, err := filepath.Rel(dir, e.Path)
		if err != nil {
			return true
		}
		c.add(CompletionItem{Label: e.Ref(), Detail: cand.standing, Kind: CompleteNote,
			Edit: frontmatter.Edit{Span: span, Text: filepath.ToSlash(rel)}, Sort: cand.sort})
		return true
	})
	return c
}

// wikiItems completes a wikilink: every key in scope (once, named by the note
// that wins it), then the layer prefixes.
func wikiItems(snap *Snapshot, start int, typed string) Completion {
	want := strings.ToLower(strings.TrimSpace(typed))
	span := frontmatter.Span{Start: start, End: start + len(typed)}
	var c Completion
	for _, l := range snap.Memory.Layers() {
		if l.Prefix != "" && strings.HasPrefix(l.Prefix, want) {
			c.add(CompletionItem{Label: l.Prefix, Detail: "layer " + l.Name, Kind: CompleteFolder,
				Edit: frontmatter.Edit{Span: span, Text: l.Prefix}, Sort: "0" + l.Prefix})
		}
	}
	snap.tree.candidates.lists(snap).matching(want, true, func(cand candidate) bool {
		e := cand.note
		if e.Path == snap.Path {
			return true
		}
		if len(c.Items) == MaxCompletions {
			c.Incomplete = true
			return false
		}
		key := strings.TrimSuffix(e.Key, ".md")
		c.add(CompletionItem{Label: key, Detail: cand.standing, Kind: CompleteNote,
			Edit: frontmatter.Edit{Span: span, Text: key}, Sort: cand.sort})
		return true
	})
	return c
}

// candidate is a note in the participant's scope, as completion offers it.
type candidate struct {
	note     *engine.Note
	lower    string // its key, lower case
	standing string // "task T-7 · effective", "user · shadowed by task T-7"
	winner   bool   // it wins its key (a device note always does)
	sort     string
}

// candidateCache holds a tree's completion candidates for one scope, kept in
// step with the tree: at a new version only the keys of the notes that came or
// went (as the tree tells them: engine.Memory.ChangesSince) are computed again
// (engine.Memory.ViewOfKey), not the whole view, and the sorted list of the
// rest is not copied: the keys computed again sit beside it (candidates) until
// there are compactAt of them. A new scope, or a tree that cannot tell what
// changed (a configuration reload), builds them again from the view.
type candidateCache struct {
	mu    sync.Mutex
	scope string
	notes noteSet
	cands *candidates // never written once made
	// compactAt is how many keys computed again the candidates keep beside
	// their sorted list before merging them into it (0: defaultCompactAt); a
	// field, under mu, so a test may set it while the warmer runs.
	compactAt int
}

// defaultCompactAt: a merge copies the sorted list (a few milliseconds at
// 100,000 notes), once in this many changed keys.
const defaultCompactAt = 512

// candidates are every note in a scope, sorted by lower-case key: base, an
// earlier version's list, less the keys in redone, merged with over, those
// keys' candidates now. Never written once made: a new version of the tree
// makes new candidates that share base.
type candidates struct {
	base   []candidate
	redone map[string]bool // note keys whose base candidates are stale
	over   []candidate     // the redone keys' candidates, sorted
}

// stale reports whether cand, a base candidate, is of a key computed again.
func (cs *candidates) stale(cand candidate) bool {
	return len(cs.redone) > 0 && cs.redone[cand.note.Key]
}

// each calls yield with the candidates from base index i and over index j
// on, in sort order, while more(cand) holds, until yield returns false; it
// reports whether yield never did.
func (cs *candidates) each(i, j int, more, yield func(candidate) bool) bool {
	for {
		for i < len(cs.base) && cs.stale(cs.base[i]) {
			i++
		}
		var cand candidate
		switch {
		case i < len(cs.base) && (j >= len(cs.over) || cs.base[i].sort <= cs.over[j].sort):
			cand = cs.base[i]
			i++
		case j < len(cs.over):
			cand = cs.over[j]
			j++
		default:
			return true
		}
		if !more(cand) {
			return true
		}
		if !yield(cand) {
			return false
		}
	}
}

// list is every candidate, in sort order.
func (cs *candidates) list() []candidate {
	out := make([]candidate, 0, len(cs.base)+len(cs.over))
	cs.each(0, 0, func(candidate) bool { return true }, func(c candidate) bool {
		out = append(out, c)
		return true
	})
	return out
}

// matching calls yield with the candidates (the winners only, when winners)
// whose key (lower case) holds want, those that start with it first (found
// by binary search: the lists are sorted), until yield returns false.
func (cs *candidates) matching(want string, winners bool, yield func(candidate) bool) {
	pick := func(cand candidate) bool { return !winners || cand.winner }
	prefixed := func(cand candidate) bool { return strings.HasPrefix(cand.lower, want) }
	i := sort.Search(len(cs.base), func(i int) bool { return cs.base[i].lower >= want })
	j := sort.Search(len(cs.over), func(j int) bool { return cs.over[j].lower >= want })
	if !cs.each(i, j, prefixed, func(cand candidate) bool { return !pick(cand) || yield(cand) }) || want == "" {
		return
	}
	// Then those that hold it further in, in sort order too.
	others := func(cand candidate) bool { return !prefixed(cand) && strings.Contains(cand.lower, want) && pick(cand) }
	cs.each(0, 0, func(candidate) bool { return true }, func(cand candidate) bool { return !others(cand) || yield(cand) })
}

func (c *candidateCache) lists(snap *Snapshot) *candidates {
	m, sc := snap.Memory, snap.Participant
	key := sc.Task + "\x00" + strings.Join(sc.Agents, "\x00") + "\x00" + m.MachineOf(sc)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cands != nil && c.scope == key && c.notes.current(m) {
		return c.cands
	}
	ch := c.notes.update(m)
	switch {
	case c.cands == nil || c.scope != key || ch.Full:
		c.cands = &candidates{base: viewCandidates(m.View(sc))}
	case len(ch.Added)+len(ch.Removed) > 0:
		at := c.compactAt
		if at == 0 {
			at = defaultCompactAt
		}
		c.cands = updateCandidates(m, sc, c.cands, ch.Added, ch.Removed, at)
	}
	c.scope = key
	return c.cands
}

// viewCandidates are the candidates of view, sorted.
func viewCandidates(view *engine.View) []candidate {
	list := make([]candidate, 0, len(view.Keys)+len(view.Device))
	list = appendCandidates(list, view.Keys, view.Device)
	sortCandidates(list)
	return list
}

func sortCandidates(list []candidate) {
	sort.SliceStable(list, func(i, j int) bool { return list[i].sort < list[j].sort })
}

// appendCandidates appends the candidates of the view's rows keys and device.
func appendCandidates(list []candidate, keys []engine.KeyView, device []*engine.Note) []candidate {
	for _, kv := range keys {
		standing := OwnerLabel(kv.Winner) + " · effective"
		if len(kv.Shadowed) > 0 {
			standing += " · shadows " + strings.Join(shadowedDimensions(kv.Shadowed), ", ")
		}
		lower := strings.ToLower(kv.Key)
		list = append(list, candidate{note: kv.Winner, lower: lower, standing: standing, winner: true, sort: lower + "\x000"})
		for _, x := range kv.Shadowed {
			list = append(list, candidate{note: x, lower: lower, standing: OwnerLabel(x) + " · shadowed by " + OwnerLabel(kv.Winner), sort: lower + "\x001" + x.Ref()})
		}
	}
	for _, x := range device {
		lower := strings.ToLower(x.Key)
		list = append(list, candidate{note: x, lower: lower, standing: "device · this machine", winner: true, sort: lower + "\x002" + x.Path})
	}
	return list
}

// updateCandidates is cs (the candidates of an earlier version of the tree)
// with the keys of the notes added and removed since computed again: new
// candidates sharing cs's sorted list, or, once compactAt keys were computed
// again, one new sorted list.
func updateCandidates(m *engine.Memory, sc engine.Scope, cs *candidates, added, removed []*engine.Note, compactAt int) *candidates {
	keys := map[string]bool{}
	for _, e := range added {
		keys[e.Key] = true
	}
	for _, e := range removed {
		keys[e.Key] = true
	}
	var over []candidate
	for k := range keys {
		kv, device := m.ViewOfKey(sc, k)
		over = appendCandidates(over, kv, device)
	}
	for _, cand := range cs.over {
		if !keys[cand.note.Key] {
			over = append(over, cand)
		}
	}
	sortCandidates(over)
	redone := make(map[string]bool, len(cs.redone)+len(keys))
	for k := range cs.redone {
		redone[k] = true
	}
	for k := range keys {
		redone[k] = true
	}
	next := &candidates{base: cs.base, redone: redone, over: over}
	if len(redone) >= compactAt {
		next = &candidates{base: next.list()}
	}
	return next
}

// CompleteConfig completes an ID in a configuration file of the snapshot's
// tree, at byte offset off of its text src: in magicfrog.json's "agents" and
// "shared", the first folders under agent/ that hold notes; in the project's
// .magicfrog/config.json, "agents" the roster's agents, "task", "tasks" and
// "shared" the task root's first folders and the project's tasks. IDs already
// listed in that array are left out. Nothing for any other file.
func CompleteConfig(snap *Snapshot, path string, src []byte, off int) Completion {
	m := snap.Memory
	if off < 0 || off > len(src) {
		return Completion{}
	}
	var keys []string
	roster := path == m.Paths.RosterFile()
	switch {
	case roster:
		keys = []string{"agents", "shared"}
	case m.Paths.ProjectDir != "" && path == m.Paths.ProjectConfigFile():
		keys = []string{"agents", "tasks", "task", "shared"}
	default:
		return Completion{}
	}
	key, start, typed, ok := jsonContext(src[:off], keys)
	if !ok {
		return Completion{}
	}
	var ids []string
	switch {
	case key == "agents" && !roster:
		ids = m.Roster()
	case roster:
		ids = owners(snap, engine.Agent)
	default:
		b := m.Binding()
		ids = append(owners(snap, engine.Task), b.Task)
		ids = append(ids, b.Tasks...)
	}
	listed := string(src[start:off])
	if i := bytes.LastIndexByte(src[:start], '['); key != "task" && i >= 0 {
		if j := bytes.IndexByte(src[i:], ']'); j >= 0 {
			listed = string(src[i : i+j])
		}
	}
	seen := map[string]bool{}
	var c Completion
	for _, id := range ids {
		if id == "" || seen[id] || !strings.HasPrefix(id, typed) || strings.Contains(listed, `"`+id+`"`) {
			continue
		}
		seen[id] = true
		c.Items = append(c.Items, CompletionItem{Label: id, Detail: key, Kind: CompleteValue,
			Edit: frontmatter.Edit{Span: frontmatter.Span{Start: start, End: off}, Text: id}, Sort: id})
	}
	sort.Slice(c.Items, func(i, j int) bool { return c.Items[i].Label < c.Items[j].Label })
	return c
}

// jsonContext finds, in the text before the cursor, the key (one of keys)
// whose value the cursor is in, inside a string: start is where the string's
// text starts, typed what is typed of it.
func jsonContext(before []byte, keys []string) (key string, start int, typed string, ok bool) {
	q := bytes.LastIndexByte(before, '"')
	if q < 0 || bytes.Count(before, []byte(`"`))%2 == 0 {
		return "", 0, "", false // not inside a string
	}
	start, typed = q+1, string(before[q+1:])
	at := -1
	for _, k := range keys {
		if i := bytes.LastIndex(before[:q], []byte(`"`+k+`"`)); i > at {
			at, key = i, k
		}
	}
	if at < 0 {
		return "", 0, "", false
	}
	between := before[at+len(key)+2 : q]
	colon := bytes.IndexByte(between, ':')
	if colon < 0 {
		return "", 0, "", false
	}
	rest := bytes.TrimSpace(between[colon+1:])
	switch {
	case len(rest) == 0: // "task": "…
	case rest[0] == '[' && !bytes.ContainsAny(rest, "]{}:"): // "agents": ["a", "…
	default:
		return "", 0, "", false
	}
	return key, start, typed, true
}

// owners are the first folders of a dimension that hold notes: IDs, and the
// unregistered folders that a registration would make IDs.
func owners(snap *Snapshot, d engine.Dimension) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range snap.tree.index.of(snap.Memory).notes {
		if e.Dimension == d && e.Owner != "" && !seen[e.Owner] {
			seen[e.Owner] = true
			out = append(out, e.Owner)
		}
	}
	return out
}
