// Package participant is what one agent session may do with memory: render its
// <memory> block, read a note with where it stands in the effective view, write
// a note under the revision check, append to today's daily note, search, and
// list the view. A Participant is one session's scope (data directory,
// project, task, one agent, machine), fixed when it is made; every operation
// refuses a dimension, ID or key outside it.
//
// The functions here know nothing of any protocol: the MCP server
// (package mcpserver) and the `append` command only translate to and from
// them, so every agent-facing surface gets the same checks. Results carry JSON
// tags in the agents' spelling (snake_case), since they are what agents read.
//
// Addressing. A note's place is written "DIMENSION" or "DIMENSION/ID", the
// spelling of `mf-lsp tree` and `promote`: "user", "agent/larry" (larry's own
// notes), "agent" (notes shared by every agent), "task" (the project's notes
// for every task), "task/T-7", "device". Every result names notes that way, so
// an agent copies the place it was given.
package participant

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/errcode"
)

// Participant is one agent session's scope over a loaded memory tree.
type Participant struct {
	m     *engine.Memory
	scope engine.Scope
	today string // the journal's today, YYYY-MM-DD; "" is the local date
	index searchIndex
	// embedIx is the embedded chunks of the notes in scope.
	embedIx embedIndex
	embed   Embedder // search's optional embeddings; nil: keywords only
	// embedErr is why the environment's embedding provider is not used.
	embedErr error
	// cacheDir holds the index's copy across processes; "" none.
	cacheDir string
}

// Embedder embeds texts for hybrid search (issue 26): one vector per text,
// normalized to length 1. engine/embed's Provider is the HTTP one.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Options make a Participant.
type Options struct {
	// Scope is who is looking: the task, at most one agent, the machine. An
	// empty Machine is this machine's.
	Scope engine.Scope
	// Today overrides the journal's today (YYYY-MM-DD) for the boot set and
	// for appends; "" is the local date, read at every call.
	Today string
	// Embeddings is search's optional embedding provider; nil: search ranks
	// by keywords only. The participant reads no environment for it: the
	// front ends that search set it (package embedenv reads
	// MAGICFROG_EMBEDDINGS_URL), so a binary that only appends or renders
	// links no HTTP client.
	Embeddings Embedder
	// EmbeddingsErr is why the configured provider could not be made (a bad
	// MAGICFROG_EMBEDDINGS_URL): a warning (Warnings), search answers by
	// keywords.
	EmbeddingsErr error
	// SearchCacheDir is where search keeps a copy of its index between
	// processes (searchcache.go), read at the first search and written after
	// it when it changed; "" is none (the library's default: tests and
	// embedders write nothing they did not ask for). DefaultSearchCacheDir is
	// the binary's.
	SearchCacheDir string
}

// New makes the participant of scope opts.Scope over m. A participant is one
// agent: a scope with several agents is refused (SPEC §5, one block per
// participant).
func New(m *engine.Memory, opts Options) (*Participant, error) {
	s := opts.Scope
	s.Agents = append([]string(nil), s.Agents...)
	if len(s.Agents) > 1 {
		return nil, &engine.SeveralAgentsError{Agents: s.Agents}
	}
	s.Machine = m.MachineOf(s)
	if opts.Today != "" {
		if _, err := engine.Today(opts.Today); err != nil {
			return nil, fmt.Errorf("today %q: %w", opts.Today, err)
		}
	}
	return &Participant{m: m, scope: s, today: opts.Today, embed: opts.Embeddings,
		embedErr: opts.EmbeddingsErr, cacheDir: opts.SearchCacheDir}, nil
}

// Given is what a front end was told about the scope (flags, editor settings,
// a request's arguments); Resolve fills the rest from the environment and the
// project binding.
type Given struct {
	Task, Agent, Machine          string
	TaskSet, AgentSet, MachineSet bool // given explicitly (an empty value is "none")
	// Agents, when AgentsSet, replace the binding's agents (render's --agent
	// list, the editor's "agents" setting or argument); AgentsFrom names them in
	// a refusal ("--agent", `the setting "agents"`). Agent, when set, is the
	// one chosen and wins over them.
	Agents     []string
	AgentsSet  bool
	AgentsFrom string
}

