package lsp

import (
	"fmt"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/session"
)

// Conflicts you can judge: beside "Take disk version" and "Keep mine as next
// revision" the save-conflict question offers
//
//   - "Compare": the server sends magicfrog/compare with the disk version it
//     found, the editor shows it beside the buffer (VS Code's diff editor,
//     :diffsplit in Neovim), and the question is asked again;
//   - "Merge", when the disk and the buffer changed different lines since the
//     version the buffer was based on: the three-way merge (session.Merge)
//     comes as an edit of the buffer, at the next revision, to review and save.
const (
	ActionCompare = session.ActionCompare
	ActionMerge   = session.ActionMerge
)

// CompareNotification is the server → client notification of "Compare".
const CompareNotification = "magicfrog/compare"

// CompareParams is magicfrog/compare: show disk beside the buffer of uri.
type CompareParams struct {
	URI      protocol.DocumentUri `json:"uri"`
	Title    string               `json:"title"`
	Disk     string               `json:"disk"`     // the disk version the conflict found
	Revision int                  `json:"revision"` // its revision
}

// sendCompare tells the client to show the disk version the conflict of uri
// found beside the buffer.
func (s *Server) sendCompare(uri protocol.DocumentUri) bool {
	if !s.wantsNotification(CompareNotification) {
		return false
	}
	disk, rev := s.sess.ConflictDisk(uri)
	if disk == nil {
		return false
	}
	name := string(uri)
	if n, err := s.note(uri); err == nil {
		name = n.Note.Ref() // task/T-7/notes/progress.md: the note as the block names it
	} else if p, err := session.URIToPath(uri); err == nil {
		name = p
	}
	s.Notify(CompareNotification, &CompareParams{URI: uri, Disk: string(disk), Revision: rev,
		Title: fmt.Sprintf("%s: disk (revision %d) ↔ your buffer", name, rev)})
	return true
}

// MergeEdit is the edit making the buffer of uri the three-way merge of the
// version it was based on, the disk version the conflict found, and the
// buffer, at the next revision (session.Merge).
func (s *Server) MergeEdit(uri protocol.DocumentUri) (protocol.WorkspaceEdit, bool) {
	r, ok := s.sess.Merge(uri)
	if !ok {
		return protocol.WorkspaceEdit{}, false
	}
	return resolutionEdit(uri, r)
}

func (s *Server) resolveMerge(uri protocol.DocumentUri) {
	edit, ok := s.MergeEdit(uri)
	if !ok {
		s.ShowMessage(protocol.MessageTypeWarning, "mf-lsp: %s cannot be merged: the disk and the buffer changed the same lines; compare them, then take one", uri)
		return
	}
	s.applyEdit(uri, ActionMerge, edit)
}
