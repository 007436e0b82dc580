package rollup

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/internal/notetexts"
)

// TestOneAnswerForWhatIsANote runs the one table of texts (issue 20) through
// the journal import, which had its own check (without the UTF-8 rule): it
// skips exactly the texts engine.CheckNote refuses, naming the same rule.
func TestOneAnswerForWhatIsANote(t *testing.T) {
	ws := t.TempDir()
	texts := notetexts.WriteFiles(t, filepath.Join(ws, "memory", "sticky-notes"))
	data := t.TempDir()
	layers := `{"layers": [{"name": "journal", "prefix": "journal/", "kind": "fractal"}]}`
	if err := os.MkdirAll(filepath.Join(data, "memory"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "memory", "layers.json"), []byte(layers), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := engine.Open(engine.Options{DataDir: data})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := ImportJournal(m, ws, engine.User, "")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]ImportedFile{}
	for _, f := range rep.Files {
		got[f.From] = f
	}
	for _, tx := range texts {
		f := got["memory/sticky-notes/"+tx.File]
		if rule := notetexts.RuleIn(f.Why); rule != tx.Rule || (f.Status == Imported) != (tx.Rule == "") {
			t.Errorf("%s: %s %q (rule %q), want rule %q", tx.Name, f.Status, f.Why, rule, tx.Rule)
		}
	}
}
