package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sourcegraph/jsonrpc2"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/engine"
)

// The read-only commands of docs/protocol.md: magicfrog.render,
// magicfrog.effectiveView, magicfrog.describe and magicfrog.showEntry. Every
// command runs Async: memory may still be loading (Server.Memory waits for it)
// and the read loop must never wait.

// entryJSON is the Entry object of docs/protocol.md.
type entryJSON struct {
	Ref       string `json:"ref"`
	Dimension string `json:"dimension"`
	Scope     string `json:"scope"`
	Key       string `json:"key"`
	Layer     string `json:"layer"`
	Path      string `json:"path"`
	URI       string `json:"uri"`
	Revision  int    `json:"revision"`
	Updated   string `json:"updated"`
	Machine   string `json:"machine"`
	Legacy    bool   `json:"legacy"`
	Tokens    int    `json:"tokens"`
	Hash      string `json:"hash"`
}

func toEntryJSON(e *engine.Note) entryJSON {
	return entryJSON{
		Ref: e.Ref(), Dimension: e.Dimension.String(), Scope: e.Owner, Key: e.Key, Layer: e.Layer.Name,
		Path: e.Path, URI: string(PathToURI(e.Path)), Revision: e.Revision(), Updated: e.Updated(),
		Machine: e.Machine(), Legacy: e.Legacy, Tokens: e.Tokens(), Hash: e.Hash,
	}
}

func toEntriesJSON(es []*engine.Note) []entryJSON {
	out := make([]entryJSON, 0, len(es))
	for _, e := range es {
		out = append(out, toEntryJSON(e))
	}
	return out
}

// scopeArg is the optional scope of render and effectiveView: an absent field
// keeps the session's (settings, else the project binding); a present one
// replaces it ("" for no task).
type scopeArg struct {
	Task    *string   `json:"task"`
	Agents  *[]string `json:"agents"`
	Machine *string   `json:"machine"`
	// Participant picks the one agent (the render preview's picker); absent,
	// the session's participant.
	Participant string `json:"participant"`
}

// scope is the scope a render or effective view answers for: the session's
// participant, with the argument's fields applied. agents with several IDs
// and no participant is refused by the engine (one agent per block).
func (a scopeArg) scope(s *Server, m *engine.Memory) engine.Scope {
	sc := s.Participant(m)
	if a.Agents != nil {
		sc = s.Scope(m)
	}
	sc = a.apply(sc)
	if a.Participant != "" {
		sc.Agents = []string{a.Participant}
	}
	return sc
}

func (a scopeArg) apply(sc engine.Scope) engine.Scope {
	if a.Task != nil {
		sc.Task = *a.Task
	}
	if a.Agents != nil {
		sc.Agents = append([]string(nil), (*a.Agents)...)
	}
	if a.Machine != nil {
		sc.Machine = *a.Machine
	}
	return sc
}

// memoryNow returns the session's memory for a command, as a RequestFailed error
// a user can read when it could not be opened.
func (s *Server) memoryNow() (*engine.Memory, error) {
	m, err := s.Memory()
	if err != nil {
		return nil, Errorf(CodeRequestFailed, "mf-lsp: memory is not available: %v", err)
	}
	if m == nil {
		return nil, Errorf(CodeRequestFailed, "mf-lsp: memory is not available")
	}
	return m, nil
}

// withMemory is a command's result that runs fn beside the read loop on the
// session's memory, once it is loaded; fn is not called when it could not be
// (memoryNow's error).
func (s *Server) withMemory(fn func(m *engine.Memory) (any, error)) Async {
	return func(context.Context) (any, error) {
		m, err := s.memoryNow()
		if err != nil {
			return nil, err
		}
		return fn(m)
	}
}

// memoryLoaded reports whether the first load finished (without waiting).
func (s *Server) memoryLoaded() bool {
	select {
	case <-s.sess.Loaded():
		return true
	default:
		return false
	}
}

// argURI checks a required uri argument: present and a file:// URI.
func argURI(command, uri string) (string, error) {
	if uri == "" {
		return "", MissingArg(command, "uri")
	}
	path, err := URIToPath(uri)
	if err != nil {
		return "", Errorf(jsonrpc2.CodeInvalidParams, "%s: argument \"uri\": %v", command, err)
	}
	return path, nil
}

