package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// newTree makes a data directory and a project with the given files (paths
// relative to a temp dir: "data/…" or "project/…") and opens it.
func newTree(t testing.TB, files map[string]string) (*Memory, string) {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := Open(Options{DataDir: filepath.Join(dir, "data"), ProjectDir: filepath.Join(dir, "project")})
	if err != nil {
		t.Fatal(err)
	}
	return m, dir
}

func read(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var fixedNow = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

func TestWriteCreatesAndBumps(t *testing.T) {
	m, dir := newTree(t, map[string]string{"data/machine-id": "m1\n"})
	res, err := m.Write(WriteRequest{Dimension: User, Key: "style/code.md", Body: []byte("Loops are fine.\n"), Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	want := "---\nrevision: 1\nupdated: 2026-11-30T09:00:00.000Z\n---\nLoops are fine.\n"
	if got := read(t, filepath.Join(dir, "data/memory/user/style/code.md")); got != want || res.Revision != 1 {
		t.Fatalf("got rev %d\n%s", res.Revision, got)
	}
	if e := m.Note(res.Path); e == nil || e.Revision() != 1 {
		t.Fatal("the index does not show the write")
	}
	// A second writer who read revision 0 is refused and changes nothing.
	_, err = m.Write(WriteRequest{Dimension: User, Key: "style/code.md", Body: []byte("other"), ExpectRevision: 0})
	st, ok := IsStale(err)
	if !ok || st.Revision != 1 {
		t.Fatalf("stale write: err = %v", err)
	}
	if got := read(t, res.Path); got != want {
		t.Fatalf("a refused write changed the note:\n%s", got)
	}
	res, err = m.Write(WriteRequest{Dimension: User, Key: "style/code.md", Body: []byte("v2\n"), ExpectRevision: 1, Now: fixedNow})
	if err != nil || res.Revision != 2 || !strings.Contains(read(t, res.Path), "revision: 2\n") {
		t.Fatalf("rev 2: %v %+v", err, res)
	}
}

func TestWriteKeepsOtherKeysAndBindsDevice(t *testing.T) {
	m, dir := newTree(t, map[string]string{
		"data/machine-id":                   "m1\n",
		"data/memory/user/skills/review.md": "---\nname: review # the skill's name\nrevision: 2\ndescription: How to review\n---\nold\n",
	})
	if _, err := m.Write(WriteRequest{Dimension: User, Key: "skills/review.md", Body: []byte("new\n"), ExpectRevision: 2, Now: fixedNow}); err != nil {
		t.Fatal(err)
	}
	want := "---\nname: review # the skill's name\nrevision: 3\ndescription: How to review\nupdated: 2026-11-30T09:00:00.000Z\n---\nnew\n"
	if got := read(t, filepath.Join(dir, "data/memory/user/skills/review.md")); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	res, err := m.Write(WriteRequest{Dimension: Device, Key: "tools.md", Body: []byte("Go 1.26\n"), Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, res.Path); !strings.Contains(got, "machine: m1\n") {
		t.Errorf("device note not bound to this machine:\n%s", got)
	}
}

func TestWriteRefusesBadKeysAndForeignDevice(t *testing.T) {
	m, _ := newTree(t, map[string]string{
		"data/machine-id":           "m1\n",
		"data/memory/device/gpu.md": "---\nrevision: 1\nmachine: m2\n---\nx\n",
	})
	for _, key := range []string{"../escape.md", "/abs.md", "a/../b.md", "notes.txt", ".hidden.md", "a\\b.md", ""} {
		if _, err := m.Write(WriteRequest{Dimension: User, Key: key, Body: []byte("x")}); err == nil {
			t.Errorf("key %q accepted", key)
		}
	}
	if _, err := m.Write(WriteRequest{Dimension: Device, Key: "gpu.md", Body: []byte("y"), ExpectRevision: 1}); err == nil || !strings.Contains(err.Error(), "m2") {
		t.Errorf("wrote another machine's device note: %v", err)
	}
	if _, err := m.Write(WriteRequest{Dimension: User, Owner: "larry", Key: "x.md", Body: []byte("y")}); err == nil {
		t.Error("user note with an ID prefix accepted")
	}
}

func TestWriteNeedsHashForUnversionedNote(t *testing.T) {
	m, dir := newTree(t, map[string]string{"data/memory/user/plain.md": "plain text\n"})
	p := filepath.Join(dir, "data/memory/user/plain.md")
	if _, err := m.Write(WriteRequest{Dimension: User, Key: "plain.md", Body: []byte("x")}); err == nil {
		t.Fatal("overwrote a note without frontmatter without its hash")
	}
	e := m.Note(p)
	if _, err := m.Write(WriteRequest{Dimension: User, Key: "plain.md", Body: []byte("plain text\n"), ExpectHash: e.Hash(), Now: fixedNow}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, p); got != "---\nrevision: 1\nupdated: 2026-11-30T09:00:00.000Z\n---\nplain text\n" {
		t.Errorf("got %q", got)
	}
}

func TestPromote(t *testing.T) {
	m, dir := newTree(t, map[string]string{
		"data/magicfrog.json":                     `{"agents":["larry"]}`,
		"project/.magicfrog/config.json":          `{"task":"T-7","agents":["larry"]}`,
		"project/.magicfrog/memory/T-7/lesson.md": "---\nrevision: 3\nupdated: 2026-10-01T00:00:00.000Z\ntags: [go, tests]\n---\nRun the race detector.\n",
		"data/memory/user/newer.md":               "---\nrevision: 9\n---\nnewer\n",
		"data/memory/agent/larry/newer.md":        "---\nrevision: 2\n---\nolder\n",
	})
	src := m.Note(filepath.Join(dir, "project/.magicfrog/memory/T-7/lesson.md"))
	res, err := m.Promote(PromoteRequest{From: src, To: Agent, ToOwner: "larry"})
	if err != nil {
		t.Fatal(err)
	}
	got := read(t, res.Path)
	if !strings.Contains(got, "tags: [go, tests]") || !strings.Contains(got, "revision: 1\n") || !strings.Contains(got, "Run the race detector.") {
		t.Errorf("promoted note:\n%s", got)
	}
	if _, err := os.Stat(src.Path); !os.IsNotExist(err) || !res.Removed {
		t.Error("the source was not removed by a move")
	}
	// Into the skills layer, as a copy.
	e := m.Note(res.Path)
	res2, err := m.Promote(PromoteRequest{From: e, To: User, ToLayer: "skills", Copy: true})
	if err != nil || res2.Key != "skills/lesson.md" || m.Note(res.Path) == nil {
		t.Fatalf("skills copy: %v %+v", err, res2)
	}
	// An existing destination is never overwritten blind: without its
	// revision the promotion is refused, naming the destination's revision.
	older := m.Note(filepath.Join(dir, "data/memory/agent/larry/newer.md"))
	_, err = m.Promote(PromoteRequest{From: older, To: User})
	var end *EndError
	if !errors.As(err, &end) || end.End != "destination" || end.Err.Revision != 9 {
		t.Errorf("overwrote an existing destination blind: %v", err)
	}
	if _, err := m.Promote(PromoteRequest{From: older, To: User, ExpectDestRevision: 8}); !errors.As(err, &end) || end.Err.Revision != 9 {
		t.Errorf("a destination that moved on was overwritten: %v", err)
	}
	if read(t, filepath.Join(dir, "data/memory/user/newer.md")) != "---\nrevision: 9\n---\nnewer\n" {
		t.Error("destination changed")
	}
	// With the revision the caller saw, it goes on from it.
	two := 2
	if _, err := m.Promote(PromoteRequest{From: older, To: User, ExpectDestRevision: 9, ExpectSourceRevision: &two, Copy: true}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(dir, "data/memory/user/newer.md")); !strings.Contains(got, "revision: 10\n") || !strings.Contains(got, "older") {
		t.Errorf("destination after a checked overwrite:\n%s", got)
	}
	// The source's revision is compared too.
	one := 1
	if _, err := m.Promote(PromoteRequest{From: older, To: Account, ExpectSourceRevision: &one}); !errors.As(err, &end) || end.End != "source" {
		t.Errorf("promoted a source at another revision than expected: %v", err)
	}
	// A source edited since it was read is refused.
	os.WriteFile(older.Path, []byte("---\nrevision: 3\n---\nedited\n"), 0o644)
	m.Refresh(older.Path)
	if _, err := m.Promote(PromoteRequest{From: older, To: Account}); err == nil {
		t.Error("promoted a stale source")
	}
}

func TestExportImportRoundTrip(t *testing.T) {
	m, dir := newTree(t, map[string]string{
		"data/machine-id":                    "m1\n",
		"data/magicfrog.json":                `{"agents":["larry"]}`,
		"project/.magicfrog/config.json":     `{"task":"T-7"}`,
		"data/memory/account/a.md":           "---\nrevision: 1\n---\na\n",
		"data/memory/agent/larry/b.md":       "---\nrevision: 2\n---\nb\n",
		"data/memory/device/d.md":            "---\nrevision: 1\nmachine: m1\n---\nd\n",
		"data/memory/machine/legacy.md":      "legacy\n",
		"project/.magicfrog/memory/T-7/t.md": "---\nrevision: 4\n---\nt\n",
		"data/memory/project/legacy-task.md": "---\nrevision: 1\n---\nlt\n",
	})
	out := filepath.Join(dir, "export")
	res, err := m.Export(out, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"account/a.md", "agent/larry/b.md", "task/T-7/t.md", "task/legacy-task.md"} {
		if _, err := os.Stat(filepath.Join(out, p)); err != nil {
			t.Errorf("export lacks %s", p)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "machine")); err == nil || res.Written != 4 {
		t.Errorf("device notes exported without --with-device (written %d)", res.Written)
	}
	if _, err := m.Export(filepath.Join(dir, "export2"), true); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(dir, "export2/machine/d.md")); !strings.Contains(got, "machine: m1") {
		t.Errorf("device export lost its binding: %q", got)
	}

	// Import into a fresh tree: everything lands, machine/ in device (m1's
	// note in m1's folder: this is another machine).
	m2, dir2 := newTree(t, map[string]string{"project/.magicfrog/config.json": `{"task":"T-7"}`, "data/memory/account/a.md": "---\nrevision: 5\n---\nnewer a\n"})
	ir, err := m2.Import(filepath.Join(dir, "export2"))
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(dir2, "data/memory/device/machines/m1/d.md")); !strings.Contains(got, "machine: m1") {
		t.Errorf("import lost the machine binding")
	}
	if got := read(t, filepath.Join(dir2, "data/memory/account/a.md")); got != "---\nrevision: 5\n---\nnewer a\n" {
		t.Errorf("import replaced a newer revision: %q", got)
	}
	if len(ir.Skipped) != 1 || !strings.Contains(ir.Skipped[0].From, "account/a.md") || !ir.Skipped[0].Kept {
		t.Errorf("skipped = %v", ir.Skipped)
	}
	if _, err := os.Stat(filepath.Join(dir2, "project/.magicfrog/memory/T-7/t.md")); err != nil {
		t.Error("task note not imported into the project")
	}
	// Links and hostile names are refused.
	hostile := filepath.Join(dir, "hostile")
	os.MkdirAll(filepath.Join(hostile, "user"), 0o755)
	os.Symlink("/etc/passwd", filepath.Join(hostile, "user", "link.md"))
	ir, err = m2.Import(hostile)
	if err != nil || len(ir.Imported) != 0 || len(ir.Skipped) != 1 {
		t.Errorf("symlink import: %v %+v", err, ir)
	}
}

func FuzzCheckImportPath(f *testing.F) {
	for _, s := range []string{"user/a.md", "../x.md", "/etc/passwd", "a/../../b.md", "C:/x.md", "a\\..\\b.md", "user/.git/x.md", "user//a.md", "user/./a.md", "agent/larry/n.md"} {
		f.Add(s)
	}
	target := filepath.FromSlash("/srv/target")
	f.Fuzz(func(t *testing.T, rel string) {
		if CheckImportPath(rel) != nil {
			return
		}
		joined := filepath.Join(target, filepath.FromSlash(rel))
		if !within(target, joined) || joined == target {
			t.Fatalf("%q passed the check but lands at %s, outside %s", rel, joined, target)
		}
		if strings.Contains(rel, "..") && strings.Contains("/"+rel+"/", "/../") {
			t.Fatalf("%q passed with a .. element", rel)
		}
	})
}
