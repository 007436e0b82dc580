package participant

import (
	"math"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/magicfrog/mf-lsp/engine"
)

// Search is a scan: every note in scope is matched against the query's terms
// on a lower-cased copy kept per note (by content hash, so an edited note is
// lowered again on the next search and a removed one dropped). At 10,000 notes
// in scope a query takes a few milliseconds (BenchmarkSearch), well under
// the 50 ms target, so no index library is used: nothing to build, nothing to
// keep consistent with the disk, and a smaller binary.

// DefaultSearchLimit is how many hits a search returns when not told.
const DefaultSearchLimit = 10

// MaxSearchLimit caps limit: results are read by a model, in its context.
const MaxSearchLimit = 100

// Hit is one note a search found.
type Hit struct {
	Note
	Effective bool    `json:"effective" jsonschema:"true: this note wins its key; false: it is shadowed by a more specific note"`
	Score     float64 `json:"score" jsonschema:"relevance: higher is better"`
	Snippet   string  `json:"snippet" jsonschema:"text around the best match"`
}

// SearchResult is a search's hits, best first.
type SearchResult struct {
	Hits  []Hit `json:"hits"`
	Total int   `json:"total" jsonschema:"notes that matched, before limit"`
}

type lowered struct {
	hash string
	key  string
	body string
}

type searchIndex struct {
	mu   sync.Mutex
	docs map[string]*lowered // by path
}

// lower returns the lower-cased key and body of e, cached by content hash.
func (ix *searchIndex) lower(e *engine.Entry) *lowered {
	if d := ix.docs[e.Path]; d != nil && d.hash == e.Hash {
		return d
	}
	d := &lowered{hash: e.Hash, key: strings.ToLower(e.Key), body: strings.ToLower(string(e.Body()))}
	ix.docs[e.Path] = d
	return d
}

// terms splits a query into lower-cased words; "quoted text" is one term.
func terms(q string) []string {
	var out []string
	for i, part := range strings.Split(q, `"`) {
		if i%2 == 1 {
			if t := strings.TrimSpace(strings.ToLower(part)); t != "" {
				out = append(out, t)
			}
			continue
		}
		for _, f := range strings.Fields(strings.ToLower(part)) {
			f = strings.TrimFunc(f, func(r rune) bool { return unicode.IsPunct(r) && r != '/' && r != '.' && r != '-' && r != '_' })
			if f != "" {
				out = append(out, f)
			}
		}
	}
	return out
}

// Search ranks the notes in scope by query: every note holding at least one
// term, those holding more of the terms first, then by a BM25-like score
// (rare terms count more, repeated terms saturate, a term in the key counts
// double), effective notes before shadowed ones.
func (p *Participant) Search(query string, limit int) (*SearchResult, error) {
	ts := terms(query)
	if len(ts) == 0 {
		return nil, refuse("query %q has no words to search for", query)
	}
	if len(ts) > 32 {
		return nil, refuse("query has %d terms; use at most 32", len(ts))
	}
	switch {
	case limit < 0:
		return nil, refuse("limit %d: want 1 to %d (0: %d)", limit, MaxSearchLimit, DefaultSearchLimit)
	case limit == 0:
		limit = DefaultSearchLimit
	case limit > MaxSearchLimit:
		limit = MaxSearchLimit
	}
	v := p.m.View(p.Scope())
	type cand struct {
		e         *engine.Entry
		d         *lowered
		effective bool
		tf        []int
		inKey     []bool
	}
	var cands []cand
	add := func(e *engine.Entry, effective bool) { cands = append(cands, cand{e: e, effective: effective}) }
	for _, kv := range v.Keys {
		add(kv.Winner, true)
		for _, s := range kv.Shadowed {
			add(s, false)
		}
	}
	for _, e := range v.Device {
		add(e, true)
	}

	p.index.mu.Lock()
	if p.index.docs == nil {
		p.index.docs = map[string]*lowered{}
	}
	live := make(map[string]bool, len(cands))
	df := make([]int, len(ts))
	matched := cands[:0]
	for _, c := range cands {
		live[c.e.Path] = true
		c.d = p.index.lower(c.e)
		any := false
		for i, t := range ts {
			n, k := strings.Count(c.d.body, t), strings.Contains(c.d.key, t)
			if n > 0 || k {
				if c.tf == nil {
					c.tf, c.inKey = make([]int, len(ts)), make([]bool, len(ts))
				}
				c.tf[i], c.inKey[i], any = n, k, true
				df[i]++
			}
		}
		if any {
			matched = append(matched, c)
		}
	}
	if len(p.index.docs) > 2*len(live)+64 {
		for path := range p.index.docs {
			if !live[path] {
				delete(p.index.docs, path)
			}
		}
	}
	p.index.mu.Unlock()

	n := float64(len(cands))
	hits := make([]Hit, 0, len(matched))
	covered := make([]int, 0, len(matched))
	for _, c := range matched {
		score, cover, best, bestIDF := 0.0, 0, -1, -1.0
		for i := range ts {
			if c.tf[i] == 0 && !c.inKey[i] {
				continue
			}
			cover++
			idf := math.Log(1 + n/float64(df[i]))
			tf := float64(c.tf[i])
			score += idf * (tf * 2.2 / (tf + 1.2))
			if c.inKey[i] {
				score += 2 * idf
			}
			if c.tf[i] > 0 && idf > bestIDF {
				best, bestIDF = i, idf
			}
		}
		h := Hit{Note: NoteOf(c.e), Effective: c.effective, Score: math.Round(score*1000) / 1000}
		h.Snippet = snippet(string(c.e.Body()), c.d.body, ts, best)
		hits = append(hits, h)
		covered = append(covered, cover)
	}
	order := make([]int, len(hits))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		x, y := order[a], order[b]
		if covered[x] != covered[y] {
			return covered[x] > covered[y]
		}
		if hits[x].Score != hits[y].Score {
			return hits[x].Score > hits[y].Score
		}
		if hits[x].Effective != hits[y].Effective {
			return hits[x].Effective
		}
		return hits[x].URI < hits[y].URI
	})
	res := &SearchResult{Total: len(hits), Hits: make([]Hit, 0, min(limit, len(hits)))}
	for _, i := range order[:min(limit, len(order))] {
		res.Hits = append(res.Hits, hits[i])
	}
	return res, nil
}

// snippetBefore and snippetAfter are how much text a snippet shows around
// its match, in bytes.
const (
	snippetBefore = 60
	snippetAfter  = 120
)

// snippet is the text around the first match of term best in body (lower is
// body lower-cased), on one line; the body's start when only the key matched.
func snippet(body, lower string, ts []string, best int) string {
	at := 0
	if best >= 0 {
		at = strings.Index(lower, ts[best])
	}
	if len(lower) != len(body) {
		body = lower // lower-casing changed byte lengths: offsets only fit the lowered text
	}
	start, end := max(0, at-snippetBefore), min(len(body), at+snippetAfter)
	for start > 0 && !utf8.RuneStart(body[start]) {
		start--
	}
	for end < len(body) && !utf8.RuneStart(body[end]) {
		end++
	}
	s := strings.Join(strings.Fields(body[start:end]), " ")
	if start > 0 {
		s = "…" + s
	}
	if end < len(body) {
		s += "…"
	}
	return s
}
