package lsp

// What the client announced it can do, as the features ask it.

// supportsDocumentChanges reports whether the client takes WorkspaceEdit.documentChanges.
func (s *Server) supportsDocumentChanges() bool {
	caps := s.ClientCapabilities()
	return caps.Workspace != nil && caps.Workspace.WorkspaceEdit != nil &&
		caps.Workspace.WorkspaceEdit.DocumentChanges != nil && *caps.Workspace.WorkspaceEdit.DocumentChanges
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
