package session

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/engine/frontmatter"
)

// The features are functions of a snapshot with byte offsets in and byte
// spans out; these tests call them without any protocol.

var clock = time.Date(2026, 11, 30, 9, 15, 0, 0, time.UTC)

func TestDocumentSymbolsSpans(t *testing.T) {
	src := []byte("---\nrevision: 2\n---\n# Title\nintro\n## Part\nbody\n# Next\n")
	syms := DocumentSymbols(src)
	var names []string
	for _, s := range syms {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ","); got != "revision,Title,Next" {
		t.Fatalf("top-level symbols %q; want revision,Title,Next", got)
	}
	title := syms[1]
	if got := string(src[title.Selection.Start:title.Selection.End]); got != "# Title" {
		t.Errorf("Title selection %q; want the heading line", got)
	}
	if got := string(src[title.Span.Start:title.Span.End]); got != "# Title\nintro\n## Part\nbody" {
		t.Errorf("Title section %q; want it to run to the next heading of its level", got)
	}
	if len(title.Children) != 1 || title.Children[0].Name != "Part" {
		t.Errorf("Title children %+v; want Part", title.Children)
	}
	if syms[0].Kind != SymbolProperty || syms[0].Detail != "2" {
		t.Errorf("revision symbol %+v; want a property with detail 2", syms[0])
	}
}

func TestWorkspaceSymbolsSubstringFirst(t *testing.T) {
	s, data := loaded(t, Options{})
	writeNote(t, filepath.Join(data, "memory", "user", "style.md"), tone)
	writeNote(t, filepath.Join(data, "memory", "user", "sxtxyxlxe.md"), tone)
	s.Refresh([]string{filepath.Join(data, "memory", "user", "style.md"), filepath.Join(data, "memory", "user", "sxtxyxlxe.md")})
	snap, err := s.Snapshot("")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, n := range WorkspaceSymbols(snap, "STYLE") {
		keys = append(keys, n.Key)
	}
	if got := strings.Join(keys, ","); got != "style.md,sxtxyxlxe.md" {
		t.Errorf("symbols for STYLE: %q; want the substring match, then the subsequence", got)
	}
}

func TestWillSaveBumpsRevisionWithTheSessionClock(t *testing.T) {
	s, data := loaded(t, Options{Now: func() time.Time { return clock }})
	path := filepath.Join(data, "memory", "user", "tone.md")
	if _, err := s.Open(PathToURI(path), "markdown", 1, []byte(tone)); err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(tone, "Be brief.", "Be briefer.", 1)
	if _, err := s.Change(PathToURI(path), 2, []byte(edited), true); err != nil {
		t.Fatal(err)
	}
	dec, err := s.WillSave(path)
	if err != nil || dec.Conflict != nil {
		t.Fatalf("WillSave: %+v, %v", dec, err)
	}
	got := string(frontmatter.Apply([]byte(edited), dec.Edits))
	if !strings.Contains(got, "revision: 3\n") || !strings.Contains(got, "updated: 2026-11-30T09:15:00.000Z\n") {
		t.Errorf("after the edits:\n%s\nwant revision 3, updated from the session clock", got)
	}
}

func TestWillSaveConflictAsksOnceAndTakesTheDisk(t *testing.T) {
	s, data := loaded(t, Options{})
	path := filepath.Join(data, "memory", "user", "tone.md")
	uri := PathToURI(path)
	if _, err := s.Open(uri, "markdown", 1, []byte(tone)); err != nil {
		t.Fatal(err)
	}
	agent := strings.NewReplacer("revision: 2", "revision: 5", "Be brief.", "Be terse.").Replace(tone)
	writeNote(t, path, agent)
	dec, err := s.WillSave(path)
	if err != nil || dec.Conflict == nil || !dec.Conflict.Ask || len(dec.Edits) != 0 {
		t.Fatalf("save over a newer disk: %+v, %v; want a conflict to ask about and no edits", dec, err)
	}
	if !strings.Contains(dec.Conflict.Question, "revision 5 on disk") {
		t.Errorf("question %q; want it to name the disk's revision", dec.Conflict.Question)
	}
	if again, _ := s.WillSave(path); again.Conflict == nil || again.Conflict.Ask {
		t.Errorf("second save while the question is open: %+v; want the conflict, not asked again", again.Conflict)
	}
	r, ok := s.TakeDisk(uri)
	if !ok || r.Text != agent {
		t.Errorf("TakeDisk: %q, %v; want the disk's text", r.Text, ok)
	}
}

