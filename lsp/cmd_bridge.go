package lsp

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/tliron/glsp"

	"github.com/magicfrog/mf-lsp/session"
)

// renderIntoCommand: magicfrog.renderInto {file, task, agents, machine, budget,
// today} writes the <memory> block into the managed section of file (a path or
// a file:// URI; default: the project's CLAUDE.md, else its AGENTS.md), as
// `mf-lsp render --into` does. → {"path","uri","outcome","generation","tokens"}.
func (s *Server) renderIntoCommand(_ *glsp.Context, arg json.RawMessage) (any, error) {
	const cmd = "magicfrog.renderInto"
	var a struct {
		renderArg
		File string `json:"file"`
	}
	if err := DecodeArg(cmd, arg, &a); err != nil {
		return nil, err
	}
	if err := a.check(cmd); err != nil {
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
		m := snap.Memory
		path, err := session.HostFile(m.Paths.ProjectDir, file)
		if err != nil {
			return nil, Errorf(CodeInvalidParams, "%s: argument \"file\" is required: %v", cmd, err)
		}
		b, err := m.Render(renderOptions(snap, a.renderArg))
		if err != nil {
			return nil, renderFailed(cmd, err)
		}
		w, err := session.WriteBlockInto(m, path, b)
		if err != nil {
			return nil, Errorf(CodeRequestFailed, "%s: %v", cmd, err)
		}
		return w, nil
	}), nil
}
