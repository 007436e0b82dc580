package participant

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/magicfrog/mf-lsp/engine"
)

// NoteInfo names one note: its place, key and state on disk.
type NoteInfo struct {
	Dimension string `json:"dimension" jsonschema:"the note's place: DIMENSION or DIMENSION/ID (agent/larry), as memory_read and memory_write take it"`
	Key       string `json:"key" jsonschema:"the note's path inside its dimension"`
	URI       string `json:"uri" jsonschema:"the note as a resource: memory://DIMENSION[/ID]/KEY"`
	Revision  int    `json:"revision" jsonschema:"frontmatter revision; 0: never written by the engine"`
	Hash      string `json:"hash" jsonschema:"hex SHA-256 of the file: what expected_hash takes"`
	Updated   string `json:"updated,omitempty" jsonschema:"RFC 3339 time of the last write"`
	Layer     string `json:"layer" jsonschema:"core, skills, journal, …"`
}

// NoteOf describes a loaded note.
func NoteOf(e *engine.Note) NoteInfo {
	return NoteInfo{Dimension: placeOf(e), Key: e.Key, URI: URIOf(e), Revision: e.Revision(), Hash: e.Hash(), Updated: e.Updated(), Layer: e.Layer.Name}
}

// URIScheme is the scheme of notes as resources.
const URIScheme = "memory"

// ContextURI is the <memory> block as a resource.
const ContextURI = URIScheme + "://context"

// URIOf is a note's resource URI: memory:// and its portable path.
func URIOf(e *engine.Note) string { return URIScheme + "://" + e.Ref() }

// Context is the rendered <memory> block.
type Context struct {
	Block      string   `json:"block" jsonschema:"the <memory> block: read it before working"`
	Generation string   `json:"generation" jsonschema:"the block's generation: pass it as previous next time to learn whether the block changed"`
	Replaces   string   `json:"replaces,omitempty" jsonschema:"the previous generation this block replaces (the view changed)"`
	Tokens     int      `json:"tokens" jsonschema:"the block's size in o200k tokens (without a budget an upper bound)"`
	Omitted    int      `json:"omitted" jsonschema:"notes left out for the budget, each an <omitted/> line in the block"`
	Budget     int      `json:"budget" jsonschema:"the budget the block was rendered with, in o200k tokens (the default when none was given)"`
	Notices    []string `json:"notices,omitempty" jsonschema:"what about this participant's scope makes requests fail (an agent or task that is not registered), and how to fix it"`
}

// DefaultBudget is the budget of a <memory> block asked for without one, in
// o200k tokens: an agent's boot fits a model's context whatever the size of
// the memory, and what does not fit is listed as <omitted/> lines.
const DefaultBudget = 8000

// Context renders the participant's <memory> block. previous is the generation
// the agent holds; budget 0 is DefaultBudget. Notices are Warnings.
func (p *Participant) Context(budget int, previous string) (*Context, error) {
	if budget < 0 {
		return nil, refuse("budget %d: want 0 (the default, %d tokens) or more tokens", budget, DefaultBudget)
	}
	if budget == 0 {
		budget = DefaultBudget
	}
	blk, err := p.m.Render(engine.RenderOptions{Scope: p.Scope(), Budget: budget, Previous: previous, Today: p.today})
	if err != nil {
		return nil, err
	}
	c := &Context{Block: blk.Text, Generation: blk.Generation, Tokens: blk.Tokens, Omitted: len(blk.Omitted), Budget: budget, Notices: p.Warnings()}
	if previous != "" && previous != blk.Generation {
		c.Replaces = previous
	}
	return c, nil
}

// ReadResult is a note and where it stands in the participant's view.
type ReadResult struct {
	NoteInfo
	Body       string     `json:"body" jsonschema:"the note without its frontmatter; with a line range, those lines of it"`
	StartLine  int        `json:"start_line,omitempty" jsonschema:"with a line range: the first line of body in the note's body (1 is its first line)"`
	EndLine    int        `json:"end_line,omitempty" jsonschema:"with a line range: the last line of body, included"`
	Lines      int        `json:"lines" jsonschema:"how many lines the note's body has"`
	Effective  bool       `json:"effective" jsonschema:"true: this note wins its key in the effective view"`
	ShadowedBy *NoteInfo  `json:"shadowed_by,omitempty" jsonschema:"when not effective: the note that wins the key instead"`
	Shadows    []NoteInfo `json:"shadows" jsonschema:"when effective: the less specific notes of the same key it hides"`
}

// Read returns the note of key at place, with its revision and hash (what a
// write of it expects) and its standing in the effective view.
func (p *Participant) Read(place, key string) (*ReadResult, error) {
	return p.ReadLines(place, key, 0, 0)
}

