package engine_test

import (
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
)

// A note's portable reference is one rule: dimension, owner when there is
// one, key. The <memory> block, mf:// resources and the command line use it.
func TestRef(t *testing.T) {
	for _, tc := range []struct {
		d          engine.Dimension
		owner, key string
		want       string
	}{
		{engine.Agent, "larry", "notes/style.md", "agent/larry/notes/style.md"},
		{engine.Agent, "", "notes/style.md", "agent/notes/style.md"},
		{engine.Task, "T-1", "journal/2026-11-30.md", "task/T-1/journal/2026-11-30.md"},
		{engine.User, "", "prefs.md", "user/prefs.md"},
		{engine.Device, "", "gpu.md", "device/gpu.md"},
	} {
		if got := engine.Ref(tc.d, tc.owner, tc.key); got != tc.want {
			t.Errorf("Ref(%v, %q, %q) = %q, want %q", tc.d, tc.owner, tc.key, got, tc.want)
		}
		e := &engine.Note{Dimension: tc.d, Owner: tc.owner, Key: tc.key}
		if e.Ref() != tc.want {
			t.Errorf("%+v: Note.Ref() = %q, want %q", tc, e.Ref(), tc.want)
		}
	}
}

// A scope that names no machine looks from this one.
func TestMachineOf(t *testing.T) {
	m, err := engine.Open(engine.Options{DataDir: t.TempDir(), Machine: "here"})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.MachineOf(engine.Scope{}); got != "here" {
		t.Errorf("MachineOf(no machine) = %q, want this machine's id", got)
	}
	if got := m.MachineOf(engine.Scope{Machine: "there"}); got != "there" {
		t.Errorf("MachineOf(there) = %q, want the scope's machine", got)
	}
	none, err := engine.Open(engine.Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if got := none.MachineOf(engine.Scope{}); got != "" {
		t.Errorf("MachineOf before a machine-id exists = %q, want \"\"", got)
	}
}
