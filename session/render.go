package session

import (
	"fmt"
	"os"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/participant"
	"github.com/magicfrog/mf-lsp/session/base"
)

// The read-only commands over a snapshot: the <memory> block (Render,
// RenderInto), the effective view (View) and where a note stands (Describe).
// Each takes its defaults from the snapshot's session: its participant and
// scope, budget, today and earlier.

// Check refuses a negative budget or earlier and a malformed today, naming
// the argument.
func (r RenderRequest) Check() error {
	if r.Earlier != nil && *r.Earlier < 0 {
		return fmt.Errorf("argument \"earlier\" must be a number of days ≥ 0, got %d", *r.Earlier)
	}
	if r.Budget != nil && *r.Budget < 0 {
		return fmt.Errorf("argument \"budget\" must be a token count ≥ 0 (0: no limit), got %d", *r.Budget)
	}
	if r.Today != "" {
		if _, err := engine.Today(r.Today); err != nil {
			return fmt.Errorf("argument \"today\": %v", err)
		}
	}
	return nil
}

// ScopeFor is the scope a render or an effective view answers for: the
// request's fields over the session's settings, decided by
// participant.Resolve (several agents and none chosen: its
// *engine.SeveralAgentsError, with the scope of them all).
func (snap *Snapshot) ScopeFor(r ScopeRequest) (engine.Scope, error) {
	return participant.Resolve(snap.Memory, r.Given(snap.Settings.Given()), os.Getenv)
}

// RenderOptions are the engine's options for request r: the session's scope,
// budget, today and earlier unless r names them.
func (snap *Snapshot) RenderOptions(r RenderRequest) (engine.RenderOptions, error) {
	st := snap.Settings
	sc, err := snap.ScopeFor(r.ScopeRequest)
	if err != nil {
		return engine.RenderOptions{}, err
	}
	return r.Options(snap.Memory, sc, RenderDefaults{Budget: st.Budget, Today: snap.Today.String(), Earlier: st.Earlier}), nil
}

// Render is magicfrog.render's answer: the block's text, or with r.Details
// what a preview shows (RenderDetails).
func Render(snap *Snapshot, r RenderRequest) (any, error) {
	opts, err := snap.RenderOptions(r)
	if err != nil {
		return nil, err
	}
	b, err := snap.Memory.Render(opts)
	if err != nil {
		return nil, err
	}
	if r.Details {
		return Preview(b, opts.Scope, opts.Budget, ScopeSentence(opts.Scope, opts.Scope.Machine)), nil
	}
	return b.Text, nil
}

// WriteError is a rendered block that could not be written into its file.
type WriteError struct{ Err error }

func (e *WriteError) Error() string { return e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// RenderInto renders r into the managed section of file (HostFile: ""
// is the project's CLAUDE.md, else its AGENTS.md; ErrNoHostFile when neither
// exists). The file must be one CheckHostFile allows inside the project (the
// editor's workspace): else, or without a project, a *HostFileError. A failed
// write is a *WriteError; a failed render is the engine's.
func RenderInto(snap *Snapshot, r RenderRequest, file string) (base.Written, error) {
	m := snap.Memory
	path, err := HostFile(m.Paths.ProjectDir, file)
	if err != nil {
		return base.Written{}, err
	}
	if m.Paths.ProjectDir == "" {
		return base.Written{}, &base.HostFileError{Path: path, Reason: "cannot be written: the session has no workspace folder, and the language server writes the block only into a file of its workspace"}
	}
	if err := base.CheckHostFile(m.Paths, path, m.Paths.ProjectDir); err != nil {
		return base.Written{}, err
	}
	opts, err := snap.RenderOptions(r)
	if err != nil {
		return base.Written{}, err
	}
	opts.Into = base.IntoFile(path)
	b, err := m.Render(opts)
	if err != nil {
		return base.Written{}, err
	}
	w, err := base.WriteBlockInto(m, path, b)
	if err != nil {
		return base.Written{}, &WriteError{Err: err}
	}
	w.URI = PathToURI(w.Path)
	return w, nil
}

// View is magicfrog.effectiveView's answer for request r (ViewOf).
func View(snap *Snapshot, r ScopeRequest) (EffectiveView, error) {
	sc, err := snap.ScopeFor(r)
	if err != nil && (r.Agents == nil || r.Participant != "") {
		return EffectiveView{}, err
	}
	// Agents the request names are shown side by side (docs/protocol.md).
	return ViewOf(snap.Memory, sc, snap.Today.String(), snap.Settings.Earlier)
}

// Generation is the generation of the session's block (the participant's,
// at the session's budget and today): what a client compares to know its
// copy is stale. "" when the block does not render.
func Generation(snap *Snapshot) string {
	if snap.Refused != nil {
		return ""
	}
	b, err := snap.Memory.Render(engine.RenderOptions{Scope: snap.Participant, Budget: snap.Settings.Budget, Today: snap.Today.String()})
	if err != nil {
		return ""
	}
	return b.Generation
}
