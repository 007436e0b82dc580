package lsp

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/magicfrog/mf-lsp/engine"
)

// renderDetails is magicfrog.render's answer with {details: true}: the block
// and what a preview shows beside it — for whom it answers, tokens per group
// and in total against the budget, and where the notes the budget leaves out
// are. Lines count from 0 in Text.
type renderDetails struct {
	Text       string          `json:"text"`
	Generation string          `json:"generation"`
	Tokens     int             `json:"tokens"`
	Budget     int             `json:"budget"`
	Scope      engine.Scope    `json:"scope"`
	Header     []string        `json:"header"`
	Groups     []renderGroup   `json:"groups"`
	Omitted    []renderOmitted `json:"omitted"`
}

type renderGroup struct {
	Name    string `json:"name"` // the element's opening tag without < >: task id="T-7"
	Line    int    `json:"line"`
	Tokens  int    `json:"tokens"`
	Notes   int    `json:"notes"`   // notes (or skills) in the block
	Omitted int    `json:"omitted"` // notes the budget leaves out of this group
}

type renderOmitted struct {
	Ref    string `json:"ref"`
	Tokens int    `json:"tokens"`
	Reason string `json:"reason"`
	Line   int    `json:"line"`
}

// omittedAttrs reads an <omitted/> line: the budget's carry tokens, an
// unregistered folder's do not.
var omittedAttrs = regexp.MustCompile(`^<omitted path="([^"]*)"(?: tokens="(\d+)")? reason="([^"]*)"/>$`)

// groupClose are the closing lines of the block's groups: a body never holds
// one (engine.EscapeBody), so they cut the block into its groups reliably.
var groupClose = map[string]bool{"</task>": true, "</agent>": true, "</user>": true, "</account>": true, "</device>": true, "</skills>": true}

// detailsOf describes a rendered block for a preview.
func detailsOf(b *engine.Block, sc engine.Scope, budget int) renderDetails {
	d := renderDetails{Text: b.Text, Generation: b.Generation, Tokens: b.CountTokens(), Budget: budget, Scope: sc, Groups: []renderGroup{}, Omitted: []renderOmitted{}}
	if d.Scope.Agents == nil {
		d.Scope.Agents = []string{}
	}
	lines := strings.SplitAfter(b.Text, "\n")
	start := 1 // line 0 is <memory …>
	for i, l := range lines {
		t := strings.TrimRight(l, "\n")
		if m := omittedAttrs.FindStringSubmatch(t); m != nil {
			n, _ := strconv.Atoi(m[2])
			d.Omitted = append(d.Omitted, renderOmitted{Ref: m[1], Tokens: n, Reason: m[3], Line: i})
		}
		if !groupClose[t] || start >= len(lines) {
			continue
		}
		seg := strings.Join(lines[start:i+1], "")
		g := renderGroup{Name: strings.Trim(strings.TrimRight(lines[start], "\n"), "<>"), Line: start, Tokens: engine.Tokens(seg)}
		g.Notes = strings.Count(seg, "\n<note ") + strings.Count(seg, "\n<skill ")
		g.Omitted = strings.Count(seg, "\n<omitted ") - strings.Count(seg, `reason="`+engine.ReasonUnregistered+`"`)
		d.Groups = append(d.Groups, g)
		start = i + 1
	}
	var parts []string
	if budget > 0 {
		parts = append(parts, fmt.Sprintf("%d tokens of a %d budget", d.Tokens, budget))
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
	machine := sc.Machine
	d.Header = []string{
		"<!-- MagicFrog preview for " + strings.ReplaceAll(scopeSentence(sc, machine), "`", "") + " (these comment lines are not part of the block) -->",
		"<!-- " + strings.Join(parts, " · ") + " -->",
	}
	return d
}
