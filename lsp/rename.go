package lsp

import (
	"sync"
	"time"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/session"
)

// shadowingAnnotation names the change annotation of a rename that changes
// what shadows what: the client asks the user to confirm it.
const shadowingAnnotation = "mf-lsp.shadowing"

// prepareRename answers textDocument/prepareRename with session.PrepareRename:
// the link's destination or the first line, with the note's key; an error
// saying why where no rename may start.
func (s *Server) prepareRename(p *protocol.PrepareRenameParams) (any, error) {
	return s.whenLoaded(pathOf(p.TextDocument.URI), loadGrace, func() (any, error) {
		n, off, err := s.noteAt(p.TextDocumentPositionParams)
		if err != nil {
			return nil, err
		}
		span, key, err := session.PrepareRename(n.Snapshot, off)
		if err != nil {
			return nil, Errorf(CodeRequestFailed, "%s", err.Error())
		}
		r, err := n.Mapper.OffsetRange(span.Start, span.End)
		if err != nil {
			return nil, err
		}
		return protocol.RangeWithPlaceholder{Range: r, Placeholder: key}, nil
	}, func() (any, error) { return nil, errLoading("rename") })
}

// rename answers textDocument/rename with session.RenameAt as a WorkspaceEdit:
// the edits of the links, then the file's rename.
func (s *Server) rename(p *protocol.RenameParams) (any, error) {
	return s.whenLoaded(pathOf(p.TextDocument.URI), loadGrace, func() (any, error) {
		n, off, err := s.noteAt(p.TextDocumentPositionParams)
		if err != nil {
			return nil, err
		}
		plan, err := session.RenameAt(n.Snapshot, off, p.NewName)
		if err != nil {
			return nil, Errorf(CodeRequestFailed, "%s", err.Error())
		}
		s.renames.issued(plan.From, plan.To)
		return s.renameEdit(plan, true), nil
	}, func() (any, error) { return nil, errLoading("rename") })
}

// willRenameFiles answers workspace/willRenameFiles: for each memory note the
// user moves, the link edits of session.RenameNote (the client moves the
// file). A move the session may not follow (out of scope, another place) gets
// no edits: the move is the user's. Nor does the RenameFile of a rename this
// server answered (VS Code asks for it too): that rename's edit already holds
// the link edits.
func (s *Server) willRenameFiles(p *protocol.RenameFilesParams) (any, error) {
	return s.whenLoaded("", loadGrace, func() (any, error) {
		out := protocol.WorkspaceEdit{DocumentChanges: []any{}}
		for _, f := range p.Files {
			n, err := s.note(f.OldURI)
			if err != nil {
				continue
			}
			to, err := session.URIToPath(f.NewURI)
			if err != nil || s.renames.take(n.Path, to) {
				continue
			}
			plan, err := session.RenameNote(n.Snapshot, n.Note, to)
			if err != nil {
				continue
			}
			e := s.renameEdit(plan, false)
			out.DocumentChanges = append(out.DocumentChanges, e.DocumentChanges...)
			for id, a := range e.ChangeAnnotations {
				if out.ChangeAnnotations == nil {
					out.ChangeAnnotations = map[string]protocol.ChangeAnnotation{}
				}
				out.ChangeAnnotations[id] = a
			}
		}
		return out, nil
	}, func() (any, error) { return nil, nil })
}

// didRenameFiles needs nothing: the watcher sees the move.
func (s *Server) didRenameFiles(*glsp.Context, *protocol.RenameFilesParams) error { return nil }

// noteAt is the note of a position's document and the byte offset there.
func (s *Server) noteAt(p protocol.TextDocumentPositionParams) (*Located, int, error) {
	n, err := s.note(p.TextDocument.URI)
	if err != nil {
		return nil, 0, Errorf(CodeRequestFailed, "not a memory note: %v", err)
	}
	off, err := n.Mapper.PositionOffset(p.Position)
	if err != nil {
		return nil, 0, Errorf(CodeInvalidParams, "%v", err)
	}
	return n, off, nil
}

// renameEdit is a rename plan as LSP document changes: each file's edits
// (with the version of its open buffer), then, withRename, the rename; a plan
// that changes what shadows what annotates its changes as needing
// confirmation.
func (s *Server) renameEdit(plan session.RenamePlan, withRename bool) protocol.WorkspaceEdit {
	out := protocol.WorkspaceEdit{DocumentChanges: []any{}}
	var annotation *string
	if plan.Shadowing != "" {
		id := shadowingAnnotation
		annotation = &id
		out.ChangeAnnotations = map[string]protocol.ChangeAnnotation{id: {
			Label: "Changes what shadows what", NeedsConfirmation: ptr(true), Description: ptr(plan.Shadowing),
		}}
	}
	for _, f := range plan.Files {
		uri := session.PathToURI(f.Path)
		m := NewMapper(f.Src)
		id := protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri}}
		if d, ok := s.Docs.Get(uri); ok {
			v := protocol.Integer(d.Version)
			id.Version = &v
			m = NewMapper(d.Text)
		}
		te, err := m.TextEdits(f.Edits)
		if err != nil {
			continue
		}
		edits := make([]any, 0, len(te))
		for _, e := range te {
			if annotation != nil {
				edits = append(edits, protocol.AnnotatedTextEdit{TextEdit: e, AnnotationID: *annotation})
			} else {
				edits = append(edits, e)
			}
		}
		out.DocumentChanges = append(out.DocumentChanges, protocol.TextDocumentEdit{TextDocument: id, Edits: edits})
	}
	if withRename {
		out.DocumentChanges = append(out.DocumentChanges, protocol.RenameFile{Kind: "rename",
			OldURI: session.PathToURI(plan.From), NewURI: session.PathToURI(plan.To), AnnotationID: annotation})
	}
	return out
}

// issuedRenames are the moves of the renames this server answered that the
// client has not yet announced (workspace/willRenameFiles), each taken once,
// forgotten after renameMemory (a rename the user cancelled).
type issuedRenames struct {
	mu    sync.Mutex
	moves map[[2]string]time.Time
}

const renameMemory = time.Minute

func (r *issuedRenames) issued(from, to string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	for k, at := range r.moves {
		if now.Sub(at) > renameMemory {
			delete(r.moves, k)
		}
	}
	if r.moves == nil {
		r.moves = map[[2]string]time.Time{}
	}
	r.moves[[2]string{from, to}] = now
}

// take reports whether from → to is a rename's move still awaited, and forgets it.
func (r *issuedRenames) take(from, to string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := [2]string{from, to}
	at, ok := r.moves[k]
	delete(r.moves, k)
	return ok && time.Since(at) <= renameMemory
}
