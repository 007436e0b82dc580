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

// CommandAction is an action that runs a server command with one argument,
// made by the command's declaration (Command.Action, commands.go).
type CommandAction struct {
	Title   string
	Kind    string
	Command string
	Arg     any // the command's argument type
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
	add := func(title string, r PromoteRequest) {
		// The revisions shown are the ones the promotion expects: a
		// compare-and-swap on both ends, never a blind overwrite.
		rev := e.Revision()
		r.SourceRevision = &rev
		to, _ := engine.ParseDimension(r.To)
		key, owner := e.Key, e.Owner
		if r.To == "skills" {
			l, _ := m.Layers().ByName("skills")
			to, key = e.Dimension, l.Prefix+e.LayerKey()
		} else if r.Scope != nil || to != e.Dimension {
			owner = ""
			if r.Scope != nil {
				owner = *r.Scope
			}
		}
		if rev := m.CurrentRevision(to, owner, key); rev > 0 {
			r.DestRevision = rev
			title += fmt.Sprintf(" (replaces revision %d there)", rev)
		}
		out = append(out, PromoteCmd.Action(title, KindRefactorMove, PromoteArgs{NoteArgs{snap.URI()}, r}))
	}
	if e.Dimension == engine.Task {
		for _, id := range snap.Scope.Agents {
			add("Promote to agent "+id, PromoteRequest{To: "agent", Scope: &id})
		}
		shared := ""
		add("Promote to every agent (shared agent note)", PromoteRequest{To: "agent", Scope: &shared})
	}
	if e.Dimension.Specificity() > engine.User.Specificity() {
		add("Promote to user", PromoteRequest{To: "user"})
	}
	if e.Dimension.Specificity() > engine.Account.Specificity() {
		add("Promote to account", PromoteRequest{To: "account"})
	}
	if !e.Layer.IsSkills() {
		if _, ok := m.Layers().ByName("skills"); ok {
			add("Move into the skills layer", PromoteRequest{To: "skills"})
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
		owner := e.Owner
		return RollupCmd.Action(title, KindSourceRollup, RollupRequest{Kind: kind, Period: period, Dimension: e.Dimension.String(), Scope: &owner})
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