// noteArg is the "uri" field of the commands about one note; their argument
// structs embed it.
type noteArg struct {
	URI string `json:"uri"`
}

func (a noteArg) noteURI() string { return a.URI }

// decodeNoteArg decodes the argument of a command about one note into a (a
// pointer to a struct embedding noteArg) and checks its required uri; it
// returns the note's path.
func decodeNoteArg(command string, arg json.RawMessage, a interface{ noteURI() string }) (string, error) {
	if err := DecodeArg(command, arg, a); err != nil {
		return "", err
	}
	return argURI(command, a.noteURI())
}

// renderArg is the argument of magicfrog.render and magicfrog.renderInto.
type renderArg struct {
	scopeArg
	Budget   *int   `json:"budget"`
	Previous string `json:"previous"`
	Today    string `json:"today"`
	Earlier  *int   `json:"earlier"`
	// Details asks for a preview's answer (renderDetails) instead of the text.
	Details bool `json:"details"`
}

// check refuses a negative budget or earlier and a malformed today.
func (a renderArg) check(cmd string) error {
	if a.Earlier != nil && *a.Earlier < 0 {
		return Errorf(jsonrpc2.CodeInvalidParams, "%s: argument \"earlier\" must be a number of days ≥ 0, got %d", cmd, *a.Earlier)
	}
	if a.Budget != nil && *a.Budget < 0 {
		return Errorf(jsonrpc2.CodeInvalidParams, "%s: argument \"budget\" must be a token count ≥ 0 (0: no limit), got %d", cmd, *a.Budget)
	}
	if a.Today != "" {
		if _, err := engine.Today(a.Today); err != nil {
			return Errorf(jsonrpc2.CodeInvalidParams, "%s: argument \"today\": %v", cmd, err)
		}
	}
	return nil
}

// render renders the block the argument asks for: the session's scope, budget
// and today unless the argument names them.
func (s *Server) render(m *engine.Memory, a renderArg) (*engine.Block, error) {
	b, _, err := s.renderScoped(m, a)
	return b, err
}

// renderScoped is render, with the options it rendered with.
func (s *Server) renderScoped(m *engine.Memory, a renderArg) (*engine.Block, engine.RenderOptions, error) {
	st := s.Settings()
	opts := engine.RenderOptions{Scope: a.scope(s, m), Budget: st.Budget, Previous: a.Previous, Today: st.Today, Earlier: st.Earlier}
	if a.Earlier != nil {
		opts.Earlier = *a.Earlier
	}
	if a.Budget != nil {
		opts.Budget = *a.Budget
	}
	if a.Today != "" {
		opts.Today = a.Today
	}
	if opts.Scope.Machine == "" {
		opts.Scope.Machine = m.MachineID()
	}
	b, err := m.Render(opts)
	return b, opts, err
}

// renderFailed names the participant argument when a render refused several
// agents in one block.
func renderFailed(cmd string, err error) error {
	var several *engine.SeveralAgentsError
	if errors.As(err, &several) {
		return Errorf(CodeRequestFailed, "%s: %v (argument \"participant\")", cmd, err)
	}
	return err
}

// renderCommand: magicfrog.render {task, agents, machine, budget, previous} → the
// <memory> block.
func (s *Server) renderCommand(_ *glsp.Context, arg json.RawMessage) (any, error) {
	const cmd = "magicfrog.render"
	var a renderArg
	if err := DecodeArg(cmd, arg, &a); err != nil {
		return nil, err
	}
	if err := a.check(cmd); err != nil {
		return nil, err
	}
	return s.withMemory(func(m *engine.Memory) (any, error) {
		b, opts, err := s.renderScoped(m, a)
		if err != nil {
			return nil, renderFailed(cmd, err)
		}
		if a.Details {
			return detailsOf(b, opts.Scope, opts.Budget), nil
		}
		return b.Text, nil
	}), nil
}

type keyViewJSON struct {
	Key      string      `json:"key"`
	Winner   entryJSON   `json:"winner"`
	Shadowed []entryJSON `json:"shadowed"`
}

