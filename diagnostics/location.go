package diagnostics

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/magicfrog/mf-lsp/engine"
)

// location checks where the note sits: legacy trees and agent folders that
// look like IDs but are not on the roster.
func (c *checker) location() {
	e, m := c.e, c.in.Memory
	if e.Legacy {
		legacy := "machine/"
		if e.Dimension == engine.Task {
			legacy = "project/"
		}
		canonical := ""
		if m != nil {
			if root := m.Paths.CanonicalRoot(e.Dimension); root != "" {
				canonical = filepath.Join(root, filepath.FromSlash(pathJoin(e.Owner, e.Key)))
			}
		}
		msg := fmt.Sprintf("legacy %s tree, read as %s; new writes land in the canonical %s tree", legacy, e.Dimension, e.Dimension)
		if canonical == "" {
			msg += " (there is no project open to hold task notes)"
		}
		c.add(Finding{Span: c.head(), Severity: Information, Code: CodeLegacyLocation, Message: msg,
			Data: map[string]any{"canonical": canonical}})
	}
	if e.Unregistered && e.Dimension == engine.Agent {
		c.add(Finding{Span: c.head(), Severity: Warning, Code: CodeUnregisteredAgentFolder,
			Message: fmt.Sprintf("agent/%s/ is neither an agent ID on the roster nor a shared folder, so this note is in no agent's <memory> block (it is listed as omitted); register %q as an agent ID if it belongs to one agent, or keep it shared (magicfrog.json \"shared\")", e.Owner, e.Owner),
			Data:    map[string]any{"folder": e.Owner}})
	}
	if e.Unregistered && e.Dimension == engine.Task {
		c.add(Finding{Span: c.head(), Severity: Warning, Code: CodeUnregisteredTaskFolder,
			Message: fmt.Sprintf("%s/ is shaped like a task ID but is not one of this project's tasks, so this note is in no task's <memory> block (it is listed as omitted); register %q in .magicfrog/config.json \"tasks\" if it is a task, or keep it shared (\"shared\")", e.Owner, e.Owner),
			Data:    map[string]any{"folder": e.Owner}})
	}
}

func pathJoin(scope, key string) string {
	if scope == "" {
		return key
	}
	return scope + "/" + key
}

// scope checks the note against the session scope: notes of other agents or
// tasks, and notes shadowed by a more specific version of their key.
func (c *checker) scope() {
	e, s, m := c.e, c.in.Scope, c.in.Memory
	switch {
	case e.Unregistered && !(e.Dimension == engine.Agent && slices.Contains(s.Agents, e.Owner)) && !(e.Dimension == engine.Task && e.Owner == s.Task):
		return // location() says why it is in no one's view
	case e.Dimension == engine.Agent && e.Owner != "" && !slices.Contains(s.Agents, e.Owner):
		c.add(Finding{Span: c.head(), Severity: Information, Code: CodeOutOfScope,
			Message: fmt.Sprintf("agent %s's note: not in this session's scope (agents: %s)", e.Owner, listOrNone(s.Agents)),
			Data:    map[string]any{"dimension": e.Dimension.String(), "scope": e.Owner}})
		return
	case e.Dimension == engine.Task && e.Owner != "" && e.Owner != s.Task:
		c.add(Finding{Span: c.head(), Severity: Information, Code: CodeOutOfScope,
			Message: fmt.Sprintf("task %s's note: not in this session's scope (task: %s)", e.Owner, orNone(s.Task)),
			Data:    map[string]any{"dimension": e.Dimension.String(), "scope": e.Owner}})
		return
	}
	if m == nil || e.Dimension == engine.Device {
		return
	}
	st := m.StatusOf(e, s)
	if !st.InScope || st.Effective || st.Winner == nil {
		return
	}
	w := st.Winner
	where := w.Dimension.String()
	if w.Owner != "" {
		where += " " + w.Owner
	}
	c.add(Finding{Span: c.head(), Severity: Hint, Code: CodeShadowed,
		Message: fmt.Sprintf("shadowed by the %s version of %s (revision %d): the <memory> block shows that one", where, e.Key, w.Revision()),
		Related: []Related{{Path: w.Path, Message: fmt.Sprintf("the %s version (revision %d) wins", where, w.Revision())}},
		Data: map[string]any{"winner": w.Path, "dimension": w.Dimension.String(), "scope": w.Owner,
			"revision": w.Revision()}})
}

func listOrNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
