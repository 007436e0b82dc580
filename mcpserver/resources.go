package mcpserver

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/magicfrog/mf-lsp/engine/participant"
	"github.com/magicfrog/mf-lsp/engine/participant/watcher"
)

// Watch keeps the server in step with the disk: changed notes are re-read,
// the resource list follows notes that come and go, and subscribers of a
// changed note (and of memory://context, when the block changed) are told.
// It returns a function that stops watching.
func (s *Server) Watch() (stop func(), err error) {
	stop, err = watcher.Start(s.p, s.changed, s.logf)
	if err != nil {
		return func() {}, err
	}
	return stop, nil
}

// Changed is a batch of a watcher the caller started (watch.Open, which
// loads and watches the tree in one walk): what Watch's watcher does with
// its batches. The tree is already refreshed.
func (s *Server) Changed(paths []string, changed bool) { s.changed(paths, changed) }

// changed is the watcher's batch: the tree is already refreshed.
func (s *Server) changed(paths []string, _ bool) {
	s.syncResources()
	ctx := context.Background()
	for _, p := range paths {
		if uri, ok := s.p.URIAt(p); ok {
			_ = s.mcp.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
		}
	}
	if c, err := s.p.Context(0, ""); err == nil {
		s.mu.Lock()
		moved := c.Generation != s.generation
		s.generation = c.Generation
		s.mu.Unlock()
		if moved {
			_ = s.mcp.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: participant.ContextURI})
		}
	}
}

// syncResources lists every note in scope as a resource, adding new notes and
// removing gone ones.
func (s *Server) syncResources() {
	now := map[string]*mcp.Resource{}
	for _, e := range s.p.Notes() {
		uri := participant.URIOf(e)
		now[uri] = &mcp.Resource{URI: uri, Name: e.Ref(), MIMEType: "text/markdown",
			Description: "MagicFrog note " + e.Key + " in " + e.Dimension.String() + " (" + e.Layer.Name + " layer)"}
	}
	s.mu.Lock()
	var gone []string
	for uri := range s.resources {
		if now[uri] == nil {
			gone = append(gone, uri)
			delete(s.resources, uri)
		}
	}
	var added []*mcp.Resource
	for uri, r := range now {
		if !s.resources[uri] {
			s.resources[uri] = true
			added = append(added, r)
		}
	}
	// The block's generation is not rendered here: at start that was a
	// second render before the first answer. Until the first change it is
	// unknown, and the first change is told to memory://context's
	// subscribers.
	s.mu.Unlock()
	if len(gone) > 0 {
		s.mcp.RemoveResources(gone...)
	}
	for _, r := range added {
		s.mcp.AddResource(r, s.readNote)
	}
}

// readNote is resources/read of a note: the whole file, frontmatter and body.
func (s *Server) readNote(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	ref, ok := strings.CutPrefix(uri, participant.URIScheme+"://")
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if _, err := s.p.NoteAt(ref); err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	src, err := s.p.TextAt(ref)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: string(src)}}}, nil
}

// readContext is resources/read of memory://context: the <memory> block.
func (s *Server) readContext(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	c, err := s.p.Context(0, "")
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: participant.ContextURI, MIMEType: "text/plain", Text: c.Block}}}, nil
}

// subscribe accepts subscriptions to memory://context and to any note in
// scope, existing or not yet (an agent may wait for a note to appear).
func (s *Server) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	if uri == participant.ContextURI {
		return nil
	}
	ref, ok := strings.CutPrefix(uri, participant.URIScheme+"://")
	if !ok {
		return mcp.ResourceNotFoundError(uri)
	}
	_, err := s.p.NoteAt(ref)
	if err != nil && participant.IsRefusal(err) {
		return err
	}
	return nil
}
