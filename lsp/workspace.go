package lsp

import (
	"context"
	"errors"
	"strconv"
	"time"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/journal"
	"github.com/magicfrog/mf-lsp/session"
)

// The server's memory is its session's (package session): the tree the
// settings name, lone trees for files outside it, the open documents. Every
// handler reaches memory through Session.Snapshot, which never waits: a
// request that arrives while the tree loads is answered at once (see
// errLoading), and the documents opened meanwhile are published when the load
// finishes (Options.Loaded of the session, below).

// newSession makes the server's session, wired to tell the client about loads
// and changes.
func (s *Server) newSession() *session.Session {
	return session.New(session.Options{
		Logf:             s.log.Printf,
		MaxDocumentBytes: s.opts.MaxDocumentBytes,
		BeforeLoad:       s.opts.beforeLoad,
		Now:              s.opts.Now,
		Loaded:           s.treeLoaded,
		Changed:          s.memoryChanged,
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
	p.End("indexed " + itoa(m.Len()) + " notes in " + took.String())
	s.log.Printf("indexed %d notes in %s (data %s, project %q)", m.Len(), took, m.Paths.DataDir, m.Paths.ProjectDir)
}

// errLoading answers a request that needs memory before it is loaded:
// ContentModified, which clients drop quietly or ask again.
func errLoading(method string) error {
	return Errorf(CodeContentModified, "mf-lsp: memory is still loading; %s answered nothing, try again", method)
}

// Located is a memory note as a feature at the edge sees it: the session's
// snapshot of it, with its URI and the position mapper of its source.
type Located struct {
	URI    protocol.DocumentUri
	Path   string
	Memory *engine.Memory
	Note   *engine.Note // parsed from the buffer when open, else the loaded note
	Doc    *Document    // the open buffer; nil when not open
	Mapper *Mapper      // positions of Note.Src
	Snap   *session.Snapshot
}

// note is the snapshot of the memory note behind uri. The error is
// session.ErrLoading while its tree loads, session.ErrNotNote (or a URI
// error) for other files.
func (s *Server) note(uri protocol.DocumentUri) (*Located, error) {
	path, err := URIToPath(uri)
	if err != nil {
		return nil, err
	}
	snap, err := s.sess.Snapshot(path)
	if err != nil {
		return nil, err
	}
	return &Located{URI: uri, Path: path, Memory: snap.Memory, Note: snap.Note, Doc: snap.Doc,
		Mapper: NewMapper(snap.Note.Src), Snap: snap}, nil
}

// The accessors below are what lsp/cmd_*.go used before the session; they stand
// on Session.Snapshot and stay only until the commands are rewritten over the
// session (see the replacements named in each).

// Memory waits for the first load and returns the main tree; never call it on
// the read loop. Replace with: <-s.sess.Loaded(); s.sess.Snapshot("").
func (s *Server) Memory() (*engine.Memory, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.sess.Await(ctx, ""); err != nil {
		return nil, session.ErrLoading
	}
	snap, err := s.sess.Snapshot("")
	if err != nil {
		return nil, err
	}
	return snap.Memory, nil
}

// memoryFor waits for the tree that holds path. Replace with:
// s.sess.Await(ctx, path); s.sess.Snapshot(path) (.Memory).
func (s *Server) memoryFor(path string) (*engine.Memory, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_ = s.sess.Await(ctx, path)
	snap, err := s.sess.Snapshot(path)
	if err != nil {
		if errors.Is(err, session.ErrNotNote) {
			// A path with no note yet (promote's destination): its tree still counts.
			if t, err := s.sess.Snapshot(""); err == nil {
				if _, ok := t.Memory.Locate(path); ok {
					return t.Memory, true
				}
			}
		}
		return nil, false
	}
	return snap.Memory, true
}

// Note waits for the tree of uri and returns the memory note behind it; never
// call it on the read loop. Replace with s.sess.Await(ctx, path); s.note(uri).
func (s *Server) Note(uri protocol.DocumentUri) (*Located, bool) {
	if path, err := URIToPath(uri); err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		_ = s.sess.Await(ctx, path)
	}
	n, err := s.note(uri)
	return n, err == nil
}

// Scope is the session scope over m. Replace with Snapshot.Scope.
func (s *Server) Scope(m *engine.Memory) engine.Scope { return s.sess.Settings().Scope(m) }

// Participant is the session scope narrowed to the participant. Replace with
// Snapshot.Participant.
func (s *Server) Participant(m *engine.Memory) engine.Scope {
	st := s.sess.Settings()
	return session.Participant(st.Scope(m), st.Participant)
}

// Today is the journal's today. Replace with Snapshot.Today (or s.sess.Today()).
func (s *Server) Today() journal.Day { return s.sess.Today() }

func itoa(n int) string { return strconv.Itoa(n) }
