package participant

import (
	"math"
	"runtime"
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
	NoteInfo
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
	hash [32]byte
	key  string
	body string
}

type searchIndex struct {
	mu   sync.Mutex
	docs map[string]*lowered // by path

	// The notes in scope, as of the tree's version: the view is computed
	// once per change of the tree, not once per query.
	version uint64
	scope   []scopedNote
}

type scopedNote struct {
	e         *engine.Note
	effective bool
}

// inScope lists the notes in the participant's scope, and whether each wins
// its key. The caller holds ix.mu.
func (p *Participant) inScope() []scopedNote {
	ix := &p.index
	if v := p.m.Version(); ix.scope != nil && v == ix.version {
		return ix.scope
	}
	v := p.m.Version()
	view := p.m.View(p.Scope())
	out := make([]scopedNote, 0, len(view.Keys)+len(view.Device))
	for _, kv := range view.Keys {
		out = append(out, scopedNote{kv.Winner, true})
		for _, s := range kv.Shadowed {
			out = append(out, scopedNote{s, false})
		}
	}
	for _, e := range view.Device {
		out = append(out, scopedNote{e, true})
	}
	ix.version, ix.scope = v, out
	// Drop the lowered copies of notes that left the scope.
	if len(ix.docs) > len(out) {
		live := make(map[string]bool, len(out))
		for _, sn := range out {
			live[sn.e.Path] = true
		}
		for path := range ix.docs {
			if !live[path] {
				delete(ix.docs, path)
			}
		}
	}
	return out
}

// lower returns the lower-cased key and body of e, cached by content hash.
func (ix *searchIndex) lower(e *engine.Note) *lowered {
	if d := ix.docs[e.Path]; d != nil && d.hash == e.Sum() {
		return d
	}
	d := &lowered{hash: e.Sum(), key: strings.ToLower(e.Key), body: strings.ToLower(string(e.Body()))}
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
	type cand struct {
		e         *engine.Note
		d         *lowered
		effective bool
		tf        []int
		inKey     []bool
	}
	p.index.mu.Lock()
	if p.index.docs == nil {
		p.index.docs = map[string]*lowered{}
	}
	notes := p.inScope()
	cands := make([]cand, len(notes))
	for i, sn := range notes {
		cands[i] = cand{e: sn.e, d: p.index.lower(sn.e), effective: sn.effective}
	}
	p.index.mu.Unlock()

	// Counting is the cost of a query: it is split over the CPUs.
	workers := min(runtime.GOMAXPROCS(0), 1+len(cands)/500)
	per := (len(cands) + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := 0; lo < len(cands); lo += per {
		wg.Add(1)
		go func(part []cand) {
			defer wg.Done()
			for j := range part {
				c := &part[j]
				for i, t := range ts {
					n, k := strings.Count(c.d.body, t), strings.Contains(c.d.key, t)
					if n > 0 || k {
						if c.tf == nil {
							c.tf, c.inKey = make([]int, len(ts)), make([]bool, len(ts))
						}
						c.tf[i], c.inKey[i] = n, k
					}
				}
			}
		}(cands[lo:min(lo+per, len(cands))])
	}
	wg.Wait()
	df := make([]int, len(ts))
	var matched []cand
	for _, c := range cands {
		if c.tf == nil {
			continue
		}
		for i := range ts {
			if c.tf[i] > 0 || c.inKey[i] {
				df[i]++
			}
		}
		matched = append(matched, c)
	}

	// Score every match, then describe only the hits returned: a snippet and
	// a Note cost more than a score, and a common word matches most notes.
	type scored struct {
		c     *cand
		score float64
		cover int
		best  int // the rarest term found in the body, for the snippet
	}
	n := float64(len(cands))
	all := make([]scored, len(matched))
	for j := range matched {
		c := &matched[j]
		sc := scored{c: c, best: -1}
		bestIDF := -1.0
		for i := range ts {
			if c.tf[i] == 0 && !c.inKey[i] {
				continue
			}
			sc.cover++
			idf := math.Log(1 + n/float64(df[i]))
			tf := float64(c.tf[i])
			sc.score += idf * (tf * 2.2 / (tf + 1.2))
			if c.inKey[i] {
				sc.score += 2 * idf
			}
			if c.tf[i] > 0 && idf > bestIDF {
				sc.best, bestIDF = i, idf
			}
		}
		sc.score = math.Round(sc.score*1000) / 1000
		all[j] = sc
	}
	// Keep the best limit hits in order; a full sort of every match costs more
	// than the scan when a common word matches most notes.
	better := func(x, y *scored) bool {
		if x.cover != y.cover {
			return x.cover > y.cover
		}
		if x.score != y.score {
			return x.score > y.score
		}
		if x.c.effective != y.c.effective {
			return x.c.effective
		}
		return x.c.e.Path < y.c.e.Path
	}
	top := make([]*scored, 0, limit+1)
	for j := range all {
		sc := &all[j]
		if len(top) == limit && !better(sc, top[len(top)-1]) {
			continue
		}
		i := sort.Search(len(top), func(i int) bool { return better(sc, top[i]) })
		top = append(top, nil)
		copy(top[i+1:], top[i:])
		top[i] = sc
		if len(top) > limit {
			top = top[:limit]
		}
	}
	res := &SearchResult{Total: len(all), Hits: make([]Hit, 0, len(top))}
	for _, sc := range top {
		res.Hits = append(res.Hits, Hit{NoteInfo: NoteOf(sc.c.e), Effective: sc.c.effective, Score: sc.score,
			Snippet: snippet(string(sc.c.e.Body()), sc.c.d.body, ts, sc.best)})
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
