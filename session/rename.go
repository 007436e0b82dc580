package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
	"github.com/magicfrog/mf-lsp/engine/mdlinks"
)

// Renaming a note: from a link to it or from its first line, the note's file
// is renamed and every link to it in a note of the participant's scope is
// rewritten (a Markdown link to the new path relative to its note, a wikilink
// to the new key), and so are the note's own relative links when it changes
// folder. A rename stays inside the note's scope: the new name is a key in the
// same dimension and under the same owner (a name without "/" keeps the
// folder), and a name the engine would read as another place (another owner's
// folder, an unregistered one) is refused, as is a note the participant cannot
// see. Notes outside the scope are never changed. When the new key changes
// what shadows what, the plan says so (Shadowing), for the user to confirm.

// RenamePlan is a rename as the editor applies it: edit the files, then
// rename From to To.
type RenamePlan struct {
	From, To string
	Files    []FileEdits
	// Shadowing says, one sentence a line, what the rename changes in what
	// shadows what; "" when nothing.
	Shadowing string
}

// FileEdits are the edits of one file, in byte offsets of Src.
type FileEdits struct {
	Path  string
	Src   []byte
	Edits []Edit
}

// ErrNoRename is returned where there is nothing to rename.
var ErrNoRename = errors.New("rename a note from a link to it or from its first line")

// renameTarget is the note to rename at off, and the span a client selects.
func renameTarget(snap *Snapshot, off int) (*engine.Note, frontmatter.Span, error) {
	if l, ok := linkAt(snap, off); ok {
		t := resolveLink(snap.Memory, snap.Participant, snap.Path, l)
		if t == nil {
			return nil, frontmatter.Span{}, errors.New("this link leads to no note in this participant's scope: nothing to rename")
		}
		span := l.DestSpan
		if l.Reference {
			span = l.Span
		}
		return t, span, nil
	}
	if off > firstLineEnd(snap.Src()) {
		return nil, frontmatter.Span{}, ErrNoRename
	}
	if !snap.Memory.StatusOf(snap.Note, snap.Participant).InScope {
		return nil, frontmatter.Span{}, fmt.Errorf("%s is not in this participant's scope: renaming it is not this session's to do", snap.Note.Ref())
	}
	return snap.Note, frontmatter.Span{Start: 0, End: firstLineEnd(snap.Src())}, nil
}

// PrepareRename is where a rename at off applies and the name it starts
// from (the note's key); an error where no rename may start.
func PrepareRename(snap *Snapshot, off int) (frontmatter.Span, string, error) {
	t, span, err := renameTarget(snap, off)
	if err != nil {
		return frontmatter.Span{}, "", err
	}
	return span, t.Key, nil
}

// RenameAt plans renaming the note at off (a link's target, or the note on
// its first line) to newName: a key, or a file name in the note's folder.
func RenameAt(snap *Snapshot, off int, newName string) (RenamePlan, error) {
	t, _, err := renameTarget(snap, off)
	if err != nil {
		return RenamePlan{}, err
	}
	name := strings.TrimSpace(filepath.ToSlash(newName))
	if name == "" {
		return RenamePlan{}, errors.New("the new name is empty")
	}
	if !strings.HasSuffix(strings.ToLower(name), ".md") {
		name += ".md"
	}
	var to string
	if strings.Contains(name, "/") {
		if to, err = snap.Memory.PathOf(t.Dimension, t.Owner, name); err != nil {
			return RenamePlan{}, err
		}
	} else {
		to = filepath.Join(filepath.Dir(t.Path), name)
	}
	if _, err := os.Lstat(to); err == nil {
		return RenamePlan{}, fmt.Errorf("%s exists already: a rename never replaces a note", to)
	}
	return RenameNote(snap, t, to)
}

