package roam

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/internal/notetexts"
)

// TestOneAnswerForWhatIsANote runs the one table of texts (issue 20) through
// sync's two checks, the local scan and the check of a remote file before it
// is taken: each holds back exactly the texts engine.CheckNote refuses, and
// names the same rule.
func TestOneAnswerForWhatIsANote(t *testing.T) {
	data := t.TempDir()
	texts := notetexts.WriteFiles(t, filepath.Join(data, "memory", "user"))
	m, err := engine.Open(engine.Options{DataDir: data})
	if err != nil {
		t.Fatal(err)
	}
	mp := newMapping(m)
	files, held, err := mp.scan(nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	heldWhy := map[string]string{}
	for _, h := range held {
		heldWhy[h.Path] = h.Reason
	}
	s := &syncer{mp: mp, rep: &Report{}}
	for _, tx := range texts {
		rel := "user/" + tx.File
		_, scanned := files[rel]
		if got := notetexts.RuleIn(heldWhy[rel]); got != tx.Rule || scanned != (tx.Rule == "") {
			t.Errorf("%s: scan: rule %q (%q, in the sync set %v), want %q", tx.Name, got, heldWhy[rel], scanned, tx.Rule)
		}
		s.rep.Ignored = nil
		taken := s.takeable(rel, tx.Src)
		why := ""
		if len(s.rep.Ignored) == 1 {
			why = s.rep.Ignored[0].Reason
		}
		if got := notetexts.RuleIn(why); got != tx.Rule || taken != (tx.Rule == "") {
			t.Errorf("%s: takeable: rule %q (%q, taken %v), want %q", tx.Name, got, why, taken, tx.Rule)
		}
	}
}
