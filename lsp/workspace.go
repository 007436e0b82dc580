package lsp

import (
	"context"
	"strconv"
	"time"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/session"
)

// The server's memory is its session's (package session): the tree the
// settings name, lone trees for files outside it, the open documents. Every
// handler reaches memory through Session.Snapshot, which never waits: a
// request that arrives while the tree loads is answered beside the loop
// (loading.go), and the documents opened meanwhile are published when the load
// finishes (Options.Loaded of the session, below). Commands, which run beside
// the loop, wait for the tree they need with withSnapshot (commands.go).

// newSession makes the server's session, wired to tell the client about loads
// and changes.
func (s *Server) newSession() *session.Session {
	return session.New(session.Options{
		Logf:             s.log.Printf,
		MaxDocumentBytes: s.opts.MaxDocumentBytes,
		BeforeLoad:       s.opts.beforeLoad,
		Now:              s.opts.Now,
		Loaded:           s.treeLoaded,
		Changed:          func(*engine.Memory) { s.memoryChanged() },
		TokenCache:       s.opts.TokenCache,
	})
}

// treeLoaded publishes the documents opened while a tree loaded and, when the
// client can, asks it for the lenses again (they were answered empty).
func (s *Server) treeLoaded(*engine.Memory, error) {
	s.republish()
	if ws := s.ClientCapabilities().Workspace; ws != nil && ws.CodeLens != nil && ws.CodeLens.RefreshSupport != nil && *ws.CodeLens.RefreshSupport {
		s.Go("codeLens refresh", func(ctx context.Context) {
			if err := s.Call(ctx, string(protocol.ServerWorkspaceCodeLensRefresh), nil, nil); err != nil {
				s.log.Printf("workspace/codeLens/refresh: %v", err)
			}
		})
	}
}

// loadMemory opens the session's memory tree. It runs once, beside the read
// loop, after initialized, reporting $/progress.
func (s *Server) loadMemory() {
	p := s.BeginProgress(nil, "mf-lsp: indexing memory", false)
	start := time.Now()
	m, err := s.sess.Load()
	if err != nil {
		p.End("failed")
		s.ShowMessage(protocol.MessageTypeError, "mf-lsp: cannot open memory: %v", err)
		return
	}
	took := time.Since(start).Round(time.Millisecond)
	p.End("indexed " + strconv.Itoa(m.Len()) + " notes in " + took.String())
	s.log.Printf("indexed %d notes in %s (data %s, project %q)", m.Len(), took, m.Paths.DataDir, m.Paths.ProjectDir)
}

// errLoading answers a request that needs memory before it is loaded:
// ContentModified, which clients drop quietly or ask again.
func errLoading(method string) error {
	return Errorf(CodeContentModified, "mf-lsp: memory is still loading; %s answered nothing, try again", method)
}

// Located is a memory note as a feature at the edge sees it: the session's
// snapshot of it, with the URI the client named it by and the position mapper
// of its source (Snapshot.Src).
type Located struct {
	*session.Snapshot
	URI    protocol.DocumentUri
	Mapper *Mapper
}

// note is the snapshot of the memory note behind uri; it never waits. The
// error is session.ErrLoading while its tree loads, session.ErrNotNote (or a
// URI error) for other files.
func (s *Server) note(uri protocol.DocumentUri) (*Located, error) {
	path, err := session.URIToPath(uri)
	if err != nil {
		return nil, err
	}
	snap, err := s.sess.Snapshot(path)
	if err != nil {
		return nil, err
	}
	return &Located{Snapshot: snap, URI: uri, Mapper: NewMapper(snap.Src())}, nil
}
