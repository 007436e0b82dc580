package lsp

import (
	"fmt"
	"sync"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// DefaultMaxDocumentBytes bounds an open document. Memory notes are small Markdown
// files; anything this large is not one, and tracking it would only cost memory and
// latency on every keystroke.
const DefaultMaxDocumentBytes = 8 << 20

// Document is one open document at one version. It is immutable: an edit replaces the
// Document in the store, so a handler (or an Async func) can keep using the one it got.
// Never modify Text.
type Document struct {
	URI        protocol.DocumentUri
	LanguageID string
	Version    int32
	Text       []byte
	// SavedVersion is the version at the last didSave (-1 if not saved since open).
	SavedVersion int32

	mapper *Mapper
}

// Mapper converts positions for this version of the document.
func (d *Document) Mapper() *Mapper { return d.mapper }

// Documents is the open-document store: didOpen/didChange/didClose/didSave keep it in
// step with the client's buffers. Safe for concurrent use.
type Documents struct {
	max int

	mu       sync.RWMutex
	docs     map[protocol.DocumentUri]*Document
	tooLarge map[protocol.DocumentUri]bool // open in the client, ignored by us
}

// NewDocuments makes a store that refuses documents over maxBytes (0: the default).
func NewDocuments(maxBytes int) *Documents {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxDocumentBytes
	}
	return &Documents{max: maxBytes, docs: map[protocol.DocumentUri]*Document{}, tooLarge: map[protocol.DocumentUri]bool{}}
}

// TooLargeError says a document is over the size limit and is not tracked.
type TooLargeError struct {
	URI         protocol.DocumentUri
	Size, Limit int
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is %s, over the %s limit for memory notes; mf-lsp ignores it while it is this large",
		e.URI, humanBytes(e.Size), humanBytes(e.Limit))
}

// Get returns the current version of an open document.
func (ds *Documents) Get(uri protocol.DocumentUri) (*Document, bool) {
	ds.mu.RLock()
	defer ds.mu.RUnlock()
	d, ok := ds.docs[uri]
	return d, ok
}

// All returns every open document (in no particular order).
func (ds *Documents) All() []*Document {
	ds.mu.RLock()
	defer ds.mu.RUnlock()
	out := make([]*Document, 0, len(ds.docs))
	for _, d := range ds.docs {
		out = append(out, d)
	}
	return out
}

// Open records a document opened in the client. Reopening replaces it.
func (ds *Documents) Open(uri protocol.DocumentUri, languageID string, version int32, text []byte) (*Document, error) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if len(text) > ds.max {
		delete(ds.docs, uri)
		ds.tooLarge[uri] = true
		return nil, &TooLargeError{uri, len(text), ds.max}
	}
	delete(ds.tooLarge, uri)
	d := &Document{URI: uri, LanguageID: languageID, Version: version, Text: text, SavedVersion: -1, mapper: NewMapper(text)}
	ds.docs[uri] = d
	return d, nil
}

// Change applies didChange content changes in order. On an error the document is left
// as it was before the notification (all or nothing), and the error says why: the
// client and server now disagree, which the caller must tell the user about.
// A change to a document ignored as too large returns (nil, nil) unless it shrinks
// back under the limit with a full-text change.
func (ds *Documents) Change(uri protocol.DocumentUri, version int32, changes []any) (*Document, error) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	old, ok := ds.docs[uri]
	if !ok {
		if ds.tooLarge[uri] {
			return ds.changeTooLarge(uri, version, changes)
		}
		return nil, fmt.Errorf("didChange for %s, which is not open", uri)
	}
	text, mapper := old.Text, old.mapper
	for i, c := range changes {
		switch c := c.(type) {
		case protocol.TextDocumentContentChangeEventWhole:
			text = []byte(c.Text)
		case protocol.TextDocumentContentChangeEvent:
			if c.Range == nil {
				text = []byte(c.Text)
				break
			}
			start, end, err := mapper.RangeOffsets(*c.Range)
			if err != nil {
				return nil, fmt.Errorf("didChange for %s (version %d), change %d: %v", uri, version, i, err)
			}
			next := make([]byte, 0, len(text)-(end-start)+len(c.Text))
			next = append(next, text[:start]...)
			next = append(next, c.Text...)
			text = append(next, text[end:]...)
		default:
			return nil, fmt.Errorf("didChange for %s: unexpected change type %T", uri, c)
		}
		if len(text) > ds.max {
			delete(ds.docs, uri)
			ds.tooLarge[uri] = true
			return nil, &TooLargeError{uri, len(text), ds.max}
		}
		mapper = NewMapper(text)
	}
	d := &Document{URI: uri, LanguageID: old.LanguageID, Version: version, Text: text, SavedVersion: old.SavedVersion, mapper: mapper}
	ds.docs[uri] = d
	return d, nil
}

