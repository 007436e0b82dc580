package engine_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
)

// TestBodiesOnDemandLoadMakesNoGarbageOfTheText: a tree that reads its
// large notes on demand keeps their frontmatter, and its load allocates
// about that, not each note's whole text once more (the collector ran all
// through a load of 100,000 notes of 8-64 KB collecting them). The notes
// it keeps whole are its own copies: they answer their text after more
// notes were read.
func TestBodiesOnDemandLoadMakesNoGarbageOfTheText(t *testing.T) {
	data, texts, total := userNotes(t, 200, func(i int) int {
		if i%10 == 0 {
			return 3 // under ResidentMax: kept whole
		}
		return 800
	})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m, err := engine.Open(engine.Options{DataDir: data, BodiesOnDemand: true})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > uint64(total/4) {
		t.Errorf("loading %d bytes of notes on demand allocated %d bytes", total, got)
	}
	for p, want := range texts {
		e := m.Note(p)
		if e == nil {
			t.Fatalf("%s not loaded", p)
		}
		if e.Resident() != (len(want) <= engine.ResidentMax) {
			t.Errorf("%s (%d bytes): resident %v", p, len(want), e.Resident())
		}
		if got, err := e.Text(); err != nil || string(got) != want {
			t.Errorf("%s: text %.60q %v", p, got, err)
		}
	}
}

// userNotes writes n user notes of lines(i) lines each into a new data
// directory; it returns it, each note's text by path and their total size.
func userNotes(t *testing.T, n int, lines func(i int) int) (data string, texts map[string]string, total int) {
	t.Helper()
	data = filepath.Join(t.TempDir(), "data")
	user := filepath.Join(data, "memory", "user")
	if err := os.MkdirAll(user, 0o755); err != nil {
		t.Fatal(err)
	}
	texts = map[string]string{}
	for i := range n {
		text := fmt.Sprintf("---\nrevision: %d\n---\n# note %d\n\n%s", i+1, i, strings.Repeat(fmt.Sprintf("Line of note %d about the deploy.\n", i), lines(i)))
		p := filepath.Join(user, fmt.Sprintf("n%03d.md", i))
		total += len(text)
		texts[p] = text
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return data, texts, total
}

// TestHashIsOfTheTextLoaded: a note's hash is taken when first asked (a
// command that never asks hashes nothing), and is still the text's the tree
// loaded: a file changed on disk since does not change it, whether the note
// was kept whole or its text is read on demand (which that hash then
// refuses as stale).
func TestHashIsOfTheTextLoaded(t *testing.T) {
	for _, onDemand := range []bool{false, true} {
		data, texts, _ := userNotes(t, 2, func(i int) int { return 3 + 400*i })
		m, err := engine.Open(engine.Options{DataDir: data, BodiesOnDemand: onDemand})
		if err != nil {
			t.Fatal(err)
		}
		for p, text := range texts {
			if err := os.WriteFile(p, []byte(text+"changed\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256([]byte(text))
			e := m.Note(p)
			if got := e.Hash(); got != hex.EncodeToString(sum[:]) || e.Sum() != sum {
				t.Errorf("on demand %v, %d bytes: hash %s, want the loaded text's %x", onDemand, len(text), got, sum)
			}
			if _, err := e.Text(); !e.Resident() && err == nil {
				t.Errorf("on demand, %d bytes: the changed text was answered", len(text))
			}
		}
	}
}
