package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
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
		if req, err := promotionOf(m, e, r); err == nil {
			if rev := m.CurrentRevision(req.To, req.ToOwner, req.key); rev > 0 {
				r.DestRevision = rev
				title += fmt.Sprintf(" (replaces revision %d there)", rev)
			}
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

// destination is a promotion with where it goes (engine.PromoteDestination).
type destination struct {
	engine.PromoteRequest
	path, key string
}

// promotionOf is the promotion of the note e that r asks for, with its
// destination.
func promotionOf(m *engine.Memory, e *engine.Note, r PromoteRequest) (destination, error) {
	p, err := r.Promotion(e.Path)
	if err != nil {
		return destination{}, err
	}
	req, err := p.request(m, e)
	if err != nil {
		return destination{}, err
	}
	d := destination{PromoteRequest: req}
	d.path, d.key, err = m.PromoteDestination(req)
	return d, err
}

// Move is a promotion the editor makes itself (a WorkspaceEdit): the
// frontmatter edits of the note's text (the buffer when open, Text), then the
// file renamed from From to To, its buffer following it with any unsaved edits.
type Move struct {
	From, To string
	Text     []byte
	Edits    []Edit
}

// PromoteMove is the promotion a asks for as a Move, when an editor can make
// it safely: a move (not a copy, no registering) of a note on disk whose
// buffer is based on what the disk holds now, to a place where nothing is (no
// note, no file, no legacy version to continue) and that reads back as the
// very place asked for, under an ID that is registered. The edits set what the
// next save would: revision one more than the disk's, updated now, no machine
// key outside the device dimension. Otherwise ok is false, and the promotion
// stays the revision-checked magicfrog.promote command.
func PromoteMove(snap *Snapshot, a PromoteArgs) (mv Move, ok bool) {
	m := snap.Memory
	e := m.Note(snap.Path)
	if e == nil || snap.Note == nil || a.Copy || a.Register || (snap.HasBase && conflicts(snap.Base, e.TextOrNil())) {
		return Move{}, false
	}
	d, err := promotionOf(m, e, a.PromoteRequest)
	if err != nil || m.CurrentRevision(d.To, d.ToOwner, d.key) != 0 {
		return Move{}, false
	}
	if _, err := os.Lstat(d.path); !errors.Is(err, fs.ErrNotExist) {
		return Move{}, false
	}
	loc, ok := m.Locate(d.path)
	if !ok || loc.Unregistered || loc.Legacy || loc.Dimension != d.To || loc.Owner != d.ToOwner || loc.Key != d.key {
		return Move{}, false
	}
	doc := snap.Note.Doc()
	if len(doc.Errors) > 0 {
		return Move{}, false
	}
	sets := []frontmatter.Set{{Key: "revision", Value: e.Revision() + 1}, {Key: "updated", Value: snap.Updated()}}
	if d.To != engine.Device {
		sets = append(sets, frontmatter.Set{Key: "machine"})
	}
	return Move{From: snap.Path, To: d.path, Text: snap.Src(), Edits: FrontmatterEdits(snap.Src(), doc, sets)}, true
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
