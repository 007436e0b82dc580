package lsp

import (
	"strings"

	"github.com/magicfrog/mf-lsp/engine"
)

// scopeSentence says for whom a view answers: "task `T-7` · agent `larry` ·
// machine `3f9c…`", or that no task and no agent is bound. Hover, the render
// preview and the effective view all say it, so nobody mistakes the view of
// nobody in particular for theirs.
func scopeSentence(sc engine.Scope, machine string) string {
	var parts []string
	if sc.Task != "" {
		parts = append(parts, "task `"+sc.Task+"`")
	} else {
		parts = append(parts, "no task")
	}
	switch len(sc.Agents) {
	case 0:
		parts = append(parts, "no agent")
	case 1:
		parts = append(parts, "agent `"+sc.Agents[0]+"`")
	default:
		parts = append(parts, "agents `"+strings.Join(sc.Agents, "`, `")+"`")
	}
	if machine != "" {
		parts = append(parts, "machine `"+machine+"`")
	}
	s := strings.Join(parts, " · ")
	if sc.Task == "" && len(sc.Agents) == 0 {
		s += " (unbound: notes under a task or agent ID are not in this view)"
	}
	return s
}
