package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/tliron/glsp"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/managed"
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
		p, err := URIToPath(file)
		if err != nil {
			return nil, Errorf(CodeInvalidParams, "%s: argument \"file\": %v", cmd, err)
		}
		file = p
	}
	return s.withMemory(func(m *engine.Memory) (any, error) {
		path := file
		if path == "" {
			path = defaultHostFile(m.Paths.ProjectDir)
			if path == "" {
				return nil, Errorf(CodeInvalidParams, "%s: argument \"file\" is required: the project has no CLAUDE.md or AGENTS.md", cmd)
			}
		}
		if !filepath.IsAbs(path) && m.Paths.ProjectDir != "" {
			path = filepath.Join(m.Paths.ProjectDir, path)
		}
		b, err := s.render(m, a.renderArg)
		if err != nil {
			return nil, renderFailed(cmd, err)
		}
		outcome, err := managed.WriteInto(m.Paths.MemoryDir(), path, b.Text)
		if err != nil {
			return nil, Errorf(CodeRequestFailed, "%s: %v", cmd, err)
		}
		return map[string]any{"path": path, "uri": string(PathToURI(path)), "outcome": outcome, "generation": b.Generation, "tokens": b.CountTokens()}, nil
	}), nil
}

// defaultHostFile is the agent-host file of a project: CLAUDE.md, else AGENTS.md,
// when it exists; "" otherwise.
func defaultHostFile(project string) string {
	if project == "" {
		return ""
	}
	for _, name := range []string{"CLAUDE.md", "AGENTS.md"} {
		p := filepath.Join(project, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}
