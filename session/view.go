package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/participant"
)

// The read-only answers about what a scope sees: the effective view, one
// note's standing in it, and the rendered <memory> block with what a preview
// shows beside it. Their JSON is the answer docs/protocol.md documents for
// magicfrog.effectiveView, magicfrog.describe, magicfrog.render and
// magicfrog.renderInto.

// NoteSummary is the Entry object of docs/protocol.md: one note as a client
// lists it.
type NoteSummary struct {
	Ref       string `json:"ref"`
	Dimension string `json:"dimension"`
	Scope     string `json:"scope"` // the note's owner ID: the protocol's name for it
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

// Summarize is n, a note of m, as an Entry; its tokens are counted through
// m's token cache.
func Summarize(m *engine.Memory, n *engine.Note) NoteSummary {
	tokens, _ := n.Tokens(m.TokenCache()) // 0 for a note changed on disk since the load (it is refreshed)
	return NoteSummary{
		Ref: n.Ref(), Dimension: n.Dimension.String(), Scope: n.Owner, Key: n.Key, Layer: n.Layer.Name,
		Path: n.Path, URI: PathToURI(n.Path), Revision: n.Revision(), Updated: n.Updated(),
		Machine: n.Machine(), Legacy: n.Legacy, Tokens: tokens, Hash: n.Hash(),
	}
}

// SummarizeAll is ns as Entries; never nil, so the JSON is [] and not null.
func SummarizeAll(m *engine.Memory, ns []*engine.Note) []NoteSummary {
	out := make([]NoteSummary, 0, len(ns))
	for _, n := range ns {
		out = append(out, Summarize(m, n))
	}
	return out
}

// ScopeRequest is the optional scope a render or an effective view is asked
// for: an absent field keeps the session's, a present one replaces it (task
// "" for no task).
type ScopeRequest struct {
	Task    *string   `json:"task"`
	Agents  *[]string `json:"agents"`
	Machine *string   `json:"machine"`
	// Participant picks the one agent (the render preview's picker); absent,
	// the session's participant.
	Participant string `json:"participant"`
}

// Given is what the request says about its scope laid over what the session
// says (g: the settings'), for participant.Resolve, the one place that
// decides: a task or machine named replaces the session's; agents named
// replace the session's (and its participant setting), several of them
// without a participant refused; participant picks one agent.
func (r ScopeRequest) Given(g participant.Given) participant.Given {
	if r.Task != nil {
		g.Task, g.TaskSet = *r.Task, true
	}
	if r.Machine != nil {
		g.Machine, g.MachineSet = *r.Machine, true
	}
	if r.Agents != nil {
		g.Agent, g.AgentSet = "", false
		g.Agents, g.AgentsSet, g.AgentsFrom = append([]string(nil), (*r.Agents)...), true, `the argument "agents"`
	}
	if r.Participant != "" {
		g.Agent, g.AgentSet = r.Participant, true
	}
	return g
}

// RenderRequest is what a render is asked for, beside its scope: the fields
// that are absent take the session's defaults (RenderDefaults).
type RenderRequest struct {
	ScopeRequest
	Budget   *int   `json:"budget"`
	Previous string `json:"previous"`
	Today    string `json:"today"`
	Earlier  *int   `json:"earlier"`
	// Details asks for a preview's answer (Preview) instead of the text.
	Details bool `json:"details"`
}

// RenderDefaults are the session's render settings.
type RenderDefaults struct {
	Budget  int
	Today   string // YYYY-MM-DD; "" is the local date
	Earlier int
}

// Options are the engine's render options for the request in scope sc: the
// request's fields over the defaults, and this machine when sc names none.
func (r RenderRequest) Options(m *engine.Memory, sc engine.Scope, d RenderDefaults) engine.RenderOptions {
	opts := engine.RenderOptions{Scope: sc, Budget: d.Budget, Previous: r.Previous, Today: d.Today, Earlier: d.Earlier}
	if r.Earlier != nil {
		opts.Earlier = *r.Earlier
	}
	if r.Budget != nil {
		opts.Budget = *r.Budget
	}
	if r.Today != "" {
		opts.Today = r.Today
	}
	opts.Scope.Machine = m.MachineOf(opts.Scope)
	return opts
}

// KeyView is one key of an effective view: the note that wins it and the
// versions it shadows.
type KeyView struct {
	Key      string        `json:"key"`
	Winner   NoteSummary   `json:"winner"`
	Shadowed []NoteSummary `json:"shadowed"`
}

// EffectiveView is magicfrog.effectiveView's answer: per key the winner and
// what it shadows, the device notes, the skills that win, and in Boot the
// journal notes the block takes, in the block's order.
type EffectiveView struct {
	Scope  engine.Scope  `json:"scope"`
	Keys   []KeyView     `json:"keys"`
	Device []NoteSummary `json:"device"`
	Skills []NoteSummary `json:"skills"`
	Boot   []NoteSummary `json:"boot"`
}

// Effective is the effective view of scope sc, the engine's: every key's
// winner and what it shadows, and the device notes (`mf-lsp tree`, and ViewOf
// under magicfrog.effectiveView).
func Effective(m *engine.Memory, sc engine.Scope) *engine.View { return m.View(sc) }

// ViewOf is the effective view of scope sc; today and earlier choose the
// journal's boot set as a render does (RenderOptions.Today, .Earlier).
func ViewOf(m *engine.Memory, sc engine.Scope, today string, earlier int) (EffectiveView, error) {
	v := Effective(m, sc)
	boot, err := m.BootSet(engine.RenderOptions{Scope: sc, Today: today, Earlier: earlier})
	if err != nil {
		return EffectiveView{}, err
	}
	out := EffectiveView{Scope: sc, Keys: []KeyView{}, Device: SummarizeAll(m, v.Device), Skills: []NoteSummary{}, Boot: SummarizeAll(m, boot)}
	for _, k := range v.Keys {
		out.Keys = append(out.Keys, KeyView{Key: k.Key, Winner: Summarize(m, k.Winner), Shadowed: SummarizeAll(m, k.Shadowed)})
		if k.Winner.Layer.IsSkills() {
			out.Skills = append(out.Skills, Summarize(m, k.Winner))
		}
	}
	return out, nil
}

// Description is magicfrog.describe's answer: the note, and whether it wins
// its key in the participant's view, what shadows it or what it shadows.
type Description struct {
	NoteSummary
	InScope    bool          `json:"inScope"`
	Effective  bool          `json:"effective"`
	ShadowedBy *NoteSummary  `json:"shadowedBy,omitempty"`
	Shadows    []NoteSummary `json:"shadows"`
}

// Describe says where n stands in the participant's view of m. n may be an
// open buffer's parse rather than the loaded note.
func Describe(m *engine.Memory, n *engine.Note, participant engine.Scope) Description {
	st := m.StatusOf(n, participant)
	out := Description{NoteSummary: Summarize(m, n), InScope: st.InScope, Effective: st.Effective, Shadows: SummarizeAll(m, st.Shadows)}
	if st.Winner != nil && !st.Effective {
		w := Summarize(m, st.Winner)
		out.ShadowedBy = &w
	}
	return out
}

// ErrNoHostFile: no file was named and the project has neither a CLAUDE.md
// nor an AGENTS.md to put the block into.
var ErrNoHostFile = errors.New("the project has no CLAUDE.md or AGENTS.md")

// HostFile is the file magicfrog.renderInto writes into: file, relative to
// the project when it is not absolute; "" is the project's CLAUDE.md, else
// its AGENTS.md, when one exists (ErrNoHostFile otherwise).
func HostFile(project, file string) (string, error) {
	if file == "" {
		for _, name := range []string{"CLAUDE.md", "AGENTS.md"} {
			if project == "" {
				break
			}
			p := filepath.Join(project, name)
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
		}
		return "", ErrNoHostFile
	}
	if !filepath.IsAbs(file) && project != "" {
		return filepath.Join(project, file), nil
	}
	return file, nil
}

// RenderDetails is magicfrog.render's answer with {details: true}: the block
// and what a preview shows beside it — for whom it answers, tokens per group
// and in total against the budget, and where the notes the budget leaves out
// are. Lines count from 0 in Text.
type RenderDetails struct {
	Text       string          `json:"text"`
	Generation string          `json:"generation"`
	Tokens     int             `json:"tokens"`
	Budget     int             `json:"budget"`
	Scope      engine.Scope    `json:"scope"`
	Header     []string        `json:"header"`
	Groups     []RenderGroup   `json:"groups"`
	Omitted    []RenderOmitted `json:"omitted"`
}

// RenderGroup is one element of the block (a task, an agent, the skills…).
type RenderGroup struct {
	Name    string `json:"name"` // the element's opening tag without < >: task id="T-7"
	Line    int    `json:"line"`
	Tokens  int    `json:"tokens"`
	Notes   int    `json:"notes"`   // notes (or skills) in the block
	Omitted int    `json:"omitted"` // notes the budget leaves out of this group
}

// RenderOmitted is one <omitted/> line of the block.
type RenderOmitted struct {
	Ref    string `json:"ref"`
	Tokens int    `json:"tokens"`
	Reason string `json:"reason"`
	Line   int    `json:"line"`
}

// omittedAttrs reads an <omitted/> line: the budget's carry tokens, an
// unregistered folder's do not.
var omittedAttrs = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^<omitted path="([^"]*)"(?: tokens="(\d+)")? reason="([^"]*)"/>$`)
})

// groupClose are the closing lines of the block's groups: a body never holds
// one (engine.EscapeBody), so they cut the block into its groups reliably.
var groupClose = map[string]bool{"</task>": true, "</agent>": true, "</user>": true, "</account>": true, "</device>": true, "</skills>": true}

// Preview describes block b, rendered for scope sc under budget, for a
// preview. forWhom is the sentence naming the scope (the one hover shows);
// its backquotes are dropped in the header comment.
func Preview(b *engine.Block, sc engine.Scope, budget int, forWhom string) RenderDetails {
	d := RenderDetails{Text: b.Text, Generation: b.Generation, Tokens: b.CountTokens(), Budget: budget, Scope: sc}
	d.Groups, d.Omitted = blockGroups(b.Text)
	d.Header = []string{
		"<!-- MagicFrog preview for " + strings.ReplaceAll(forWhom, "`", "") + " (these comment lines are not part of the block) -->",
		"<!-- " + strings.Join(previewTally(d), " · ") + " -->",
	}
	return d
}

