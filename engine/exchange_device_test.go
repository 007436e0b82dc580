package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 21: importing another machine's export holding a device note with the
// same key as one of this machine's own. With a higher revision it overwrote
// this machine's note (and the block lost its <device> group); with a lower
// one it was dropped. Now it is a note of its own, beside this machine's,
// under device/machines/<its machine>/, and never in this machine's block.
func TestImportOtherMachinesDeviceNotes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		revision string
	}{{"higher revision", "5"}, {"lower revision", "1"}, {"same revision", "2"}} {
		t.Run(tc.name, func(t *testing.T) {
			mine := "---\nrevision: 2\nmachine: m1\n---\nmy tools\n"
			theirs := "---\nrevision: " + tc.revision + "\nmachine: m2\n---\ntheir tools\n"
			m, dir := newTree(t, map[string]string{
				"data/machine-id":             "m1\n",
				"data/memory/device/tools.md": mine,
				"export/machine/tools.md":     theirs,
				"export/machine/only-m2.md":   "---\nrevision: 1\nmachine: m2\n---\nonly there\n",
			})
			res, err := m.Import(filepath.Join(dir, "export"))
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range res.Skipped {
				t.Errorf("skipped %s", s)
			}
			if got := read(t, filepath.Join(dir, "data/memory/device/tools.md")); got != mine {
				t.Errorf("this machine's note was replaced:\n%s", got)
			}
			other := filepath.Join(dir, "data/memory/device/machines/m2/tools.md")
			if got := read(t, other); got != theirs {
				t.Errorf("the other machine's note:\n%s", got)
			}
			read(t, filepath.Join(dir, "data/memory/device/machines/m2/only-m2.md"))
			b, err := m.Render(RenderOptions{Scope: Scope{Machine: "m1"}})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.Text, `<device machine="m1">`) || !strings.Contains(b.Text, "my tools") {
				t.Errorf("the block lost this machine's device group:\n%s", b.Text)
			}
			if strings.Contains(b.Text, "their tools") || strings.Contains(b.Text, "only there") {
				t.Errorf("the other machine's notes are in this machine's block:\n%s", b.Text)
			}
			// Seen from m2 (a scope naming it), its notes are its own rows.
			b2, err := m.Render(RenderOptions{Scope: Scope{Machine: "m2"}})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b2.Text, "their tools") || strings.Contains(b2.Text, "my tools") {
				t.Errorf("m2's view:\n%s", b2.Text)
			}
			// Importing again changes nothing.
			res, err = m.Import(filepath.Join(dir, "export"))
			if err != nil || len(res.Imported) != 0 {
				t.Errorf("second import: %+v %v", res, err)
			}
		})
	}
}

// An export of every machine's notes, imported on the other machine, gives
// each machine its own notes back in device/ and the other's beside them.
func TestDeviceNotesRoundTrip(t *testing.T) {
	m, dir := newTree(t, map[string]string{
		"data/machine-id":                         "m1\n",
		"data/memory/device/tools.md":             "---\nrevision: 2\nmachine: m1\n---\nm1 tools\n",
		"data/memory/device/machines/m2/tools.md": "---\nrevision: 7\nmachine: m2\n---\nm2 tools\n",
		"m2/data/machine-id":                      "m2\n",
		"m2/data/memory/device/tools.md":          "---\nrevision: 6\nmachine: m2\n---\nm2 tools, older\n",
	})
	out := filepath.Join(dir, "out")
	res, err := m.ExportWith(out, ExportOptions{AllMachines: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skipped) != 0 {
		t.Errorf("export skipped %v", res.Skipped)
	}
	read(t, filepath.Join(out, "machine/tools.md"))
	read(t, filepath.Join(out, "machine/machines/m2/tools.md"))

	m2, err := Open(Options{DataDir: filepath.Join(dir, "m2/data")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m2.Import(out); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(dir, "m2/data/memory/device/tools.md")); !strings.Contains(got, "revision: 7") {
		t.Errorf("m2's own note did not take its newer revision:\n%s", got)
	}
	if got := read(t, filepath.Join(dir, "m2/data/memory/device/machines/m1/tools.md")); !strings.Contains(got, "m1 tools") {
		t.Errorf("m1's note on m2:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "m2/data/memory/device/machines/m2")); err == nil {
		t.Error("m2's own notes landed in a machine folder of their own")
	}
}

// A machine binding that could name a folder outside device/ is refused.
func TestImportDeviceHostileMachine(t *testing.T) {
	m, dir := newTree(t, map[string]string{
		"data/machine-id":        "m1\n",
		"export/machine/a.md":    "---\nrevision: 1\nmachine: ../../account\n---\nx\n",
		"export/machine/b.md":    "---\nrevision: 1\nmachine: .hidden\n---\nx\n",
		"export/machine/c.md":    "---\nrevision: 1\nmachine: \"a/b\"\n---\nx\n",
		"export/account/keep.md": "---\nrevision: 1\n---\nk\n",
	})
	res, err := m.Import(filepath.Join(dir, "export"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Imported) != 1 || len(res.Skipped) != 3 {
		t.Errorf("imported %v, skipped %v", res.Imported, res.Skipped)
	}
	if _, err := os.Stat(filepath.Join(dir, "data/memory/account/a.md")); err == nil {
		t.Error("a machine binding led outside device/")
	}
}