// RenameNote plans moving note t to the file to (the rename itself, or the
// edits that go with a move the client makes: workspace/willRenameFiles).
func RenameNote(snap *Snapshot, t *engine.Note, to string) (RenamePlan, error) {
	m, sc := snap.Memory, snap.Participant
	if !m.StatusOf(t, sc).InScope {
		return RenamePlan{}, fmt.Errorf("%s is not in this participant's scope: renaming it is not this session's to do", t.Ref())
	}
	to = filepath.Clean(to)
	src := srcOf(snap, t)
	moved, _, ok := m.Parse(to, src)
	if !ok || moved == nil {
		return RenamePlan{}, fmt.Errorf("%s is not a note's place in this memory", to)
	}
	if moved.Dimension != t.Dimension || moved.Owner != t.Owner || moved.Unregistered || moved.Legacy != t.Legacy {
		return RenamePlan{}, fmt.Errorf("%s would be read as %s, not as a note of %s: a rename stays in its scope (promote moves a note to another)", to, placeOf(moved), placeOf(t))
	}
	plan := RenamePlan{From: t.Path, To: to}
	byFile := map[string]*FileEdits{}
	add := func(path string, src []byte, e Edit) {
		fe := byFile[path]
		if fe == nil {
			fe = &FileEdits{Path: path, Src: src}
			byFile[path] = fe
		}
		fe.Edits = append(fe.Edits, e)
	}
	for _, b := range backlinks(snap, t) {
		if b.from.Path == t.Path {
			continue // the note's own links follow
		}
		if e, ok := relink(b.from.Path, b.link, t, moved); ok {
			add(b.from.Path, srcOf(snap, b.from), e)
		}
	}
	// The note's own relative links, from its new folder.
	for _, l := range mdlinks.Links(src, t.BodyStart()) {
		dest, ok := mdlinks.NoteTarget(t.Path, l.Dest)
		if !ok || l.Reference {
			continue
		}
		if dest == t.Path {
			dest = to
		}
		if rel := relPath(to, dest) + destSuffix(l.Dest); rel != l.Dest {
			add(t.Path, src, Edit{Span: l.DestSpan, Text: rel})
		}
	}
	for _, fe := range byFile {
		plan.Files = append(plan.Files, *fe)
	}
	sort.Slice(plan.Files, func(i, j int) bool { return plan.Files[i].Path < plan.Files[j].Path })
	plan.Shadowing = shadowing(m, sc, t, moved)
	return plan, nil
}

// relink is the edit that points link l (in the note at from) at moved
// instead of t.
func relink(from string, l mdlinks.Link, t, moved *engine.Note) (Edit, bool) {
	if l.Wiki {
		key := moved.Key
		if !strings.HasSuffix(strings.ToLower(l.Dest), ".md") {
			key = strings.TrimSuffix(key, filepath.Ext(key))
		}
		return Edit{Span: l.DestSpan, Text: key}, key != l.Dest
	}
	if l.Reference {
		return Edit{}, false // the definition's position is not known
	}
	return Edit{Span: l.DestSpan, Text: relPath(from, moved.Path) + destSuffix(l.Dest)}, true
}

// relPath is the path of to relative to the folder of the note at from.
func relPath(from, to string) string {
	rel, err := filepath.Rel(filepath.Dir(from), to)
	if err != nil {
		return filepath.ToSlash(to)
	}
	return filepath.ToSlash(rel)
}

// destSuffix is a destination's "#fragment" or "?query", kept by a rename.
func destSuffix(dest string) string {
	if i := strings.IndexAny(dest, "#?"); i >= 0 {
		return dest[i:]
	}
	return ""
}

// placeOf names a note's place: "agent larry", "an unregistered folder".
func placeOf(e *engine.Note) string {
	if e.Unregistered {
		return "the unregistered folder " + e.Owner + "/"
	}
	return OwnerLabel(e)
}

// shadowing says what moving t to moved changes in what shadows what.
func shadowing(m *engine.Memory, sc engine.Scope, t, moved *engine.Note) string {
	if t.Dimension == engine.Device || t.Key == moved.Key {
		return ""
	}
	var out []string
	if st := m.StatusOf(t, sc); st.Effective && len(st.Shadows) > 0 {
		out = append(out, fmt.Sprintf("%s: %s's version becomes effective (this note shadowed it).", t.Key, OwnerLabel(st.Shadows[0])))
	}
	switch st := m.StatusOf(moved, sc); {
	case st.Effective && len(st.Shadows) > 0:
		out = append(out, fmt.Sprintf("%s: this note will shadow %s.", moved.Key, strings.Join(shadowedDimensions(st.Shadows), ", ")))
	case !st.Effective && st.Winner != nil:
		out = append(out, fmt.Sprintf("%s: this note will be shadowed by %s.", moved.Key, OwnerLabel(st.Winner)))
	}
	return strings.Join(out, "\n")
}
