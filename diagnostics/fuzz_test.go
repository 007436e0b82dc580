package diagnostics

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/journal"
)

// FuzzCheck runs every check on any note text, in every kind of place (a
// journal file, a device note, a skill, an agent folder): Check never panics and
// every finding lies inside the note, so the editor can always place it.
func FuzzCheck(f *testing.F) {
	dir := f.TempDir()
	files := map[string]string{
		"data/machine-id":                "m1\n",
		"data/magicfrog.json":            `{"agents":["larry"]}`,
		"data/memory/layers.json":        `{"layers":[{"name":"journal","prefix":"journal/","kind":"fractal"}]}`,
		"data/memory/account/tone.md":    "---\nrevision: 1\n---\nTone.\n",
		"project/.magicfrog/config.json": `{"task":"T-7","agents":["larry"]}`,
	}
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte(c), 0o644)
	}
	m, err := engine.Open(engine.Options{DataDir: filepath.Join(dir, "data"), ProjectDir: filepath.Join(dir, "project")})
	if err != nil {
		f.Fatal(err)
	}
	places := []string{
		"data/memory/account/tone.md", "data/memory/device/tools.md", "data/memory/user/skills/review.md",
		"data/memory/agent/helpers/x.md", "data/memory/machine/legacy.md",
		"project/.magicfrog/memory/journal/refined/2026-11-10.md", "project/.magicfrog/memory/journal/weekly/2026-W46.md",
		"project/.magicfrog/memory/T-7/notes/progress.md",
	}
	for _, s := range []string{
		"---\nrevision: 3\nupdated: 2026-10-20T09:12:00.000Z\n---\nBody [link](gone.md)\n",
		"---\nrevision: x\nrevision: 2\nmachine: m2\nsources: [{key: a.md, revision: 1, hash: 00}]\n---\n",
		"---\nupdated: yesterday\n", "\ufeff---\r\nname: \r\n---\r\n## Blockers\r\n- stuck\r\n", "",
		"# Title\n\n## Next Steps\n- ship it\n",
	} {
		for i := range places {
			f.Add(uint8(i), []byte(s))
		}
	}
	scope := m.DefaultScope()
	f.Fuzz(func(t *testing.T, place uint8, src []byte) {
		path := filepath.Join(dir, filepath.FromSlash(places[int(place)%len(places)]))
		e, _, ok := m.Parse(path, src)
		if !ok || e == nil {
			return // not a note (binary, not UTF-8): the engine says so itself
		}
		for _, fd := range Check(Input{Memory: m, Note: e, Scope: scope, Today: journal.Day{Year: 2026, Month: 11, Day: 30},
			Base: &Base{Revision: 1, Hash: "x"}}) {
			if fd.Span.Start < 0 || fd.Span.Start > fd.Span.End || fd.Span.End > len(src) {
				t.Fatalf("%s: finding %s at %v outside the note (%d bytes): %q", path, fd.Code, fd.Span, len(src), src)
			}
		}
	})
}
