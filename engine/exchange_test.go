package engine

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// copyDemo copies testdata/demo (data/ and project/) into a new folder.
func copyDemo(t *testing.T) string {
	t.Helper()
	src, dst := filepath.Join("..", "testdata", "demo"), t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// Issue 8: export from one data directory, import into an empty one: render
// for every agent and task gives the same block in both (for the same
// machine). Before the export carried magicfrog.json and layers.json, every
// agent's own notes read as shared after the import, and custom layers were
// lost.
func TestExportImportRendersTheSame(t *testing.T) {
	src := copyDemo(t)
	m1, err := Open(Options{DataDir: filepath.Join(src, "data"), ProjectDir: filepath.Join(src, "project")})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "portable")
	if _, err := m1.ExportWith(out, ExportOptions{AllMachines: true}); err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	m2, err := Open(Options{DataDir: filepath.Join(dst, "data"), ProjectDir: filepath.Join(dst, "project")})
	if err != nil {
		t.Fatal(err)
	}
	res, err := m2.Import(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Skipped {
		t.Errorf("import skipped %s", s)
	}
	tasks := append([]string{""}, m1.Binding().Task)
	tasks = append(tasks, m1.Binding().Tasks...)
	agents := m1.Roster()
	if len(agents) < 2 || m1.Binding().Task == "" {
		t.Fatalf("the demo should have agents and a task: %v %q", agents, m1.Binding().Task)
	}
	cases := 0
	for _, machine := range []string{m1.MachineID(), "a71be0c94d2f6e13"} {
		for _, task := range tasks {
			for _, agent := range append([]string{""}, agents...) {
				scope := Scope{Task: task, Machine: machine}
				if agent != "" {
					scope.Agents = []string{agent}
				}
				opts := RenderOptions{Scope: scope, Today: "2026-11-30"}
				b1, err1 := m1.Render(opts)
				b2, err2 := m2.Render(opts)
				if err1 != nil || err2 != nil {
					t.Fatalf("render %+v: %v / %v", scope, err1, err2)
				}
				if machine != m2.MachineID() {
					// m2 is another machine: the device notes of the
					// scope's machine live in that machine's folder after
					// the import (device/machines/<ID>/). The same notes;
					// their path (and so the generation) says whose they are.
					b2.Text = strings.ReplaceAll(b2.Text, `path="machines/`+machine+`/`, `path="`)
					b1.Text, b2.Text = generationAttr.ReplaceAllString(b1.Text, ""), generationAttr.ReplaceAllString(b2.Text, "")
				}
				if b1.Text != b2.Text {
					t.Errorf("scope %+v: the blocks differ\n--- before export:\n%s\n--- after import:\n%s", scope, b1.Text, b2.Text)
				}
				cases++
			}
		}
	}
	if !strings.Contains(read(t, filepath.Join(dst, "project", ".magicfrog", "config.json")), m1.Binding().Task) {
		t.Error("the project's task was not registered by the import")
	}
	t.Logf("%d scopes rendered the same", cases)
}

var generationAttr = regexp.MustCompile(` generation="[0-9a-f]+"`)

// A different layers.json is reported, never written over; IDs are merged.
func TestImportMergesConfig(t *testing.T) {
	m, dir := newTree(t, map[string]string{
		"data/magicfrog.json":     `{"agents":["larry"],"shared":["team"],"other":1}`,
		"data/memory/layers.json": `{"layers":[{"name":"mine","prefix":"mine/"}]}`,
		"portable/magicfrog.json": `{"agents":["moe","larry","../x"," "],"shared":["notes","a\nb"],"tasks":["T-9",".git"]}`,
		"portable/layers.json":    `{"layers":[{"name":"theirs","prefix":"theirs/"}]}`,
	})
	res, err := m.Import(filepath.Join(dir, "portable"))
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(dir, "data/memory/layers.json")); !strings.Contains(got, "mine/") || strings.Contains(got, "theirs") {
		t.Errorf("layers.json overwritten: %s", got)
	}
	if !strings.Contains(res.LayersDiffer, "differs") {
		t.Errorf("a different layers.json not reported: %q", res.LayersDiffer)
	}
	roster := read(t, filepath.Join(dir, "data/magicfrog.json"))
	for _, want := range []string{`"larry"`, `"moe"`, `"team"`, `"notes"`, `"other": 1`} {
		if !strings.Contains(roster, want) {
			t.Errorf("magicfrog.json lacks %s after the merge:\n%s", want, roster)
		}
	}
	if got := read(t, filepath.Join(dir, "project/.magicfrog/config.json")); !strings.Contains(got, "T-9") {
		t.Errorf("tasks not merged: %s", got)
	}
	if strings.Contains(roster, "../x") || len(res.Skipped) != 4 {
		t.Errorf("hostile IDs: roster %s, skipped %v", roster, res.Skipped)
	}
	if !m.IsTaskID("T-9") || m.IsTaskID(".git") || len(m.Roster()) != 2 {
		t.Errorf("not reloaded: roster %v", m.Roster())
	}
}

