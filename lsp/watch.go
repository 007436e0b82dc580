package lsp

import (
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/watch"
)

// The server watches memory itself (engine/watch): the data directory is usually
// outside the workspace, so the client's file watching
// (workspace/didChangeWatchedFiles, also handled) would not see an agent's writes
// there.

// startWatching watches everything m reads: the data directory (its config files
// and memory/) and the project's .magicfrog/.
func (s *Server) startWatching(m *engine.Memory) {
	w, err := watch.Start(m, func(_ []string, changed bool) {
		if changed {
			s.memoryChanged(m)
		}
	}, s.log.Printf)
	if err != nil {
		s.log.Printf("watch: %v (external changes will only be seen through the client)", err)
		return
	}
	s.ws.mu.Lock()
	s.ws.watchers = append(s.ws.watchers, w)
	s.ws.mu.Unlock()
}

// openWatched opens a tree and watches it from the load's own walk
// (watch.Open): every folder is watched before the load returns.
func (s *Server) openWatched(opts engine.Options) (*engine.Memory, error) {
	m, w, err := watch.Open(opts, func(m *engine.Memory, _ []string, changed bool) {
		if changed {
			s.memoryChanged(m)
		}
	}, s.log.Printf)
	if err == nil && w != nil {
		s.ws.mu.Lock()
		s.ws.watchers = append(s.ws.watchers, w)
		s.ws.mu.Unlock()
	}
	return m, err
}

// refresh re-reads changed paths and, when the tree changed, tells the client.
func (s *Server) refresh(m *engine.Memory, paths map[string]bool) {
	changed := false
	for p := range paths {
		if m.Refresh(p) {
			changed = true
		}
	}
	if changed {
		s.memoryChanged(m)
	}
}

// didChangeWatchedFiles takes the client's file events: the same refresh.
func (s *Server) didChangeWatchedFiles(_ *glsp.Context, p *protocol.DidChangeWatchedFilesParams) error {
	byMemory := map[*engine.Memory]map[string]bool{}
	for _, c := range p.Changes {
		path, err := URIToPath(c.URI)
		if err != nil {
			continue
		}
		m, ok := s.memoryFor(path)
		if !ok {
			continue
		}
		if byMemory[m] == nil {
			byMemory[m] = map[string]bool{}
		}
		byMemory[m][path] = true
	}
	for m, paths := range byMemory {
		s.refresh(m, paths)
	}
	return nil
}

// stopWatching closes the watchers (at shutdown).
func (s *Server) stopWatching() {
	s.ws.mu.Lock()
	ws := s.ws.watchers
	s.ws.watchers = nil
	s.ws.mu.Unlock()
	for _, w := range ws {
		w.Close()
	}
}