// changeTooLarge tracks a too-large document again once a full-text change brings it
// under the limit. Incremental changes to it cannot be applied (we dropped the text).
func (ds *Documents) changeTooLarge(uri protocol.DocumentUri, version int32, changes []any) (*Document, error) {
	var whole *string
	for _, c := range changes {
		switch c := c.(type) {
		case protocol.TextDocumentContentChangeEventWhole:
			whole = &c.Text
		case protocol.TextDocumentContentChangeEvent:
			if c.Range == nil {
				whole = &c.Text
			} else {
				whole = nil // an incremental change on top of text we do not have
			}
		}
	}
	if whole == nil || len(*whole) > ds.max {
		return nil, nil
	}
	delete(ds.tooLarge, uri)
	text := []byte(*whole)
	d := &Document{URI: uri, Version: version, Text: text, SavedVersion: -1, mapper: NewMapper(text)}
	ds.docs[uri] = d
	return d, nil
}

// Saved records a didSave: the document's current version is what is on disk.
func (ds *Documents) Saved(uri protocol.DocumentUri) (*Document, bool) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	old, ok := ds.docs[uri]
	if !ok {
		return nil, false
	}
	d := *old
	d.SavedVersion = d.Version
	ds.docs[uri] = &d
	return &d, true
}

// Close forgets a document closed in the client.
func (ds *Documents) Close(uri protocol.DocumentUri) bool {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	_, ok := ds.docs[uri]
	delete(ds.docs, uri)
	delete(ds.tooLarge, uri)
	return ok
}

func humanBytes(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// The LSP text-synchronization handlers. They keep the store in step and then hand
// the new document to the hooks feature files set (onOpen etc. in handlers.go), so
// diagnostics and friends never see a half-applied edit.

func (s *Server) didOpen(_ *glsp.Context, p *protocol.DidOpenTextDocumentParams) error {
	d, err := s.Docs.Open(p.TextDocument.URI, p.TextDocument.LanguageID, p.TextDocument.Version, []byte(p.TextDocument.Text))
	if err != nil {
		s.ShowMessage(protocol.MessageTypeWarning, "mf-lsp: %v", err)
		return nil
	}
	s.runHooks(s.hooks.open, d)
	return nil
}

func (s *Server) didChange(_ *glsp.Context, p *protocol.DidChangeTextDocumentParams) error {
	d, err := s.Docs.Change(p.TextDocument.URI, p.TextDocument.Version, p.ContentChanges)
	switch err.(type) {
	case nil:
	case *TooLargeError:
		s.ShowMessage(protocol.MessageTypeWarning, "mf-lsp: %v", err)
		return nil
	default:
		// Out of sync with the client: say so plainly; reopening the file fixes it.
		s.ShowMessage(protocol.MessageTypeError, "mf-lsp lost track of an edit (%v); close and reopen the file", err)
		return nil
	}
	if d != nil {
		s.runHooks(s.hooks.change, d)
	}
	return nil
}

func (s *Server) didSave(_ *glsp.Context, p *protocol.DidSaveTextDocumentParams) error {
	if d, ok := s.Docs.Saved(p.TextDocument.URI); ok {
		s.runHooks(s.hooks.save, d)
	}
	return nil
}

func (s *Server) didClose(_ *glsp.Context, p *protocol.DidCloseTextDocumentParams) error {
	if d, ok := s.Docs.Get(p.TextDocument.URI); ok {
		s.Docs.Close(p.TextDocument.URI)
		s.runHooks(s.hooks.close, d)
	} else {
		s.Docs.Close(p.TextDocument.URI)
	}
	return nil
}