// Issue 14, rows 5 and 7 and the smaller import items: every hostile file of a
// portable tree is refused with its reason, none is read whole, and a file
// swapped for a link while the import runs never brings in the link's target.
func TestImportHostileTree(t *testing.T) {
	m, dir := newTree(t, map[string]string{
		"portable/user/ok.md":         "---\nrevision: 1\n---\nok\n",
		"portable/user/.hidden.md":    "---\nrevision: 1\n---\nhidden\n",
		"portable/user/.git/x.md":     "x\n",
		"portable/user/latin1.md":     "---\nrevision: 1\n---\ncaf\xe9\n",
		"portable/user/negative.md":   "---\nrevision: -1\n---\nn\n",
		"portable/user/string-rev.md": "---\nrevision: abc\n---\ns\n",
		"portable/user/broken.md":     "---\nrevision: [1\n---\nb\n",
	})
	src := filepath.Join(dir, "portable")
	mustDo(t, mkfifo(filepath.Join(src, "user", "pipe.md")))
	big, err := os.Create(filepath.Join(src, "user", "huge.md"))
	mustDo(t, err)
	mustDo(t, big.Truncate(1<<30)) // sparse: 1 GiB that costs no disk
	big.Close()

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := m.Import(src)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("import allocated %d MiB: a file was read whole", alloc>>20)
	}
	reasons := map[string]string{}
	for _, s := range res.Skipped {
		reasons[s.From] = s.Reason
	}
	for from, want := range map[string]string{
		"user/.hidden.md":    "hidden",
		"user/latin1.md":     "not UTF-8",
		"user/negative.md":   `revision "-1" is not a whole number`,
		"user/string-rev.md": `revision "abc" is not a whole number`,
		"user/broken.md":     "does not parse",
		"user/pipe.md":       "FIFO",
		"user/huge.md":       "larger than a note",
	} {
		if !strings.Contains(reasons[from], want) {
			t.Errorf("%s: reason %q; want it to say %q", from, reasons[from], want)
		}
	}
	if len(res.Imported) != 1 {
		t.Errorf("imported %v; want only ok.md", res.Imported)
	}
	// A dot-folder (a clone's .git/) is ignored, not refused: never read.
	if _, refused := reasons["user/.git"]; refused || len(res.Ignored) != 1 || res.Ignored[0] != "user/.git/" {
		t.Errorf("user/.git: refused %v, ignored %v; want it ignored", refused, res.Ignored)
	}
}

// Issue 14, row 5: a file swapped for a link to an outside file between the
// walk and the read imported the outside content in 3 of 60 runs.
func TestImportLinkSwapRace(t *testing.T) {
	m, dir := newTree(t, map[string]string{"secret/s.md": "---\nrevision: 1\n---\nSECRET\n"})
	src := filepath.Join(dir, "portable")
	const files = 16
	mustDo(t, os.MkdirAll(filepath.Join(src, "user"), 0o755))
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			note := filepath.Join(src, "user", fmt.Sprintf("n%d.md", i%files))
			tmp := note + ".swap"
			if i/files%2 == 0 {
				os.WriteFile(tmp, []byte("---\nrevision: 1\n---\nplain\n"), 0o644)
			} else {
				os.Symlink(filepath.Join(dir, "secret", "s.md"), tmp)
			}
			os.Rename(tmp, note)
		}
	}()
	defer func() { close(stop); <-done }()
	for range 100 {
		if _, err := m.Import(src); err != nil {
			t.Fatal(err)
		}
		for i := range files {
			dest := filepath.Join(dir, "data", "memory", "user", fmt.Sprintf("n%d.md", i))
			if b, err := os.ReadFile(dest); err == nil && strings.Contains(string(b), "SECRET") {
				t.Fatal("the link's outside target was imported")
			}
			os.Remove(dest)
		}
	}
}