// blockGroups cuts a block's text into its groups at their closing lines and
// lists its <omitted/> lines.
func blockGroups(text string) ([]RenderGroup, []RenderOmitted) {
	groups, omitted := []RenderGroup{}, []RenderOmitted{}
	lines := strings.SplitAfter(text, "\n")
	start := 1 // line 0 is <memory …>
	for i, l := range lines {
		t := strings.TrimRight(l, "\n")
		if m := omittedAttrs().FindStringSubmatch(t); m != nil {
			n, _ := strconv.Atoi(m[2])
			omitted = append(omitted, RenderOmitted{Ref: m[1], Tokens: n, Reason: m[3], Line: i})
		}
		if !groupClose[t] || start >= len(lines) {
			continue
		}
		seg := strings.Join(lines[start:i+1], "")
		g := RenderGroup{Name: strings.Trim(strings.TrimRight(lines[start], "\n"), "<>"), Line: start, Tokens: engine.Tokens(seg)}
		g.Notes = strings.Count(seg, "\n<note ") + strings.Count(seg, "\n<skill ")
		g.Omitted = strings.Count(seg, "\n<omitted ") - strings.Count(seg, `reason="`+engine.ReasonUnregistered+`"`)
		groups = append(groups, g)
		start = i + 1
	}
	return groups, omitted
}

// previewTally is the second header line's parts: tokens against the budget,
// per group, and how many notes were left out and why.
func previewTally(d RenderDetails) []string {
	var parts []string
	if d.Budget > 0 {
		parts = append(parts, fmt.Sprintf("%d tokens of a %d budget", d.Tokens, d.Budget))
	} else {
		parts = append(parts, fmt.Sprintf("%d tokens, no budget", d.Tokens))
	}
	for _, g := range d.Groups {
		parts = append(parts, fmt.Sprintf("%s %d", strings.ReplaceAll(g.Name, `"`, ""), g.Tokens))
	}
	budgetCut, unregistered := 0, 0
	for _, o := range d.Omitted {
		if o.Reason == engine.ReasonUnregistered {
			unregistered++
		} else {
			budgetCut++
		}
	}
	if budgetCut > 0 {
		parts = append(parts, fmt.Sprintf("%d left out by the budget (✂)", budgetCut))
	}
	if unregistered > 0 {
		parts = append(parts, fmt.Sprintf("%d under unregistered folders, in no one's view", unregistered))
	}
	return parts
}