// effectiveViewCommand: magicfrog.effectiveView {task, agents, machine} → the
// view, and in "boot" the journal notes the block takes, in the block's order.
func (s *Server) effectiveViewCommand(_ *glsp.Context, arg json.RawMessage) (any, error) {
	const cmd = "magicfrog.effectiveView"
	var a scopeArg
	if err := DecodeArg(cmd, arg, &a); err != nil {
		return nil, err
	}
	return s.withMemory(func(m *engine.Memory) (any, error) {
		sc := a.scope(s, m)
		v := m.View(sc)
		st := s.Settings()
		boot, err := m.BootSet(engine.RenderOptions{Scope: sc, Today: st.Today, Earlier: st.Earlier})
		if err != nil {
			return nil, err
		}
		out := struct {
			Scope  engine.Scope  `json:"scope"`
			Keys   []keyViewJSON `json:"keys"`
			Device []entryJSON   `json:"device"`
			Skills []entryJSON   `json:"skills"`
			Boot   []entryJSON   `json:"boot"`
		}{Scope: sc, Keys: []keyViewJSON{}, Device: toEntriesJSON(v.Device), Skills: []entryJSON{}, Boot: toEntriesJSON(boot)}
		for _, k := range v.Keys {
			out.Keys = append(out.Keys, keyViewJSON{Key: k.Key, Winner: toEntryJSON(k.Winner), Shadowed: toEntriesJSON(k.Shadowed)})
			if k.Winner.Layer.IsSkills() {
				out.Skills = append(out.Skills, toEntryJSON(k.Winner))
			}
		}
		if out.Scope.Agents == nil {
			out.Scope.Agents = []string{}
		}
		return out, nil
	}), nil
}

// describeCommand: magicfrog.describe {uri} → Entry + effective, shadowedBy, shadows.
// An open buffer is described as it is in the editor.
func (s *Server) describeCommand(_ *glsp.Context, arg json.RawMessage) (any, error) {
	const cmd = "magicfrog.describe"
	var a noteArg
	if _, err := decodeNoteArg(cmd, arg, &a); err != nil {
		return nil, err
	}
	return s.withMemory(func(*engine.Memory) (any, error) {
		n, ok := s.Note(a.URI)
		if !ok {
			return nil, Errorf(jsonrpc2.CodeInvalidParams, "%s: %s is not a memory note", cmd, a.URI)
		}
		st := n.Memory.StatusOf(n.Note, s.Participant(n.Memory))
		out := struct {
			entryJSON
			InScope    bool        `json:"inScope"`
			Effective  bool        `json:"effective"`
			ShadowedBy *entryJSON  `json:"shadowedBy,omitempty"`
			Shadows    []entryJSON `json:"shadows"`
		}{entryJSON: toEntryJSON(n.Note), InScope: st.InScope, Effective: st.Effective, Shadows: toEntriesJSON(st.Shadows)}
		if st.Winner != nil && !st.Effective {
			w := toEntryJSON(st.Winner)
			out.ShadowedBy = &w
		}
		return out, nil
	}), nil
}

// showEntryCommand: magicfrog.showEntry {uri} asks the client to open the note
// (window/showDocument, takeFocus). Returns {"success": bool}.
func (s *Server) showEntryCommand(_ *glsp.Context, arg json.RawMessage) (any, error) {
	const cmd = "magicfrog.showEntry"
	var a noteArg
	if _, err := decodeNoteArg(cmd, arg, &a); err != nil {
		return nil, err
	}
	return Async(func(ctx context.Context) (any, error) {
		ok, err := s.showDocument(ctx, a.URI)
		if err != nil {
			return nil, err
		}
		return map[string]bool{"success": ok}, nil
	}), nil
}

// showDocument sends window/showDocument. Never call it on the read loop.
func (s *Server) showDocument(ctx context.Context, uri string) (bool, error) {
	caps := s.ClientCapabilities()
	if caps.Window == nil || caps.Window.ShowDocument == nil || !caps.Window.ShowDocument.Support {
		return false, Errorf(CodeRequestFailed, "the editor does not support window/showDocument; open %s yourself", uri)
	}
	yes := true
	var res protocol.ShowDocumentResult
	if err := s.Call(ctx, string(protocol.ServerWindowShowDocument), &protocol.ShowDocumentParams{URI: uri, TakeFocus: &yes}, &res); err != nil {
		return false, fmt.Errorf("window/showDocument %s: %w", uri, err)
	}
	return res.Success, nil
}