// Issue 14, row 6 and the smaller export items: export and import refuse a
// folder inside (or holding) a memory root, and an export that cannot write
// everything writes nothing.
func TestExportImportTargets(t *testing.T) {
	m, dir := newTree(t, map[string]string{
		"data/machine-id":              "m1\n",
		"data/memory/account/a.md":     "---\nrevision: 1\n---\na\n",
		"data/memory/device/d.md":      "---\nrevision: 1\nmachine: m1\n---\nd\n",
		"project/.magicfrog/memory/.k": "",
	})
	for _, target := range []string{"data/memory", "data/memory/export", "project/.magicfrog/memory/x", "data", "project", "."} {
		p := filepath.Join(dir, target)
		if _, err := m.ExportWith(p, ExportOptions{WithDevice: true}); err == nil || !strings.Contains(err.Error(), "memory root") {
			t.Errorf("export to %s: %v; want a refusal naming the memory root", target, err)
		}
		if _, err := m.Import(p); err == nil || !strings.Contains(err.Error(), "memory root") {
			t.Errorf("import from %s: %v; want a refusal naming the memory root", target, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "data/memory/machine")); err == nil {
		t.Error("an export into the memory root wrote device notes into it")
	}
	// A link where a folder of the export should be: nothing written at all.
	out := filepath.Join(dir, "out")
	mustDo(t, os.MkdirAll(out, 0o755))
	mustDo(t, os.Symlink(t.TempDir(), filepath.Join(out, "machine")))
	if _, err := m.ExportWith(out, ExportOptions{WithDevice: true}); err == nil {
		t.Error("export through a linked folder succeeded")
	}
	if _, err := os.Stat(filepath.Join(out, "account")); err == nil {
		t.Error("export wrote files before failing")
	}
	// A successful export carries no lock.
	out2 := filepath.Join(dir, "out2")
	if _, err := m.Export(out2, false); err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(out2, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".") {
			t.Errorf("the export carries %s", p)
		}
		return nil
	})
}

func mustDo(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Issue 14, smaller items: `write` accepted a 5 MB body that then loaded only
// as a warning; `--scope " "` created agent/ /; a name with a newline split
// every line-oriented output.
func TestWriteAndNameLimits(t *testing.T) {
	m, dir := newTree(t, map[string]string{"data/machine-id": "m1\n"})
	_, err := m.Write(WriteRequest{Dimension: User, Key: "big.md", Body: []byte(strings.Repeat("x", 5<<20))})
	if err == nil || !strings.Contains(err.Error(), "more than a note may be") {
		t.Errorf("5 MB write: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "data/memory/user/big.md")); err == nil {
		t.Error("the 5 MB note was written")
	}
	for _, scope := range []string{" ", "\t", "a\nb", "x\u2028y"} {
		if _, err := m.Write(WriteRequest{Dimension: Agent, Owner: scope, Key: "n.md", Body: []byte("x\n")}); err == nil {
			t.Errorf("scope %q accepted", scope)
		}
	}
	if _, err := m.Write(WriteRequest{Dimension: User, Key: "a\nb.md", Body: []byte("x\n")}); err == nil {
		t.Error("a key with a newline accepted")
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "data/memory/agent")); len(entries) != 0 {
		t.Errorf("folders made under agent/: %v", entries)
	}
	// A name with a newline on disk is a one-line problem, not a note.
	bad := filepath.Join(dir, "data/memory/user", "evil\nname.md")
	mustDo(t, os.MkdirAll(filepath.Dir(bad), 0o755))
	mustDo(t, os.WriteFile(bad, []byte("x\n"), 0o644))
	m.Reload()
	if m.Note(bad) != nil {
		t.Error("a name with a newline loaded as a note")
	}
	found := false
	for _, p := range m.Problems() {
		if p.Path == bad {
			found = true
			if strings.Contains(p.Error(), "\n") {
				t.Errorf("problem spans lines: %q", p.Error())
			}
		}
	}
	if !found {
		t.Error("no problem for a name with a newline")
	}
}
