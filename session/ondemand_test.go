package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/errcode"
)

// TestChangedBehindTheServersBackIsNeverServedStale: a large note, whose
// text the server reads on demand, is rewritten through a hard link in a
// folder nobody watches, so no watcher event tells of it. Hover over a link
// to it, a snapshot of it and a render never answer from the text it had:
// they say it changed (errcode.Stale) and the tree refreshes it, after which
// they answer from the new text.
func TestChangedBehindTheServersBackIsNeverServedStale(t *testing.T) {
	s, data := loaded(t, Options{})
	user := filepath.Join(data, "memory", "user")
	big := filepath.Join(user, "big.md")
	filler := strings.Repeat("more of a long note\n", 400)
	writeNote(t, big, "---\nrevision: 1\n---\nThe old first line.\n"+filler)
	links := filepath.Join(user, "links.md")
	text := tone + "See [the big note](big.md).\n"
	writeNote(t, links, text)
	s.Refresh([]string{big, links})
	alias := filepath.Join(t.TempDir(), "alias.md") // the same file, outside every watched folder
	if err := os.Link(big, alias); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	snap, err := s.Snapshot(links)
	if err != nil {
		t.Fatal(err)
	}
	if e := snap.Memory.Note(big); e == nil || e.Resident() {
		t.Fatalf("the server keeps %s whole: want its text read on demand", big)
	}
	off := strings.Index(text, "the big note")
	if h := Hover(snap, off); !strings.Contains(h.Markdown, "The old first line.") {
		t.Fatalf("hover before the change: %q", h.Markdown)
	}

	// Same size, same revision: only the hash can tell.
	f, err := os.OpenFile(alias, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("The new first line."), int64(len("---\nrevision: 1\n---\n"))); err != nil {
		t.Fatal(err)
	}
	f.Close()

	if h := Hover(snap, off); strings.Contains(h.Markdown, "The old first line.") {
		t.Fatalf("hover after the change served the old text: %q", h.Markdown)
	}
	if _, err := s.Snapshot(big); err != nil && errcode.Of(err) != errcode.Stale {
		t.Fatalf("snapshot of the changed note: %v; want its new text or stale", err)
	} else if err == nil {
		if snapBig, _ := s.Snapshot(big); !strings.Contains(string(snapBig.Src()), "The new first line.") {
			t.Fatalf("snapshot of the changed note holds %q", snapBig.Src()[:60])
		}
	}
	// The read told the watcher: the tree refreshes with no event from the disk.
	deadline := time.Now().Add(10 * time.Second)
	for {
		snap, err = s.Snapshot(links)
		if err != nil {
			t.Fatal(err)
		}
		h := Hover(snap, off)
		if strings.Contains(h.Markdown, "The new first line.") {
			break
		}
		if strings.Contains(h.Markdown, "The old first line.") {
			t.Fatalf("hover served the old text: %q", h.Markdown)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tree never refreshed the changed note: hover %q", h.Markdown)
		}
		time.Sleep(10 * time.Millisecond)
	}
	blk, err := snap.Memory.Render(engine.RenderOptions{Scope: snap.Scope, Today: "2026-11-30"})
	if err != nil || !strings.Contains(blk.Text, "The new first line.") || strings.Contains(blk.Text, "The old first line.") {
		t.Fatalf("render after the refresh: %v\n%s", err, blk.Text)
	}
}
