package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/history"
)

// TestBodiesOnDemandHistoryKeepsTheLoadedVersion (issue 21): the server's
// tree reads a large note on demand, so its text is not in memory; the keep
// pass after the load puts the version loaded in the local history, and
// when another program overwrites the note and the watcher refreshes it,
// that version is there byte for byte.
func TestBodiesOnDemandHistoryKeepsTheLoadedVersion(t *testing.T) {
	data := t.TempDir()
	writeNote(t, filepath.Join(data, "memory", "user", "tone.md"), tone)
	big := filepath.Join(data, "memory", "user", "big.md")
	loadedText := "---\nrevision: 2\n---\n" + strings.Repeat("written by another tool, never by mf-lsp\n", 200)
	writeNote(t, big, loadedText)
	kept := make(chan engine.KeptLoaded, 1)
	s := New(Options{KeepLoadedAfter: -1, KeptLoaded: func(_ *engine.Memory, k engine.KeptLoaded, err error) {
		if err != nil {
			t.Errorf("keep pass: %v", err)
		}
		kept <- k
	}})
	s.SetSettings(Settings{DataDir: data, Today: "2026-11-30"})
	m, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	if n := m.Note(big); n == nil || n.Resident() {
		t.Fatal("the server keeps the large note whole")
	}
	select {
	case k := <-kept:
		if k.Kept != 1 {
			t.Errorf("keep pass: %+v, want the large note kept", k)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no keep pass after the load")
	}
	if err := os.WriteFile(big, []byte("---\nrevision: 1\n---\nforeign\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for n := m.Note(big); n == nil || n.Revision() != 1; n = m.Note(big) {
		if time.Now().After(deadline) {
			t.Fatal("the watcher never refreshed the note")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if b, err := m.HistoryVersion(big, history.BlobID([]byte(loadedText))); err != nil || string(b) != loadedText {
		t.Errorf("the version loaded is not in the history (%v)", err)
	}
}

// TestShutdownStopsTheKeepPass: a keep pass not started yet, or running,
// is stopped by Shutdown, which waits for it.
func TestShutdownStopsTheKeepPass(t *testing.T) {
	ended := make(chan error, 1)
	s, _ := loaded(t, Options{KeepLoadedAfter: time.Hour, KeptLoaded: func(_ *engine.Memory, _ engine.KeptLoaded, err error) { ended <- err }})
	s.Shutdown()
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the pass ended with %v, want cancelled", err)
		}
	default:
		t.Error("Shutdown returned before the keep pass ended")
	}
}
