package session

import (
	"fmt"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/journal"
)

// Action kinds (the LSP code action kinds they are offered under).
const (
	KindRefactorMove = "refactor.move" // promotions
	KindSourceRollup = "source.rollup" // rollups a journal file feeds or is
)

// CommandAction is an action that runs a server command with one argument.
type CommandAction struct {
	Title   string
	Kind    string
	Command string
	Arg     map[string]any
}

// URI is the note's URI as the client named it when open, else its file URI.
func (snap *Snapshot) URI() string {
	if snap.Doc != nil {
		return snap.Doc.URI
	}
	return PathToURI(snap.Path)
}

// PromoteActions offer moving the note on disk up the chain (task → agent →
// user → account) and into the skills layer, as magicfrog.promote commands,
// revision-checked when they run. Device and journal notes are not offered: the
// first belong to one machine, the second to their journal.
func PromoteActions(snap *Snapshot) []CommandAction {
	m := snap.Memory
	e := m.Note(snap.Path)
	if e == nil || e.Dimension == engine.Device || e.Layer.Kind == engine.KindFractal {
		return nil
	}
	var out []CommandAction
	add := func(title string, arg map[string]any) {
		arg["uri"] = snap.URI()
		// The revisions shown are the ones the promotion expects: a
		// compare-and-swap on both ends, never a blind overwrite.
		arg["sourceRevision"] = e.Revision()
		to, _ := engine.ParseDimension(fmt.Sprint(arg["to"]))
		key, owner := e.Key, e.Owner
		if arg["to"] == "skills" {
			l, _ := m.Layers().ByName("skills")
			to, key = e.Dimension, l.Prefix+e.LayerKey()
		} else if sc, ok := arg["scope"].(string); ok || to != e.Dimension {
			owner = sc
		}
		if rev := m.CurrentRevision(to, owner, key); rev > 0 {
			arg["destRevision"] = rev
			title += fmt.Sprintf(" (replaces revision %d there)", rev)
		}
		out = append(out, CommandAction{Title: title, Kind: KindRefactorMove, Command: "magicfrog.promote", Arg: arg})
	}
	if e.Dimension == engine.Task {
		for _, id := range snap.Scope.Agents {
			add("Promote to agent "+id, map[string]any{"to": "agent", "scope": id})
		}
		add("Promote to every agent (shared agent note)", map[string]any{"to": "agent", "scope": ""})
	}
	if e.Dimension.Specificity() > engine.User.Specificity() {
		add("Promote to user", map[string]any{"to": "user"})
	}
	if e.Dimension.Specificity() > engine.Account.Specificity() {
		add("Promote to account", map[string]any{"to": "account"})
	}
	if !e.Layer.IsSkills() {
		if _, ok := m.Layers().ByName("skills"); ok {
			add("Move into the skills layer", map[string]any{"to": "skills"})
		}
	}
	return out
}

// RollupActions offer the rollups a journal file feeds or is (SPEC §6), as
// magicfrog.rollup commands on the note's own journal: on a raw day, refine
// it; on a refined day, roll up its week; on a weekly, roll up its month; on a
// rollup output, run it again. Rollups write with expected revisions, so
// running one on a file being edited is safe.
func RollupActions(snap *Snapshot) []CommandAction {
	e := snap.Note
	if e == nil || e.Layer.Kind != engine.KindFractal {
		return nil
	}
	f, problem := journal.Classify(e.LayerKey())
	if problem != nil {
		return nil
	}
	action := func(title, kind, period string) CommandAction {
		return CommandAction{Title: title, Kind: KindSourceRollup, Command: "magicfrog.rollup", Arg: map[string]any{
			"kind": kind, "period": period, "dimension": e.Dimension.String(), "scope": e.Owner}}
	}
	today := snap.Today
	var out []CommandAction
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
		if mo := f.Week.Month(); mo.Last().Before(today) {
			out = append(out, action(fmt.Sprintf("Roll up month %s", mo), "month", mo.String()))
		}
	case journal.Monthly:
		out = append(out, action(fmt.Sprintf("Rerun the rollup of month %s", f.Month), "month", f.Month.String()))
	}
	return out
}
