package lsp

import (
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/session"
)

// inlayHint answers textDocument/inlayHint (LSP 3.17; glsp has no type for
// it, so the handler is raw and the capability is added to the initialize
// result by hand): session.NoteInlayHints, at the end of the first line.
func (s *Server) inlayHint(p *inlayHintParams) (any, error) {
	none := func() (any, error) { return []inlayHint{}, nil }
	return s.whenLoaded(pathOf(p.TextDocument.URI), loadGrace, func() (any, error) {
		n, err := s.note(p.TextDocument.URI)
		if err != nil {
			return none()
		}
		out := []inlayHint{}
		for _, h := range session.NoteInlayHints(n.Snapshot) {
			pos, err := n.Mapper.OffsetPosition(h.Offset)
			if err != nil {
				continue
			}
			out = append(out, inlayHint{Position: pos, Label: h.Label, PaddingLeft: true})
		}
		return out, nil
	}, none)
}

// inlayHintParams and inlayHint are LSP 3.17's, as far as the server uses them.
type inlayHintParams struct {
	TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
	Range        protocol.Range                  `json:"range"`
}

type inlayHint struct {
	Position    protocol.Position `json:"position"`
	Label       string            `json:"label"`
	PaddingLeft bool              `json:"paddingLeft,omitempty"`
}

// capabilities317 are the server capabilities with what LSP 3.17 adds and
// glsp's types lack.
type capabilities317 struct {
	protocol.ServerCapabilities
	InlayHintProvider bool `json:"inlayHintProvider,omitempty"`
}

// initializeResult is protocol.InitializeResult with capabilities317.
type initializeResult struct {
	Capabilities capabilities317                      `json:"capabilities"`
	ServerInfo   *protocol.InitializeResultServerInfo `json:"serverInfo,omitempty"`
}
