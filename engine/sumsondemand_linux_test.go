package engine_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/errcode"
)

// openSumsOnDemand is makeTree's tree loaded as mf-lsp render loads it:
// large notes keep their frontmatter only, unhashed when their stamp is
// trusted (Options.SumsOnDemand).
func openSumsOnDemand(t *testing.T, files map[string]string) (string, *engine.Memory, *engine.Memory) {
	t.Helper()
	dir, full := makeTree(t, files)
	m, err := engine.Open(engine.Options{DataDir: filepath.Join(dir, "data"), ProjectDir: filepath.Join(dir, "project"), BodiesOnDemand: true, SumsOnDemand: true})
	if err != nil {
		t.Fatal(err)
	}
	return dir, full, m
}

// TestSumsOnDemand: a tree loaded with SumsOnDemand long after its files
// were written takes no hash at load: Sum reads the text again and hashes
// it, to the load's hash. Its blocks, with and without a budget, written
// whole or streamed (RenderTo), are the resident tree's byte for byte.
// A note whose stamp moved since the load reads as changed, even with the
// same bytes (there is no hash to tell), and so does a block over it; its
// Sum equals no text's. A file written within 2 s of the load is hashed at
// load, as without the option.
func TestSumsOnDemand(t *testing.T) {
	big := note(3, strings.Repeat("the old text of a long note, [a link](../user/u-good.md)\n", 200))
	files := map[string]string{
		"data/memory/user/big.md":          big,
		"data/memory/agent/larry/other.md": note(2, strings.Repeat("larry's long note <note> & more\n", 300)),
		"project/.magicfrog/memory/t.md":   note(5, strings.Repeat("a task's long note\n", 400)),
	}
	engine.SetLoadClock(t, func() time.Time { return time.Now().Add(time.Hour) })
	dir, full, m := openSumsOnDemand(t, files)
	p := filepath.Join(dir, "data", "memory", "user", "big.md")
	e := m.Note(p)
	if e == nil || e.Resident() {
		t.Fatalf("want %s read on demand", p)
	}
	before := engine.OnDemandHashes()
	if e.Sum() != sha256.Sum256([]byte(big)) {
		t.Fatal("Sum of a note unhashed at load is not its text's")
	}
	if n := engine.OnDemandHashes() - before; n != 1 {
		t.Errorf("Sum hashed %d texts, want 1 (the load took no hash)", n)
	}
	for _, opts := range []engine.RenderOptions{{}, {Budget: 300}, {Budget: 3000}} {
		want := render(t, full, opts)
		if got := render(t, m, opts); got.Text != want.Text || got.Generation != want.Generation {
			t.Errorf("budget %d: the block differs:\n%s\nwant\n%s", opts.Budget, got.Text, want.Text)
		}
		opts.Scope, opts.Today = scopeT7, specToday
		var out bytes.Buffer
		if _, err := m.RenderTo(&out, opts); err != nil || out.String() != want.Text {
			t.Errorf("budget %d: RenderTo: %v\n%s\nwant\n%s", opts.Budget, err, out.String(), want.Text)
		}
	}

	m.SetOnStale(func(string) {})
	other := m.Note(filepath.Join(dir, "data", "memory", "agent", "larry", "other.md"))
	rewriteKeepingMtime(t, p, big) // the same bytes, a new change time
	var changed *engine.ChangedError
	if _, err := e.Text(); !errors.As(err, &changed) {
		t.Fatalf("Text after the stamp moved: %v, want a ChangedError", err)
	}
	var out bytes.Buffer
	if _, err := m.RenderTo(&out, engine.RenderOptions{Scope: scopeT7, Today: specToday}); errcode.Of(err) != errcode.Stale {
		t.Fatalf("RenderTo over a note whose stamp moved: %v, want stale", err)
	}
	if out.Len() != 0 {
		t.Errorf("RenderTo wrote %d bytes of a failed block", out.Len())
	}
	rewriteKeepingMtime(t, other.Path, string(other.TextOrNil()))
	if other.Sum() != ([32]byte{}) {
		t.Error("Sum of a note unhashed at load whose stamp moved: want the zero sum, which no text hashes to")
	}

	// The real clock: the files are younger than the load's start less 2 s.
	engine.SetLoadClock(t, time.Now)
	dir, _, m = openSumsOnDemand(t, files)
	e = m.Note(filepath.Join(dir, "data", "memory", "user", "big.md"))
	before = engine.OnDemandHashes()
	if e.Sum() != sha256.Sum256([]byte(big)) || engine.OnDemandHashes() != before {
		t.Error("a file written within 2 s of the load: want it hashed at load")
	}
}

// TestTextSumReadsOnce: TextSum of a note the load did not hash reads its
// file once and answers its text with the load's hash; Sum after it reads
// nothing. Its stamp is the trusted one, and a resident note has none.
// Once the file's stamp moved, TextSum answers the ChangedError Text does.
func TestTextSumReadsOnce(t *testing.T) {
	big := note(3, strings.Repeat("a long note read on demand\n", 300))
	small := note(1, "short\n")
	engine.SetLoadClock(t, func() time.Time { return time.Now().Add(time.Hour) })
	dir, _, m := openSumsOnDemand(t, map[string]string{"data/memory/user/big.md": big, "data/memory/user/small.md": small})
	e := m.Note(filepath.Join(dir, "data", "memory", "user", "big.md"))
	if e == nil || e.Resident() || !e.TrustedStamp().Known() {
		t.Fatal("want big.md read on demand, under a trusted stamp")
	}
	reads := engine.OnDemandReads()
	text, sum, err := e.TextSum()
	if err != nil || string(text) != big || sum != sha256.Sum256([]byte(big)) {
		t.Fatalf("TextSum: %v, sum %x; want the text and its hash", err, sum)
	}
	if e.Sum() != sum {
		t.Error("Sum after TextSum differs")
	}
	if n := engine.OnDemandReads() - reads; n != 1 {
		t.Errorf("TextSum then Sum read the file %d times, want 1", n)
	}
	s := m.Note(filepath.Join(dir, "data", "memory", "user", "small.md"))
	if _, sum, err := s.TextSum(); err != nil || sum != sha256.Sum256([]byte(small)) || s.TrustedStamp().Known() {
		t.Errorf("a resident note: TextSum %v, stamp %v; want its hash and no stamp", err, s.TrustedStamp())
	}

	dir, _, m = openSumsOnDemand(t, map[string]string{"data/memory/user/big.md": big})
	m.SetOnStale(func(string) {})
	e = m.Note(filepath.Join(dir, "data", "memory", "user", "big.md"))
	rewriteKeepingMtime(t, e.Path, big)
	var changed *engine.ChangedError
	if _, _, err := e.TextSum(); !errors.As(err, &changed) {
		t.Errorf("TextSum after the stamp moved: %v, want a ChangedError", err)
	}
}