// AgentEnv names the environment variable that picks the agent when no flag
// or setting does: agent hosts that start one server command for several agents set it.
const AgentEnv = engine.AgentEnv

// Resolve is the one place that decides who a front end answers for: the CLI
// (render, mcp, append), the MCP server and the language server (hover, code
// lens, render, the effective view) all call it. The chosen agent (Agent:
// --agent ID, the "participant" setting or argument), else the given agents
// (AgentsSet), else $MAGICFROG_AGENT, else the project binding; a task or
// machine given replaces the binding's. Several agents and none chosen is
// refused with an *engine.SeveralAgentsError (code several-agents, the agents
// as its choices), the same words everywhere. getenv nil reads no environment.
func Resolve(m *engine.Memory, g Given, getenv func(string) string) (engine.Scope, error) {
	s := bind(m, g)
	from := "the project binding (" + m.Paths.ProjectConfigFile() + ")"
	switch {
	case g.AgentSet && g.Agent != "":
		s.Agents = []string{g.Agent}
		return s, nil
	case g.AgentSet:
		s.Agents = nil
		return s, nil
	case g.AgentsSet:
		s.Agents, from = unique(g.Agents), g.AgentsFrom
	case getenv != nil && getenv(AgentEnv) != "":
		s.Agents = []string{getenv(AgentEnv)}
		return s, nil
	default:
		s.Agents = unique(s.Agents)
	}
	if len(s.Agents) > 1 {
		return s, &engine.SeveralAgentsError{Agents: s.Agents, From: from}
	}
	return s, nil
}

// Bound is the project binding with what g gives laid over it, no agent
// chosen: the task and machine given replace the binding's, and the agents
// given (AgentsSet) its agents. It is the scope of a whole binding, as
// `render --each-agent`, `tree`, `check` and `skills` show it; Resolve picks
// one participant from it.
func Bound(m *engine.Memory, g Given) engine.Scope {
	s := bind(m, g)
	if g.AgentsSet {
		s.Agents = append([]string(nil), g.Agents...)
	}
	return s
}

// bind is the binding with the task and machine g gives.
func bind(m *engine.Memory, g Given) engine.Scope {
	s := m.DefaultScope()
	if g.TaskSet {
		s.Task = g.Task
	}
	if g.MachineSet {
		s.Machine = g.Machine
	}
	return s
}

