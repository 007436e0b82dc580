package lsp_test

import (
	"testing"

	"github.com/magicfrog/mf-lsp/diagnostics"
	"github.com/magicfrog/mf-lsp/lsp"
)

// The stale-revision fixes and the save-time question offer the same two
// answers under the same titles.
func TestStaleFixTitlesAreTheQuestionsButtons(t *testing.T) {
	if diagnostics.FixTakeDisk != lsp.ActionTakeDisk || diagnostics.FixKeepMine != lsp.ActionKeepMine {
		t.Errorf("fix titles %q, %q; save-time question %q, %q", diagnostics.FixTakeDisk, diagnostics.FixKeepMine, lsp.ActionTakeDisk, lsp.ActionKeepMine)
	}
}
