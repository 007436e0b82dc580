package base

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/errcode"
)

// HostExtensions are the names a file the <memory> block is written into may
// end with (any case): an agent host's Markdown file (CLAUDE.md, AGENTS.md,
// GEMINI.md, .github/copilot-instructions.md) or a Cursor rule (.mdc).
var HostExtensions = []string{".md", ".mdc", ".markdown"}

// HostFileError is a file the block may not be written into (render --into,
// magicfrog.renderInto): mf-lsp's own configuration or notes, a file that is
// not Markdown, or, for the language server, a file outside the workspace.
// Nothing was written.
type HostFileError struct {
	Path   string // the file as named
	Reason string // why, as a phrase that follows the path
}

func (e *HostFileError) Error() string { return "refused: " + e.Path + " " + e.Reason }

// ErrorCode is errcode.Forbidden: the target is outside what may be written.
func (*HostFileError) ErrorCode() errcode.Code { return errcode.Forbidden }

// ErrorData names the refused file.
func (e *HostFileError) ErrorData() errcode.Data {
	return errcode.Data{Code: errcode.Forbidden, Path: e.Path}
}

// CheckOutsideOwn refuses a path (a host file, a host's skill folder) inside
// mf-lsp's own places: the data directory and the project's .magicfrog/,
// links resolved. advice follows the reason.
func CheckOutsideOwn(p engine.Paths, file, advice string) error {
	if p.DataDir != "" && engine.Inside(p.DataDir, file) {
		return &HostFileError{Path: file, Reason: fmt.Sprintf("is inside the data directory %s: mf-lsp keeps its notes and configuration there; %s", p.DataDir, advice)}
	}
	if p.ProjectDir != "" {
		if mf := filepath.Join(p.ProjectDir, ".magicfrog"); engine.Inside(mf, file) {
			return &HostFileError{Path: file, Reason: fmt.Sprintf("is inside the project's .magicfrog/ (%s): it holds the binding and the task notes; %s", mf, advice)}
		}
	}
	return nil
}

// CheckHostFile is the one rule of where a rendered block may be written, for
// render --into and magicfrog.renderInto alike: a Markdown file
// (HostExtensions) outside the data directory (every dimension root, the
// roster, layers.json, machine-id are in it) and outside the project's
// .magicfrog/ (its binding and task root), with links resolved. A block
// written into a note would be read back as a note and nest into every later
// block; written into a configuration file it makes the file unreadable.
//
// With workspace not "" the file must also lie inside that folder (the
// language server's project: it writes nowhere else). A refusal is a
// *HostFileError.
func CheckHostFile(p engine.Paths, file, workspace string) error {
	refuse := func(format string, args ...any) error {
		return &HostFileError{Path: file, Reason: fmt.Sprintf(format, args...)}
	}
	if err := CheckOutsideOwn(p, file, "write the block into an agent host's file outside it, such as the project's CLAUDE.md or AGENTS.md"); err != nil {
		return err
	}
	if workspace != "" && !engine.Inside(workspace, file) {
		return refuse("is outside the workspace %s: the language server writes the block only into a file of its workspace", workspace)
	}
	ext := strings.ToLower(filepath.Ext(file))
	for _, e := range HostExtensions {
		if ext == e {
			return nil
		}
	}
	return refuse("is not a Markdown file (%s): the block goes only into an agent host's Markdown file, such as CLAUDE.md or AGENTS.md", strings.Join(HostExtensions, ", "))
}
