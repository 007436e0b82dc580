package lsp

import "encoding/json"

// What the client announced it can do, as the features ask it.

// supportsDocumentChanges reports whether the client takes WorkspaceEdit.documentChanges.
func (s *Server) supportsDocumentChanges() bool {
	caps := s.ClientCapabilities()
	return caps.Workspace != nil && caps.Workspace.WorkspaceEdit != nil &&
		caps.Workspace.WorkspaceEdit.DocumentChanges != nil && *caps.Workspace.WorkspaceEdit.DocumentChanges
}

// supportsShowDocument reports whether the client handles window/showDocument.
func (s *Server) supportsShowDocument() bool {
	caps := s.ClientCapabilities()
	return caps.Window != nil && caps.Window.ShowDocument != nil && caps.Window.ShowDocument.Support
}

// supportsResourceOp reports whether the client applies documentChanges with the
// resource operation op ("create", "rename", "delete").
func (s *Server) supportsResourceOp(op string) bool {
	caps := s.ClientCapabilities()
	if caps.Workspace == nil || caps.Workspace.WorkspaceEdit == nil {
		return false
	}
	if !s.supportsDocumentChanges() {
		return false
	}
	for _, k := range caps.Workspace.WorkspaceEdit.ResourceOperations {
		if string(k) == op {
			return true
		}
	}
	return false
}

// The server's own notifications (magicfrog/memoryChanged, magicfrog/compare)
// go only to a client that opts in: its capabilities list them in
// `experimental.magicfrog.notifications`. Other clients are told only what
// standard LSP carries (lsp-mode warns "Unknown notification" on every one it
// has no handler for; docs/protocol.md).
const (
	MemoryChangedNotification = "magicfrog/memoryChanged"
)

// optedInNotifications reads the methods a client's experimental capabilities
// opt in to.
func optedInNotifications(caps any) map[string]bool {
	var want struct {
		Magicfrog struct {
			Notifications []string `json:"notifications"`
		} `json:"magicfrog"`
	}
	b, err := json.Marshal(caps)
	if err != nil || json.Unmarshal(b, &want) != nil {
		return nil
	}
	out := map[string]bool{}
	for _, m := range want.Magicfrog.Notifications {
		out[m] = true
	}
	return out
}

// wantsNotification reports whether the client opted in to the server's own
// notification method.
func (s *Server) wantsNotification(method string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.optIn[method]
}