// ReadLines is Read of body lines start to end (1-based, end included, as a
// search hit's start_line and end_line give them); start 0 is the first line,
// end 0 or past the body the last. Revision and hash are the whole note's: a
// write replaces the whole body.
func (p *Participant) ReadLines(place, key string, start, end int) (*ReadResult, error) {
	if start < 0 || end < 0 || end > 0 && end < start {
		return nil, refuse("lines %d to %d: want 1 ≤ start_line ≤ end_line (0: the first / the last line)", start, end)
	}
	pl, err := p.ParsePlace(place)
	if err != nil {
		return nil, err
	}
	e, err := p.noteFor(pl, key)
	if err != nil {
		return nil, err
	}
	if e == nil {
		if err := p.checkRegistered(pl); err != nil {
			return nil, err
		}
		return nil, p.notFound(pl, key)
	}
	st := p.m.StatusOf(e, p.scope)
	src, err := e.Body()
	if err != nil {
		return nil, err
	}
	body := string(src)
	lines := strings.SplitAfter(body, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1] // the last line's end is not a line
	}
	r := &ReadResult{NoteInfo: NoteOf(e), Body: body, Effective: st.Effective, Shadows: []NoteInfo{}, Lines: len(lines)}
	if start > 0 || end > 0 {
		start = max(start, 1)
		if end == 0 || end > len(lines) {
			end = len(lines)
		}
		if start > len(lines) {
			return nil, refuse("start_line %d: %s %s has %d lines", start, pl, key, len(lines))
		}
		r.Body, r.StartLine, r.EndLine = strings.Join(lines[start-1:end], ""), start, end
	}
	if st.Winner != nil {
		w := NoteOf(st.Winner)
		r.ShadowedBy = &w
	}
	for _, s := range st.Shadows {
		r.Shadows = append(r.Shadows, NoteOf(s))
	}
	return r, nil
}

// WriteInput is one revision-checked write.
type WriteInput struct {
	Place            string
	Key              string
	Body             string
	ExpectedRevision int
	ExpectedHash     string
}

// WriteResult is what a write made.
type WriteResult struct {
	NoteInfo
}

// StaleWrite is a write refused because the disk is not what the writer
// expected. It carries the note as it is now, so the writer can merge and
// write again with Current's revision and hash. Nothing was written.
type StaleWrite struct {
	Place    string
	Key      string
	Expected int
	Reason   string
	Exists   bool
	Current  *ReadResult // nil when the note does not exist
}

func (s *StaleWrite) Error() string {
	if s.Current == nil {
		return fmt.Sprintf("stale: %s %s: %s; the note does not exist now (write it with expected_revision 0); nothing was written", s.Place, s.Key, s.Reason)
	}
	return fmt.Sprintf("stale: %s %s: %s; it is at revision %d (hash %s) now; nothing was written: merge your change into the current body and write again with expected_revision %d and expected_hash %s",
		s.Place, s.Key, s.Reason, s.Current.Revision, s.Current.Hash, s.Current.Revision, s.Current.Hash)
}

// CurrentRevision is the revision on disk now (0 when absent).
func (s *StaleWrite) CurrentRevision() int {
	if s.Current == nil {
		return 0
	}
	return s.Current.Revision
}

// Write writes a note's body if the disk still holds ExpectedRevision (0: the
// note must not exist) and, when given, ExpectedHash. A stale write is a
// *StaleWrite with the current note.
func (p *Participant) Write(in WriteInput) (*WriteResult, error) {
	pl, err := p.ParsePlace(in.Place)
	if err != nil {
		return nil, err
	}
	if in.ExpectedRevision < 0 {
		return nil, refuse("expected_revision %d: want the revision you read, or 0 to create the note", in.ExpectedRevision)
	}
	path, err := p.target(pl, in.Key)
	if err != nil {
		return nil, err
	}
	res, err := p.m.Write(engine.WriteRequest{
		Dimension: pl.Dimension, Owner: pl.ID, Key: in.Key, Body: []byte(in.Body),
		ExpectRevision: in.ExpectedRevision, ExpectHash: in.ExpectedHash,
	})
	if st, ok := engine.IsStale(err); ok {
		return nil, p.stale(pl, in.Key, in.ExpectedRevision, st)
	}
	if err != nil {
		return nil, err
	}
	e := p.m.Note(path)
	if e == nil || e.Hash() != res.Hash {
		return &WriteResult{NoteInfo{Dimension: pl.String(), Key: in.Key, URI: URIScheme + "://" + engine.Ref(pl.Dimension, pl.ID, in.Key), Revision: res.Revision, Hash: res.Hash}}, nil
	}
	return &WriteResult{NoteOf(e)}, nil
}

// stale builds the StaleWrite of a refused write, reading the note again so
// that its revision, hash and body come from one read.
func (p *Participant) stale(pl Place, key string, expected int, st *engine.StaleError) error {
	p.m.Refresh(st.Path)
	sw := &StaleWrite{Place: pl.String(), Key: key, Expected: expected, Reason: st.Reason, Exists: st.Exists}
	if r, err := p.Read(pl.String(), key); err == nil {
		sw.Current, sw.Exists = r, true
	}
	return sw
}

// joinBlock appends text to body as a block of its own: one blank line
// between them, one line end after it.
func joinBlock(body []byte, text string) []byte {
	out := make([]byte, 0, len(body)+len(text)+3)
	out = append(out, body...)
	if len(bytes.TrimSpace(out)) > 0 {
		for !bytes.HasSuffix(out, []byte("\n\n")) {
			out = append(out, '\n')
		}
	} else {
		out = out[:0]
	}
	return append(append(out, strings.TrimRight(text, "\r\n")...), '\n')
}
