package session

import (
	"context"
	"fmt"
	"github.com/magicfrog/mf-lsp/engine"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// writeNote writes a note file, making its folders.
func writeNote(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

const tone = "---\nrevision: 2\nupdated: 2026-11-01T00:00:00.000Z\n---\nBe brief.\n"

// loaded is a session over a data directory holding one user note, loaded.
func loaded(t *testing.T, opts Options) (s *Session, data string) {
	t.Helper()
	data = t.TempDir()
	writeNote(t, filepath.Join(data, "memory", "user", "tone.md"), tone)
	s = New(opts)
	s.SetSettings(Settings{DataDir: data, Today: "2026-11-30", AutoRevision: true})
	if _, err := s.Load(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	return s, data
}

// TestSessionForgetsClosedDocumentsAndTrees: opening and closing many
// documents, in the main tree and in lone trees of other projects, leaves
// nothing behind: no document state, no lone tree (nor its watcher and
// symbol index).
func TestSessionForgetsClosedDocumentsAndTrees(t *testing.T) {
	s, data := loaded(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const rounds = 20
	for i := range rounds {
		main := filepath.Join(data, "memory", "user", fmt.Sprintf("n%d.md", i))
		writeNote(t, main, tone)
		project := t.TempDir()
		lone := filepath.Join(project, ".magicfrog", "memory", "notes", "x.md")
		writeNote(t, lone, tone)
		for _, p := range []string{main, lone} {
			uri := PathToURI(p)
			if _, err := s.Open(uri, "markdown", 1, []byte(tone)); err != nil {
				t.Fatal(err)
			}
			if err := s.await(ctx, p); err != nil {
				t.Fatal(err)
			}
			snap, err := s.Snapshot(p)
			if err != nil {
				t.Fatalf("snapshot of %s: %v", p, err)
			}
			WorkspaceSymbols(snap, "x") // builds the tree's symbol index
			if _, err := s.WillSave(p); err != nil {
				t.Fatal(err)
			}
		}
		if got := s.counts(); got.lone != 1 || got.docs != 2 {
			t.Fatalf("round %d with two documents open: %+v; want 2 documents, 1 lone tree", i, got)
		}
		s.Close(PathToURI(main))
		s.Close(PathToURI(lone))
	}
	if got := s.counts(); got != (counts{}) {
		t.Errorf("after closing everything: %+v; want nothing kept", got)
	}
}

// TestSessionForgetsTooLargeDocuments: a document ignored as too large is
// forgotten when it closes.
func TestSessionForgetsTooLargeDocuments(t *testing.T) {
	s := New(Options{MaxDocumentBytes: 4})
	for i := range 50 {
		uri := fmt.Sprintf("file:///big%d.md", i)
		if _, err := s.Open(uri, "markdown", 1, []byte("too large")); err == nil {
			t.Fatal("a document over the limit was tracked")
		}
		s.Close(uri)
	}
	if got := s.counts(); got != (counts{}) {
		t.Errorf("after closing: %+v; want nothing kept", got)
	}
}

type counts struct{ docs, byPath, tooLarge, lone int }

func (s *Session) counts() counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	return counts{len(s.docs), len(s.byPath), len(s.tooLarge), len(s.lone)}
}

// TestSnapshotNeverWaits: while the main tree loads, Snapshot answers
// ErrLoading at once; await returns when it is loaded.
func TestSnapshotNeverWaits(t *testing.T) {
	data := t.TempDir()
	writeNote(t, filepath.Join(data, "memory", "user", "tone.md"), tone)
	release := make(chan struct{})
	s := New(Options{BeforeLoad: func(engine.Options) { <-release }})
	defer s.Shutdown()
	s.SetSettings(Settings{DataDir: data})
	go s.Load()
	start := time.Now()
	if _, err := s.Snapshot(filepath.Join(data, "memory", "user", "tone.md")); err != ErrLoading {
		t.Errorf("snapshot while loading: %v; want ErrLoading", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("snapshot took %s while loading", took)
	}
	close(release)
	if err := s.await(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Snapshot(filepath.Join(data, "memory", "user", "tone.md")); err != nil {
		t.Errorf("snapshot after the load: %v", err)
	}
}

// TestAwaitSnapshot: beside a read loop, AwaitSnapshot waits for the load and
// snapshots; a path in the main tree with no note yet gets the tree (Note
// nil), a file no tree holds is ErrNotNote, and a load that outlasts ctx is
// ErrLoading.
func TestAwaitSnapshot(t *testing.T) {
	data := t.TempDir()
	note := filepath.Join(data, "memory", "user", "tone.md")
	writeNote(t, note, tone)
	release := make(chan struct{})
	s := New(Options{BeforeLoad: func(engine.Options) { <-release }})
	defer s.Shutdown()
	s.SetSettings(Settings{DataDir: data})
	go s.Load()

	short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := s.AwaitSnapshot(short, note); err != ErrLoading {
		t.Errorf("a load that outlasts ctx: %v; want ErrLoading", err)
	}
	close(release)
	ctx := context.Background()
	if snap, err := s.AwaitSnapshot(ctx, note); err != nil || snap.Note == nil || snap.Path != note {
		t.Errorf("the note: %+v, %v", snap, err)
	}
	if snap, err := s.AwaitSnapshot(ctx, ""); err != nil || snap.Note != nil || snap.Memory == nil {
		t.Errorf("the main tree: %+v, %v", snap, err)
	}
	unseen := filepath.Join(data, "memory", "user", "unseen.md")
	if snap, err := s.AwaitSnapshot(ctx, unseen); err != nil || snap.Note != nil || snap.Path != "" {
		t.Errorf("a path the tree locates without a note: %+v, %v; want the tree's snapshot", snap, err)
	}
	if _, err := s.AwaitSnapshot(ctx, filepath.Join(t.TempDir(), "README.md")); err != ErrNotNote {
		t.Errorf("a file no tree holds: %v; want ErrNotNote", err)
	}
}
