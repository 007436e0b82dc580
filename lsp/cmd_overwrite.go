package lsp

import (
	"context"
	"slices"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/session"
)

// resolveOverwriteCommand: magicfrog.resolveOverwrite {uri, choice:
// "restore"|"merge"|"keep"} answers an overwritten-revision finding
// (session.ResolveOverwrite): the answer is written through the engine as
// the note's next version, and a buffer that held the overwriting version
// is brought to it with workspace/applyEdit. {revision}: the note's revision
// afterwards.
func (s *Server) resolveOverwriteCommand(_ *glsp.Context, a session.ResolveOverwriteArgs) (any, error) {
	cmd := session.ResolveOverwriteCmd.Name
	path, err := argURI(cmd, a.URI)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(session.OverwriteChoices, a.Choice) {
		return nil, Errorf(CodeInvalidParams, "%s: choice must be \"restore\", \"merge\" or \"keep\", got %q", cmd, a.Choice)
	}
	return s.withSnapshot(cmd, path, func(context.Context, *session.Snapshot) (any, error) {
		rev, uri, r, ok, err := s.sess.ResolveOverwrite(path, a.Choice)
		if err != nil {
			return nil, Errorf(CodeRequestFailed, "%s: %v", cmd, err)
		}
		s.memoryChanged()
		if ok {
			if edit, ok := resolutionEdit(protocol.DocumentUri(uri), r); ok {
				go s.applyEdit(protocol.DocumentUri(uri), "mf-lsp: "+a.Choice, edit)
			}
		}
		return session.OverwriteResolved{Revision: rev}, nil
	}), nil
}
