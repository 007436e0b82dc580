package lsp

import (
	"fmt"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
	"github.com/magicfrog/mf-lsp/engine/store"
	"github.com/magicfrog/mf-lsp/engine/textmerge"
)

// Conflicts you can judge: beside "Take disk version" and "Keep mine as next
// revision" the save-conflict question offers
//
//   - "Compare": the server sends magicfrog/compare with the disk version it
//     found, the editor shows it beside the buffer (VS Code's diff editor,
//     :diffsplit in Neovim), and the question is asked again;
//   - "Merge", when the disk and the buffer changed different lines since the
//     version the buffer was based on: the three-way merge (engine/textmerge)
//     comes as an edit of the buffer, at the next revision, to review and save.
const (
	ActionCompare = "Compare"
	ActionMerge   = "Merge"
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

// conflictActions are the answers the question offers for a conflict between
// base (the version the buffer was based on; nil when unknown), disk and buffer.
func conflictActions(base, disk, buffer []byte) []string {
	actions := []string{ActionTakeDisk, ActionKeepMine, ActionCompare}
	if base != nil {
		if _, ok := textmerge.Merge(string(base), string(disk), string(buffer)); ok {
			actions = append(actions, ActionMerge)
		}
	}
	return actions
}

// sendCompare tells the client to show the disk version the conflict of uri
// found beside the buffer.
func (s *Server) sendCompare(uri protocol.DocumentUri) bool {
	var disk []byte
	s.saves().with(uri, func(st *saveState) { disk = st.disk })
	if disk == nil {
		return false
	}
	rev, _ := store.RevisionOf(disk)
	name := string(uri)
	if n, ok := s.Note(uri); ok {
		name = n.Note.Ref() // task/T-7/notes/progress.md: the note as the block names it
	} else if p, err := URIToPath(uri); err == nil {
		name = p
	}
	s.Notify(CompareNotification, &CompareParams{URI: uri, Disk: string(disk), Revision: rev,
		Title: fmt.Sprintf("%s: disk (revision %d) ↔ your buffer", name, rev)})
	return true
}

// MergeEdit is the edit making the buffer of uri the three-way merge of the
// version it was based on, the disk version the conflict found, and the
// buffer, at the next revision. ok is false when they changed the same lines
// (or any of them is unknown).
func (s *Server) MergeEdit(uri protocol.DocumentUri) (protocol.WorkspaceEdit, bool) {
	d, open := s.Docs.Get(uri)
	path, err := URIToPath(uri)
	if !open || err != nil {
		return protocol.WorkspaceEdit{}, false
	}
	var base, theirs []byte
	s.saves().with(uri, func(st *saveState) { base, theirs = st.base, st.disk })
	if base == nil || theirs == nil {
		return protocol.WorkspaceEdit{}, false
	}
	merged, ok := textmerge.Merge(string(base), string(theirs), string(d.Text))
	if !ok {
		return protocol.WorkspaceEdit{}, false
	}
	disk, exists := s.rebaseOnDisk(uri, path)
	diskRev := 0
	if exists {
		diskRev, _ = store.RevisionOf(disk)
	}
	theirRev, _ := store.RevisionOf(theirs)
	next := 0
	s.saves().with(uri, func(st *saveState) {
		st.floor = max(st.floor, diskRev, theirRev)
		next = st.floor + 1
	})
	src := []byte(merged)
	if edits, ok := frontmatter.SetFields(src, frontmatter.Parse(src), []frontmatter.Set{{Key: "revision", Value: next}, {Key: "updated", Value: engine.FormatTime(s.now())}}); ok {
		src = frontmatter.Apply(src, edits)
	}
	end, err := d.Mapper().OffsetPosition(len(d.Text))
	if err != nil {
		return protocol.WorkspaceEdit{}, false
	}
	return protocol.WorkspaceEdit{Changes: map[protocol.DocumentUri][]protocol.TextEdit{
		uri: {{Range: protocol.Range{End: end}, NewText: string(src)}},
	}}, true
}

func (s *Server) resolveMerge(uri protocol.DocumentUri) {
	edit, ok := s.MergeEdit(uri)
	if !ok {
		s.ShowMessage(protocol.MessageTypeWarning, "mf-lsp: %s cannot be merged: the disk and the buffer changed the same lines; compare them, then take one", uri)
		return
	}
	s.applyEdit(uri, ActionMerge, edit)
}
