package importers

import (
	"path/filepath"
	"testing"

	"github.com/magicfrog/mf-lsp/engine/internal/notetexts"
)

// TestOneAnswerForWhatIsANote runs the one table of texts (issue 20) through
// the importers' read of a source file, which had its own copy of the check:
// it refuses exactly the texts engine.CheckNote refuses, naming the same rule.
func TestOneAnswerForWhatIsANote(t *testing.T) {
	root := t.TempDir()
	for _, tx := range notetexts.WriteFiles(t, root) {
		src, err := readNote(root, filepath.Join(root, tx.File))
		why := ""
		if err != nil {
			why = err.Error()
		}
		if rule := notetexts.RuleIn(why); rule != tx.Rule || (err == nil && string(src) != string(tx.Src)) {
			t.Errorf("%s: %q (rule %q), want rule %q", tx.Name, why, rule, tx.Rule)
		}
	}
}
