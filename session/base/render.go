package base

import (
	"io"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/participant"
)

// BlocksRequest is the shell's render (`mf-lsp render`): the scope as given
// (the flags), whether one block per agent of it is wanted, and the render's
// options.
type BlocksRequest struct {
	Given participant.Given
	// Each renders one block per agent of the bound scope (participant.Bound)
	// instead of the one participant Resolve picks.
	Each     bool
	Budget   int
	Previous string
	Today    string
	Earlier  int
	// Into is the file the block goes into (IntoFile), "" for none.
	Into string
	// Out, when set and Into is "", is where each block is written as it is
	// rendered (engine.Memory.RenderTo: never held whole); fn then has it
	// with its Text "".
	Out io.Writer
}

// RenderEach renders the blocks r asks of m, in order, handing each to fn
// until fn returns false. The scope is participant.Resolve's (its refusal,
// e.g. several agents and none chosen, is the error, before any block), or
// with r.Each each agent of the bound scope (the bound scope itself when it
// names none). A failed render is the engine's error.
func RenderEach(m *engine.Memory, r BlocksRequest, getenv func(string) string, fn func(i int, b *engine.Block) bool) error {
	scope := participant.Bound(m, r.Given)
	participants := []engine.Scope{scope}
	switch {
	case r.Each && len(scope.Agents) > 0:
		participants = participants[:0]
		for _, a := range scope.Agents {
			p := scope
			p.Agents = []string{a}
			participants = append(participants, p)
		}
	case !r.Each:
		one, err := participant.Resolve(m, r.Given, getenv)
		if err != nil {
			return err
		}
		participants[0] = one
	}
	for i, p := range participants {
		opts := engine.RenderOptions{Scope: p, Budget: r.Budget, Previous: r.Previous, Today: r.Today, Earlier: r.Earlier}
		if r.Into != "" {
			opts.Into = IntoFile(r.Into)
		}
		var b *engine.Block
		var err error
		if r.Out != nil && r.Into == "" {
			b, err = m.RenderTo(r.Out, opts)
		} else {
			b, err = m.Render(opts)
		}
		if err != nil {
			return err
		}
		if !fn(i, b) {
			return nil
		}
	}
	return nil
}
