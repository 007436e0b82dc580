package lsp

import (
	"context"
	"errors"
	"strings"

	"github.com/magicfrog/mf-lsp/session"
	"github.com/magicfrog/mf-lsp/session/base"
	"github.com/tliron/glsp"
)

// renderIntoCommand: magicfrog.renderInto {file, task, agents, machine, budget,
// today} writes the <memory> block into the managed section of file (a path or
// a file:// URI; default: the project's CLAUDE.md, else its AGENTS.md), as
// `mf-lsp render --into` does. → {"path","uri","outcome","generation","tokens"}.
// Only a Markdown file of the workspace outside its .magicfrog/ and the data
// directory is written (base.CheckHostFile); any other file is refused
// with InvalidParams and error data {"code": "forbidden", "path": …}.
func (s *Server) renderIntoCommand(_ *glsp.Context, a session.RenderIntoArgs) (any, error) {
	cmd := session.RenderIntoCmd.Name
	if err := checkRender(cmd, a.RenderRequest); err != nil {
		return nil, err
	}
	file := a.File
	if strings.HasPrefix(file, "file:") {
		p, err := session.URIToPath(file)
		if err != nil {
			return nil, Errorf(CodeInvalidParams, "%s: argument \"file\": %v", cmd, err)
		}
		file = p
	}
	return s.withSnapshot(cmd, "", func(_ context.Context, snap *session.Snapshot) (any, error) {
		w, err := session.RenderInto(snap, a.RenderRequest, file)
		var write *session.WriteError
		var refused *base.HostFileError
		switch {
		case errors.As(err, &refused):
			// Not a file this command may write (base.CheckHostFile):
			// the argument is wrong, and the data says so by its code.
			return nil, Errorf(CodeInvalidParams, "%s: argument \"file\": %v", cmd, err)
		case errors.Is(err, session.ErrNoHostFile):
			return nil, Errorf(CodeInvalidParams, "%s: argument \"file\" is required: %v", cmd, err)
		case errors.As(err, &write):
			return nil, Errorf(CodeRequestFailed, "%s: %v", cmd, err)
		case err != nil:
			return nil, renderFailed(cmd, err)
		}
		return w, nil
	}), nil
}

// skillsIntoCommand: magicfrog.skillsInto {dir, task, agents, machine} writes
// the skills in scope as dir/<name>/SKILL.md (dir relative to the project,
// default .claude/skills), as `mf-lsp skills --into` does. → {"dir","files":
// [{"name","file","ref","outcome","why"}]}. A folder outside the workspace,
// inside its .magicfrog/ or the data directory is refused with InvalidParams
// and error data {"code": "forbidden", "path": …}.
func (s *Server) skillsIntoCommand(_ *glsp.Context, a session.SkillsIntoArgs) (any, error) {
	cmd := session.SkillsIntoCmd.Name
	if err := checkRender(cmd, a.RenderRequest); err != nil {
		return nil, err
	}
	return s.withSnapshot(cmd, "", func(_ context.Context, snap *session.Snapshot) (any, error) {
		w, err := session.SkillsIntoWorkspace(snap, a.RenderRequest, a.Dir)
		var write *session.WriteError
		var refused *base.HostFileError
		switch {
		case errors.As(err, &refused):
			return nil, Errorf(CodeInvalidParams, "%s: argument \"dir\": %v", cmd, err)
		case errors.As(err, &write):
			return nil, Errorf(CodeRequestFailed, "%s: %v", cmd, err)
		case err != nil:
			return nil, renderFailed(cmd, err)
		}
		return w, nil
	}), nil
}
