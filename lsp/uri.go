package lsp

import (
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/session"
)

// URIToPath converts a file:// URI from the client to a local path. Other schemes
// (untitled:, git:) are an error: those documents are not memory on disk.
func URIToPath(uri protocol.DocumentUri) (string, error) { return session.URIToPath(uri) }

// PathToURI converts an absolute local path to a file:// URI, percent-encoded as
// clients expect.
func PathToURI(path string) protocol.DocumentUri { return session.PathToURI(path) }
