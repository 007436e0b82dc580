package session

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/participant"
	"github.com/magicfrog/mf-lsp/engine/participant/embedenv"
)

// magicfrog.search: the participant's search (engine/participant's Search,
// the one the shell's `mf-lsp search` and MCP's memory_search run), answered
// for an editor: every hit as the shell's JSON has it, plus the note's file
// and the passage as a range of the file's lines, for the editor to open.
// Scope-safe: the search runs as the session's participant, so nothing it
// cannot see is a hit.

// SearchArgs is magicfrog.search's argument.
type SearchArgs struct {
	Query string `json:"query"`           // required
	Limit int    `json:"limit,omitempty"` // 0: participant.DefaultSearchLimit; at most participant.MaxSearchLimit
}

// SearchHit is one hit: participant.Hit's fields (dimension, key, the
// memory:// uri, revision, hash, updated, layer, effective, score, snippet,
// start_line and end_line in the body) with the note's file and the
// passage's place in it.
type SearchHit struct {
	participant.Hit
	Ref  string `json:"ref"`
	Path string `json:"path"`
	// Location is the passage in the file: uri the file's, range from the
	// start of its first line to the end of its last (LSP lines, from 0;
	// characters in UTF-16 code units).
	Location SearchLocation `json:"location"`
}

// SearchLocation is an LSP Location.
type SearchLocation struct {
	URI   string    `json:"uri"`
	Range LineRange `json:"range"`
}

// SearchResult is magicfrog.search's result, best first.
type SearchResult struct {
	Hits     []SearchHit `json:"hits"`
	Total    int         `json:"total"`
	Warnings []string    `json:"warnings,omitempty"`
}

// Check refuses an argument with no query or a negative limit.
func (a SearchArgs) Check() error {
	if strings.TrimSpace(a.Query) == "" {
		return fmt.Errorf("query is required")
	}
	if a.Limit < 0 {
		return fmt.Errorf("limit %d: want 1 to %d (0: %d)", a.Limit, participant.MaxSearchLimit, participant.DefaultSearchLimit)
	}
	return nil
}

// Search runs a's query as snap's participant. A participant the settings
// left undecided (several agents, none chosen) is refused with its error
// (code several-agents); a query with nothing to search for is a
// participant.Refusal (code invalid-argument).
func Search(snap *Snapshot, a SearchArgs) (*SearchResult, error) {
	if snap.Refused != nil {
		return nil, snap.Refused
	}
	p, err := snap.searcher()
	if err != nil {
		return nil, err
	}
	res, err := p.Search(a.Query, a.Limit)
	if err != nil {
		return nil, err
	}
	out := &SearchResult{Hits: make([]SearchHit, 0, len(res.Hits)), Total: res.Total, Warnings: res.Warnings}
	for _, h := range res.Hits {
		// A note whose file changed since the search's analysis is being
		// refreshed: its passage's lines are not placed from a text that
		// is no longer the file's, and the hit is left out.
		if hit, ok := searchHit(h); ok {
			out.Hits = append(out.Hits, hit)
		}
	}
	return out, nil
}

// searchHit is h with its note's file and the passage's lines in it.
func searchHit(h participant.Hit) (SearchHit, bool) {
	n := h.Note
	src, err := n.Text()
	if err != nil {
		return SearchHit{}, false
	}
	first := bytes.Count(src[:n.BodyStart()], []byte{'\n'}) // the body's first line, from 0
	start, end := first+h.StartLine-1, first+h.EndLine-1
	return SearchHit{Hit: h, Ref: n.Ref(), Path: n.Path, Location: SearchLocation{
		URI: PathToURI(n.Path),
		Range: LineRange{
			Start: LinePos{Line: start},
			End:   LinePos{Line: end, Character: utf16Len(lineOf(src, end))},
		},
	}}, true
}

// lineOf is line i (from 0) of src, without its line ending.
func lineOf(src []byte, i int) []byte {
	for ; i > 0; i-- {
		nl := bytes.IndexByte(src, '\n')
		if nl < 0 {
			return nil
		}
		src = src[nl+1:]
	}
	if nl := bytes.IndexByte(src, '\n'); nl >= 0 {
		src = src[:nl]
	}
	return bytes.TrimSuffix(src, []byte{'\r'})
}

// utf16Len is b's length in UTF-16 code units.
func utf16Len(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// searcher is the participant of snap's scope and today, kept on the tree
// while they stay the same: its search index (each note analyzed once per
// content) then serves every search of the session.
func (snap *Snapshot) searcher() (*participant.Participant, error) {
	today := "" // the local date
	if !snap.Today.IsZero() {
		today = snap.Today.String()
	}
	if snap.tree == nil {
		return participant.New(snap.Memory, searchOptions(snap.Participant, today))
	}
	return snap.tree.searchers.get(snap.Memory, snap.Participant, today)
}

// searchOptions make the participant that searches for scope s: with the
// embedding provider the environment configures, if any.
func searchOptions(s engine.Scope, today string) participant.Options {
	o := participant.Options{Scope: s, Today: today}
	embedenv.Set(&o, os.Getenv)
	return o
}

// searcherCache is a tree's last search participant.
type searcherCache struct {
	mu  sync.Mutex
	key string
	m   *engine.Memory
	p   *participant.Participant
}

func (c *searcherCache) get(m *engine.Memory, s engine.Scope, today string) (*participant.Participant, error) {
	key := fmt.Sprintf("%q %q %q %q", s.Task, s.Agents, s.Machine, today)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.p != nil && c.m == m && c.key == key {
		return c.p, nil
	}
	p, err := participant.New(m, searchOptions(s, today))
	if err != nil {
		return nil, err
	}
	c.key, c.m, c.p = key, m, p
	return p, nil
}
