package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/journal"
)

// A promotion is refused, and writes nothing, when the note is not on disk,
// when the open buffer differs from the disk, when the layer does not exist,
// and when an end is not at the revision the editor showed.
func TestPromoteRefusals(t *testing.T) {
	tr := openTestTree(t)
	src := tr.put(t, engine.Task, "T-7", "style.md", "task style\n")
	onDisk, _ := os.ReadFile(src)
	dest := tr.put(t, engine.User, "", "style.md", "user style\n")
	for _, tc := range []struct {
		name    string
		p       Promotion
		want    func(error) bool
		changed bool
	}{
		{"not on disk", Promotion{Path: filepath.Join(filepath.Dir(src), "new.md"), To: engine.User},
			func(err error) bool { return errors.Is(err, ErrNotOnDisk) }, false},
		{"unsaved buffer", Promotion{Path: src, Buffer: append(onDisk, "more\n"...), To: engine.User},
			func(err error) bool { return errors.Is(err, ErrUnsaved) }, false},
		{"no such layer", Promotion{Path: src, Layer: "nope"},
			func(err error) bool { var e *NoLayerError; return errors.As(err, &e) && e.Layer == "nope" }, false},
		{"destination exists, destRevision 0", Promotion{Path: src, Buffer: onDisk, To: engine.User},
			func(err error) bool {
				var e *engine.EndError
				return errors.As(err, &e) && e.End == "destination" && e.Err.Revision == 1
			}, false},
		{"source revision differs", Promotion{Path: src, To: engine.User, SourceRevision: ptr(4), DestRevision: 1},
			func(err error) bool { var e *engine.EndError; return errors.As(err, &e) && e.End == "source" }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, changed, err := Promote(tr.m, tc.p)
			if err == nil || !tc.want(err) {
				t.Fatalf("Promote = %+v, %v; want a refusal", out, err)
			}
			if changed != tc.changed {
				t.Errorf("changed = %v, want %v", changed, tc.changed)
			}
			if b, _ := os.ReadFile(dest); string(b) != "---\nrevision: 1\nupdated: 2026-11-01T00:00:00.000Z\n---\nuser style\n" {
				t.Errorf("the destination was written: %q", b)
			}
		})
	}
}

// A promotion that goes through answers {"moved","revision","uri"} (the keys in
// the order clients have always had them).
func TestPromoteJSON(t *testing.T) {
	tr := openTestTree(t)
	src := tr.put(t, engine.Task, "T-7", "style.md", "task style\n")
	out, changed, err := Promote(tr.m, Promotion{Path: src, To: engine.User})
	if err != nil || !changed {
		t.Fatalf("Promote: %v, changed %v", err, changed)
	}
	if got, want := tr.hide(mustJSON(t, out)), `{"moved":true,"revision":1,"uri":"file://DATA/memory/user/style.md"}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if _, err := os.Stat(src); !os.IsNotExist(err) {
		t.Errorf("the source is still there after a move: %v", err)
	}
}

func TestExportImportJSON(t *testing.T) {
	tr := openTestTree(t)
	tr.put(t, engine.User, "", "style.md", "user style\n")
	dir := filepath.Join(t.TempDir(), "portable")
	ex, err := Export(tr.m, dir, engine.ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := mustJSON(t, ex), `{"leftOut":[],"skipped":[],"written":1}`; got != want {
		t.Errorf("export: got %s, want %s", got, want)
	}
	im, changed, err := Import(tr.m, dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := mustJSON(t, im), `{"imported":0,"uris":[],"unchanged":1,"skipped":[],"config":[]}`; got != want || changed {
		t.Errorf("import into the same tree: got %s (changed %v), want %s", got, changed, want)
	}
	if _, _, err := Import(tr.m, filepath.Join(dir, "missing")); !errors.As(err, new(*NotAFolderError)) {
		t.Errorf("import of a missing folder: %v, want NotAFolderError", err)
	}
}

func TestToday(t *testing.T) {
	tr := openTestTree(t)
	day, err := journal.ParseDay("2026-11-30")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		d        engine.Dimension
		owner    string
		register bool
		want     string // JSON, or "" for a refusal
		refusal  func(error) bool
	}{
		{"created", engine.Task, "", false, `{"created":true,"uri":"file://PROJECT/.magicfrog/memory/journal/2026-11-30.md"}`, nil},
		{"there already", engine.Task, "", false, `{"created":false,"uri":"file://PROJECT/.magicfrog/memory/journal/2026-11-30.md"}`, nil},
		{"unregistered owner", engine.Task, "T-99", false, "", func(err error) bool { return errors.As(err, new(*engine.UnregisteredError)) }},
		{"registered first", engine.Task, "T-99", true, `{"created":true,"uri":"file://PROJECT/.magicfrog/memory/T-99/journal/2026-11-30.md"}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Today(tr.m, tc.d, tc.owner, tc.register, day)
			if tc.refusal != nil {
				if err == nil || !tc.refusal(err) {
					t.Fatalf("Today = %+v, %v; want a refusal", out, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := tr.hide(mustJSON(t, out)); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
			if registered := tc.register && tc.owner != ""; (out.Registered != "") != registered || (registered && !strings.HasSuffix(out.Registered, "config.json")) {
				t.Errorf("registered in %q, want registration %v", out.Registered, registered)
			}
		})
	}
}

func TestRegister(t *testing.T) {
	for _, tc := range []struct {
		id   string
		want bool
	}{
		{"curly", true}, {"T-8", true}, {"a/b", false}, {`a\b`, false}, {".hidden", false}, {"..", false}, {"", false},
	} {
		if got := RegistrableID(tc.id); got != tc.want {
			t.Errorf("RegistrableID(%q) = %v, want %v", tc.id, got, tc.want)
		}
	}
	tr := openTestTree(t)
	for _, want := range []string{`{"changed":true,"uri":"file://DATA/magicfrog.json"}`, `{"changed":false,"uri":"file://DATA/magicfrog.json"}`} {
		out, err := Register(tr.m, engine.Agent, "curly", false)
		if err != nil {
			t.Fatal(err)
		}
		if got := tr.hide(mustJSON(t, out)); got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	}
}

// The editor's writes go through the engine's one check of what a note may
// be (issue 20): promoting a hand-made note whose body opens with a second
// frontmatter block is refused as the CLI's write is, with the rule named,
// and neither end changes.
func TestPromoteRefusesWhatIsNotANote(t *testing.T) {
	tr := openTestTree(t)
	src := tr.put(t, engine.Task, "T-7", "two.md", "---\nrevision: 99\n---\nbody\n")
	before, _ := os.ReadFile(src)
	_, changed, err := Promote(tr.m, Promotion{Path: src, To: engine.User})
	e, ok := engine.AsNotANote(err)
	if !ok || e.Rule != engine.RuleFrontmatterInBody || changed {
		t.Fatalf("Promote: %v (changed %v); want a NotANoteError %s", err, changed, engine.RuleFrontmatterInBody)
	}
	if after, _ := os.ReadFile(src); string(after) != string(before) {
		t.Errorf("the source changed: %q", after)
	}
	if _, err := os.Stat(e.Path); err == nil {
		t.Errorf("the destination %s was written", e.Path)
	}
}
