package lsp

import (
	"fmt"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/journal"
)

// KindSourceRollup is the kind of the rollup actions on journal files.
const KindSourceRollup protocol.CodeActionKind = "source.rollup"

// rollupActions offers the rollups a journal file feeds or is (SPEC §6), as
// magicfrog.rollup commands on the note's own journal: on a raw day, refine
// it; on a refined day, roll up its week; on a weekly, roll up its month; on a
// rollup output, run it again. Rollups write with expected revisions, so
// running one on a file being edited is safe.
func (s *Server) rollupActions(n *Located) []protocol.CodeAction {
	e := n.Note
	if e == nil || e.Layer.Kind != engine.KindFractal {
		return nil
	}
	f, problem := journal.Classify(e.LayerKey())
	if problem != nil {
		return nil
	}
	action := func(title, kind, period string) protocol.CodeAction {
		a := commandAction(title, "magicfrog.rollup", map[string]any{
			"kind": kind, "period": period, "dimension": e.Dimension.String(), "scope": e.Owner})
		a.Kind = ptr(KindSourceRollup)
		return *a
	}
	today := s.Today()
	var out []protocol.CodeAction
	switch f.Kind {
	case journal.Daily:
		out = append(out, action(fmt.Sprintf("Refine %s (rollup day)", f.Day), "day", f.Day.String()))
	case journal.Refined:
		out = append(out, action(fmt.Sprintf("Rerun the refinement of %s", f.Day), "day", f.Day.String()))
		if w := journal.WeekOf(f.Day); w.Sunday().Before(today) {
			out = append(out, action(fmt.Sprintf("Roll up week %s", w), "week", w.String()))
		}
	case journal.Weekly:
		out = append(out, action(fmt.Sprintf("Rerun the rollup of week %s", f.Week), "week", f.Week.String()))
		if m := f.Week.Month(); m.Last().Before(today) {
			out = append(out, action(fmt.Sprintf("Roll up month %s", m), "month", m.String()))
		}
	case journal.Monthly:
		out = append(out, action(fmt.Sprintf("Rerun the rollup of month %s", f.Month), "month", f.Month.String()))
	}
	return out
}