func TestHoverOverALinkSpansTheLink(t *testing.T) {
	s, data := loaded(t, Options{})
	path := filepath.Join(data, "memory", "user", "links.md")
	text := tone + "See [the tone](tone.md) first.\n"
	writeNote(t, path, text)
	s.Refresh([]string{path})
	snap, err := s.Snapshot(path)
	if err != nil {
		t.Fatal(err)
	}
	off := strings.Index(text, "the tone")
	h := Hover(snap, off)
	if !h.OnLink || text[h.Span.Start:h.Span.End] != "[the tone](tone.md)" {
		t.Errorf("hover span %q (on link %v); want the link", text[h.Span.Start:h.Span.End], h.OnLink)
	}
	if !strings.Contains(h.Markdown, "Be brief.") {
		t.Errorf("hover %q; want the target's summary line", h.Markdown)
	}
	if h := Hover(snap, 0); h.OnLink || !strings.Contains(h.Markdown, "**Chain** of `links.md`") {
		t.Errorf("hover on the frontmatter: %q; want the note described with its chain", h.Markdown)
	}
}

func TestHoverShowsTheSizeOnlyOnceCounted(t *testing.T) {
	s, data := loaded(t, Options{})
	path := filepath.Join(data, "memory", "user", "tone.md")
	snap, err := s.Snapshot(path)
	if err != nil {
		t.Fatal(err)
	}
	if h := Hover(snap, 0); !strings.Contains(h.Markdown, "- size: not counted yet") {
		t.Errorf("hover before any count: %q; want the size not counted (hover must not build the tokenizer)", h.Markdown)
	}
	n, _ := snap.Note.Tokens(nil)
	if h := Hover(snap, 0); !strings.Contains(h.Markdown, fmt.Sprintf("- size: %d tokens\n", n)) {
		t.Errorf("hover after the note was counted: %q; want its %d tokens", h.Markdown, n)
	}
}

func TestNoteLensOfAnEffectiveNote(t *testing.T) {
	s, data := loaded(t, Options{})
	path := filepath.Join(data, "memory", "user", "tone.md")
	snap, err := s.Snapshot(path)
	if err != nil {
		t.Fatal(err)
	}
	if l := NoteLens(snap); l.Title != "effective" || l.Path != path || l.Command != ShowNoteCommand {
		t.Errorf("lens %+v; want effective, opening the note itself", l)
	}
}

// TestOpenedAtTheDisksNextRevisionSavesWithoutAConflict: after a promotion's
// WorkspaceEdit (the frontmatter edit, then the RenameFile), VS Code opens the
// moved note with the buffer at the next revision while the file it moved
// still holds the one before. That buffer is the next revision being made from
// the disk version: saving it is no conflict (VS Code's save asked "at
// revision 3 on disk, written after this buffer read revision 4").
func TestOpenedAtTheDisksNextRevisionSavesWithoutAConflict(t *testing.T) {
	s, data := loaded(t, Options{Now: func() time.Time { return clock }})
	path := filepath.Join(data, "memory", "user", "tone.md") // tone is revision 2 on disk
	next := strings.Replace(tone, "revision: 2", "revision: 3", 1) + "My unsaved edit.\n"
	if _, err := s.Open(PathToURI(path), "markdown", 1, []byte(next)); err != nil {
		t.Fatal(err)
	}
	dec, err := s.WillSave(path)
	if err != nil || dec.Conflict != nil {
		t.Fatalf("WillSave of the disk's next revision: %+v, %v; want no conflict", dec, err)
	}
	if got := string(frontmatter.Apply([]byte(next), dec.Edits)); !strings.Contains(got, "revision: 3\n") {
		t.Errorf("after the edits:\n%s\nwant it to stay revision 3", got)
	}
}