// unique is ids without repeats, in their order (nil for none).
func unique(ids []string) []string {
	var out []string
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// Memory is the tree the participant reads.
func (p *Participant) Memory() *engine.Memory { return p.m }

// Scope is the participant's fixed scope.
func (p *Participant) Scope() engine.Scope {
	s := p.scope
	s.Agents = append([]string(nil), s.Agents...)
	return s
}

// Agent is the participant's agent ID ("" for none).
func (p *Participant) Agent() string {
	if len(p.scope.Agents) == 1 {
		return p.scope.Agents[0]
	}
	return ""
}

// Warnings say what about the scope will make requests fail: an agent or
// task ID that the tree does not read as an ID (its own notes would be
// refused). The server prints them at start; they never stop it.
func (p *Participant) Warnings() []string {
	var out []string
	if a := p.Agent(); a != "" && !slices.Contains(p.m.Roster(), a) {
		out = append(out, fmt.Sprintf("agent %q is not registered (%s \"agents\", or the project's agents): its own notes can be neither read nor written; run mf-lsp init --agent %s", a, p.m.Paths.RosterFile(), a))
	}
	if p.embedErr != nil {
		out = append(out, fmt.Sprintf("embeddings: %v; search ranks by keywords only", p.embedErr))
	}
	if t := p.scope.Task; t != "" && !p.m.IsTaskID(t) {
		out = append(out, fmt.Sprintf("task %q is not this project's task (%s \"task\" or \"tasks\"): its own notes can be neither read nor written", t, p.m.Paths.ProjectConfigFile()))
	}
	return out
}

// Refusal is a request the participant will not carry out: bad input, or a
// place outside its scope. Nothing was read or written. Code is its
// errcode.Code ("" is invalid-argument).
type Refusal struct {
	Reason string
	Code   errcode.Code
}

func (r *Refusal) Error() string { return r.Reason }

func refuse(format string, args ...any) error {
	return &Refusal{Reason: fmt.Sprintf(format, args...)}
}

// refuseAs is a refusal with its code.
func refuseAs(code errcode.Code, format string, args ...any) error {
	return &Refusal{Reason: fmt.Sprintf(format, args...), Code: code}
}

// IsRefusal reports whether err is a Refusal, or a text the engine refused
// as not a note (engine.NotANoteError): bad input either way.
func IsRefusal(err error) bool {
	var r *Refusal
	if errors.As(err, &r) {
		return true
	}
	_, ok := engine.AsNotANote(err)
	return ok
}

// Place is where a note lives: a dimension and, for agent and task, an ID
// ("" for the notes every agent or task shares).
type Place struct {
	Dimension engine.Dimension
	ID        string
}

func (pl Place) String() string {
	if pl.ID != "" {
		return pl.Dimension.String() + "/" + pl.ID
	}
	return pl.Dimension.String()
}

// placeOf names the place of a loaded note.
func placeOf(e *engine.Note) string { return Place{e.Dimension, e.Owner}.String() }

// ParsePlace reads "DIMENSION" or "DIMENSION/ID" and checks it against the
// participant's scope: only its own agent's and task's IDs are in it.
func (p *Participant) ParsePlace(s string) (Place, error) {
	dim, id, _ := strings.Cut(s, "/")
	d, err := engine.ParseDimension(dim)
	if err != nil {
		return Place{}, refuse("dimension %q: %v; an agent's or task's own notes are agent/ID or task/ID", s, err)
	}
	if strings.Contains(id, "/") || (strings.Contains(s, "/") && id == "") {
		return Place{}, refuse("dimension %q: want DIMENSION or DIMENSION/ID (agent/larry, task/T-7)", s)
	}
	if id != "" && !d.HasOwners() {
		return Place{}, refuse("dimension %q: %s notes have no ID", s, d)
	}
	pl := Place{Dimension: d, ID: id}
	switch {
	case d == engine.Agent && id != "" && id != p.Agent():
		return Place{}, refuseAs(errcode.Forbidden, "dimension %q is outside this participant's scope: it is %s; another agent's notes are not readable or writable here", s, p.describeAgent())
	case d == engine.Task && id != "" && id != p.scope.Task:
		return Place{}, refuseAs(errcode.Forbidden, "dimension %q is outside this participant's scope: it is %s", s, p.describeTask())
	case d == engine.Task && p.m.Paths.ProjectDir == "":
		return Place{}, refuse("dimension %q: task notes live in a project, and this participant has none (start it with --project DIR)", s)
	}
	return pl, nil
}

func (p *Participant) describeAgent() string {
	if a := p.Agent(); a != "" {
		return "agent " + a + " (its notes: agent/" + a + ")"
	}
	return "no agent (start it with --agent ID)"
}

func (p *Participant) describeTask() string {
	if p.scope.Task != "" {
		return "on task " + p.scope.Task + " (its notes: task/" + p.scope.Task + ", and the project's: task)"
	}
	return "on no task (the project's notes are task)"
}

// target is the file a write of key at pl lands in, after every check: the
// key is a relative .md path, the engine reads the file back as exactly this
// place and key (an ID the roster does not know, or a key starting with an ID,
// would be read as something else), the scope can see it, and its memory root
// exists.
func (p *Participant) target(pl Place, key string) (string, error) {
	if err := engine.CheckKey(key); err != nil {
		return "", refuse("%v", err)
	}
	path, err := p.m.PathOf(pl.Dimension, pl.ID, key)
	if err != nil {
		return "", refuse("%v", err)
	}
	loc, ok := p.m.Locate(path)
	switch {
	case !ok:
		return "", refuse("%s %s is outside every memory root; nothing was written", pl, key)
	case loc.Unregistered && pl.ID != "":
		return "", refuseAs(errcode.Unregistered, "%s %q is not registered, so its notes would be in no one's view (SPEC §2: no write creates an unregistered scope): %s; nothing was written",
			pl.Dimension, pl.ID, p.registerHint(pl))
	case loc.Unregistered:
		return "", refuseAs(errcode.Unregistered, "%s %s: its first folder %q is neither a registered ID nor a shared folder, so the note would be in no one's view; nothing was written", pl, key, loc.Owner)
	case loc.Dimension != pl.Dimension || loc.Owner != pl.ID || loc.Key != key:
		return "", refuse("%s %s would be read back as %s %s (the key's first folder is an ID); nothing was written", pl, key, Place{loc.Dimension, loc.Owner}, loc.Key)
	}
	probe, _, _ := p.m.Parse(path, nil)
	if probe == nil || !p.m.StatusOf(probe, p.scope).InScope {
		return "", refuseAs(errcode.Forbidden, "%s %s is outside this participant's scope", pl, key)
	}
	if err := p.rootExists(pl.Dimension); err != nil {
		return "", err
	}
	return path, nil
}

// checkRegistered refuses a place whose ID the tree does not read as one
// (unregistered): its notes are in no one's view, so they can be neither
// read nor written here.
func (p *Participant) checkRegistered(pl Place) error {
	if pl.ID == "" {
		return nil
	}
	path, err := p.m.PathOf(pl.Dimension, pl.ID, "x.md")
	if err != nil {
		return nil
	}
	if loc, ok := p.m.Locate(path); ok && loc.Unregistered {
		return refuseAs(errcode.Unregistered, "%s %q is not registered, so its notes are in no one's view: %s", pl.Dimension, pl.ID, p.registerHint(pl))
	}
	return nil
}

// registerHint says how an ID gets registered.
func (p *Participant) registerHint(pl Place) string {
	if pl.Dimension == engine.Agent {
		return fmt.Sprintf("add it to %s \"agents\" (mf-lsp init --agent %s)", p.m.Paths.RosterFile(), pl.ID)
	}
	return fmt.Sprintf("add it to %s \"task\" or \"tasks\"", p.m.Paths.ProjectConfigFile())
}

// rootExists refuses writes that would make a memory root out of nothing: a
// mistyped data directory or a server started in the wrong folder must not
// grow a stray tree (the command line's rule too).
func (p *Participant) rootExists(d engine.Dimension) error {
	dir := p.m.Paths.DataDir
	hint := "run mf-lsp init, or start the server with --data-dir"
	if d == engine.Task {
		dir = filepath.Dir(p.m.Paths.TaskDir())
		hint = "task notes live in a project: run mf-lsp init there, or start the server with --project"
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return fmt.Errorf("%s does not exist: %s; nothing was written", dir, hint)
	}
	return nil
}

// noteFor finds the loaded note of key at pl that the participant can see:
// the canonical file before a legacy one. It re-reads the canonical file
// first, so a read is exact even before the watcher reports a change.
func (p *Participant) noteFor(pl Place, key string) (*engine.Note, error) {
	if err := engine.CheckKey(key); err != nil {
		return nil, refuse("%v", err)
	}
	if path, err := p.m.PathOf(pl.Dimension, pl.ID, key); err == nil {
		p.m.Refresh(path)
	}
	var found *engine.Note
	for _, e := range p.m.Versions(key) {
		if e.Dimension != pl.Dimension || e.Owner != pl.ID || !p.m.StatusOf(e, p.scope).InScope {
			continue
		}
		if found == nil || (found.Legacy && !e.Legacy) {
			found = e
		}
	}
	return found, nil
}

// notFound says a note is missing, and where the key is in scope instead.
func (p *Participant) notFound(pl Place, key string) error {
	var elsewhere []string
	for _, e := range p.m.Versions(key) {
		if p.m.StatusOf(e, p.scope).InScope {
			elsewhere = append(elsewhere, placeOf(e))
		}
	}
	msg := fmt.Sprintf("no note %s %s", pl, key)
	if len(elsewhere) > 0 {
		msg += "; the key is in scope at " + strings.Join(elsewhere, ", ")
	}
	return &NotFound{Reason: msg + " (to create it, write with expected_revision 0)"}
}

// NotFound is a read of a note that does not exist.
type NotFound struct{ Reason string }

func (n *NotFound) Error() string { return n.Reason }
