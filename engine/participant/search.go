package participant

import (
	"bytes"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/journal"
)

// Search ranks passages, not whole notes (issue 26). Each note in scope is
// analyzed once per content hash (cached; an edited note is analyzed again on
// the next search, a removed one dropped): its body lines tokenized into
// lower-cased letter and digit runs, English stop words dropped, the rest
// Snowball-stemmed, with their positions. A query's terms go through the same
// steps; its date expressions ("on 8 May 2026", "in May", "last week") are
// taken out and resolved against the participant's today. A note ranks by its
// best passage (three lines around a line that holds a term, the centre line
// counting most): BM25 over passages (line-level document frequencies, so a
// word that is in every note but on few lines still counts), a bonus for
// terms close together and for adjacent words of the query in its order (stop
// words included), the query's stop words on the centre line (together less
// than its weakest term), a smaller bonus for terms in the section's heading,
// terms in the key, and a journal day that a date of the query names. The
// index is derived: in memory, rebuilt from the notes at any time; a copy
// in the user's cache directory (searchcache.go) only saves a new process the
// tokenizing, and is never a source of truth.

// DefaultSearchLimit is how many hits a search returns when not told.
const DefaultSearchLimit = 10

// MaxSearchLimit caps limit: results are read by a model, in its context.
const MaxSearchLimit = 100

// Hit is one note a search found.
type Hit struct {
	NoteInfo
	Effective bool    `json:"effective" jsonschema:"true: this note wins its key; false: it is shadowed by a more specific note"`
	Score     float64 `json:"score" jsonschema:"relevance: higher is better"`
	Snippet   string  `json:"snippet" jsonschema:"the best passage: the lines of the body that answer best"`
	StartLine int     `json:"start_line" jsonschema:"the best passage's first line in the body (1 is the body's first line; memory_read's start_line)"`
	EndLine   int     `json:"end_line" jsonschema:"the best passage's last line in the body, included"`
	// Note is the loaded note the hit is in, for a front end that shows it
	// (the editor maps the passage's body lines to the file's); never encoded.
	Note *engine.Note `json:"-"`
}

// SearchResult is a search's hits, best first.
type SearchResult struct {
	Hits  []Hit `json:"hits"`
	Total int   `json:"total" jsonschema:"notes that matched, before limit"`
	// Warnings say what the answer lacks: an embedding endpoint that failed
	// (the answer is the keyword ranking's).
	Warnings []string `json:"warnings,omitempty" jsonschema:"what the answer lacks, such as an embedding endpoint that failed"`
}

// analyzed is a note as search reads it.
type analyzed struct {
	hash     [32]byte
	unread   bool        // its body could not be read (changed on disk since the load): analyzed as empty
	stored   bool        // read from the stored index (searchcache.go): its terms are in the lists only, vocab is nil
	keyTerms []string    // the key's terms, each once
	bodyLen  int32       // the body's bytes (its lines are found again when it is read: lineStarts)
	lineLen  lineLens    // terms on each line
	terms    int         // terms in the body
	heads    []int32     // the lines that are headings, in order
	vocab    []string    // the body's terms, each once, in order of first use
	termIDs  []int32     // their ids in the scratch that made it, until the index lists it
	posts    []posting   // where each term of vocab is, until the index lists it
	minor    minorSet    // the lines holding each stop word (postings.go)
	day      journal.Day // a journal day's (daily or refined note), else zero
}

// posting is where one term is in a note.
type posting struct {
	lines int32       // how many lines hold it
	at    []uint64    // line<<32 | position in the line<<1 | a stop word right before it on its line (packAt), in order
	n     int32       // the occurrences, which occ encodes (postings.go) until at decodes them
	sum   lineSummary // what upperBound reads of them, without decoding them
	occ   []byte
}

// packAt is an occurrence of a term as a posting keeps it: its line, its
// position among its line's terms (stop words are not counted) and whether a
// stop word stands between it and the term before it on its line (what a
// quoted phrase needs to know, phrase.go). The order of the values is the
// order of the occurrences.
func packAt(line, pos int32, afterStop bool) uint64 {
	x := uint64(line)<<32 | uint64(pos)<<1
	if afterStop {
		x |= 1
	}
	return x
}

// atLine, atPos and atAfterStop read what packAt packed.
func atLine(x uint64) int       { return int(x >> 32) }
func atPos(x uint64) int        { return int(uint32(x) >> 1) }
func atAfterStop(x uint64) bool { return x&1 != 0 }

func (a *analyzed) lines() int { return len(a.lineLen.n) }

// lineLens is the terms on each line of a body, a byte a line: a line of
// 255 terms or more is in big.
type lineLens struct {
	n   []uint8
	big map[int32]int32
}

func (ll *lineLens) at(l int) int32 {
	if v := ll.n[l]; v < 255 {
		return int32(v)
	}
	return ll.big[int32(l)]
}

func (ll *lineLens) add(n int32) {
	if n >= 255 {
		if ll.big == nil {
			ll.big = map[int32]int32{}
		}
		ll.big[int32(len(ll.n))] = n
		ll.n = append(ll.n, 255)
		return
	}
	ll.n = append(ll.n, uint8(n))
}

// headOf is the heading line l is under (l itself for a heading), -1 for
// none.
func (a *analyzed) headOf(l int) int32 {
	if len(a.heads) == 0 || a.heads[0] > int32(l) {
		return -1
	}
	i, found := slices.BinarySearch(a.heads, int32(l))
	switch {
	case found:
		return int32(l)
	case i == 0:
		return -1
	}
	return a.heads[i-1]
}

// stopWords are left out of the index and of queries: they are on every line.
var stopWords = sync.OnceValue(func() map[string]bool {
	words := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be because been before
being below between both but by can could did do does doing down during each few for from further had has have having
he her here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of
off on once only or other our ours ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were what when where which while
who whom why will with would you your yours yourself yourselves s t d ll m re ve`) {
		words[w] = true
	}
	return words
})

// irregular maps common irregular English verb forms to their base, which
// a stemmer cannot: "went" finds "go", "ran" finds "run".
var irregular = sync.OnceValue(func() map[string]string {
	forms := map[string]string{}
	for _, f := range strings.Fields(`went:go gone:go ran:run began:begin begun:begin bought:buy brought:bring built:build
came:come caught:catch chose:choose chosen:choose did:do done:do drew:draw drawn:draw drank:drink drunk:drink drove:drive
driven:drive ate:eat eaten:eat fell:fall fallen:fall felt:feel fought:fight found:find flew:fly flown:fly forgot:forget
forgotten:forget gave:give given:give got:get gotten:get grew:grow grown:grow heard:hear held:hold kept:keep knew:know
known:know left:leave lent:lend lost:lose made:make meant:mean met:meet paid:pay put:put read:read rode:ride ridden:ride
rang:ring rung:ring rose:rise risen:rise said:say saw:see seen:see sold:sell sent:send sang:sing sung:sing sat:sit
slept:sleep spoke:speak spoken:speak spent:spend stood:stand stole:steal stolen:steal swam:swim swum:swim took:take
taken:take taught:teach told:tell thought:think threw:throw thrown:throw understood:understand woke:wake woken:wake
wore:wear worn:wear won:win wrote:write written:write`) {
		from, to, _ := strings.Cut(f, ":")
		forms[from] = to
	}
	return forms
})

// stems caches the Snowball stem of each word seen, shared by every index.
var stems sync.Map

const maxStems = 1 << 18

var stemCount atomic.Int64

func stem(w string) string {
	if s, ok := stems.Load(w); ok {
		return s.(string)
	}
	s := w
	if base, ok := irregular()[w]; ok {
		s = base
	}
	s = english.Stem(s, false)
	if stemCount.Load() < maxStems {
		if _, loaded := stems.LoadOrStore(w, s); !loaded {
			stemCount.Add(1)
		}
	}
	return s
}

// words calls f with each term of text: a lower-cased run of letters and
// digits, not a stop word, stemmed.
func words(text string, f func(term string)) {
	tokens(text, func(w string, stop bool) {
		if !stop {
			f(w)
		}
	})
}

// tokens calls f with each lower-cased run of letters and digits of text:
// a stop word as it is, any other word stemmed.
func tokens(text string, f func(w string, stop bool)) {
	runs(text, func(raw string) {
		w := strings.ToLower(raw)
		if stopWords()[w] {
			f(w, true)
		} else {
			f(stem(w), false)
		}
	})
}

// runs calls f with each run of letters and digits of text, as it is.
func runs(text string, f func(raw string)) {
	start := -1
	for i := 0; i < len(text); {
		c, size, in := text[i], 1, false
		if c < utf8.RuneSelf {
			in = c|0x20-'a' < 26 || c-'0' < 10 // ASCII letters and digits
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(text[i:])
			in = unicode.IsLetter(r) || unicode.IsDigit(r)
		}
		switch {
		case in && start < 0:
			start = i
		case !in && start >= 0:
			f(text[start:i])
			start = -1
		}
		i += size
	}
	if start >= 0 {
		f(text[start:])
	}
}

// analysisScratch is one worker's reusable space for analyze: what each
// word it has seen is (lexicon.go), and per term, where it is in the note at
// hand.
type analysisScratch struct {
	lex  lexicon          // the bodies' words
	keys lexicon          // the keys' words: a name is often a word of its own (a slug, an id), kept out of the bodies' table
	key  []byte           // the note at hand's key, as nextLexeme reads it
	ids  map[string]int32 // a term's id in this scratch
	note int32            // the note at hand, counted
	left int32            // the notes of the worker's run after it
	at   []termAt         // per term id, where it is in the note at hand
	vs   []vocabSlot      // per vocab slot (the note at hand's terms, in order of first use)
	occ  []occurrence
	vids []int32  // per vocab slot, its term's id
	all  []uint64 // its positions (packAt's), grouped by vocab slot
	off  []int32  // per vocab slot, where its positions start in all

	terms  []string   // by term id
	parts  []partList // by term id, the worker's share of its list (searchindex.go)
	used   []int32    // the term ids with a share, in order of first use
	keyIDs []int32    // the note at hand's key terms' ids
	minor  [][]int32  // per stop word (stopList), the note at hand's lines holding it
	minors []int      // the stop words the note at hand holds
}

// termAt is a term's place in the note at hand: the last note that held it
// (counted as analysisScratch.note) and its vocab slot in that note.
type termAt struct{ seen, slot int32 }

// vocabSlot is a term of the note at hand: the last line that holds it, its
// occurrences and the lines holding it.
type vocabSlot struct{ last, n, lines int32 }

type occurrence struct {
	slot int32
	at   uint64 // packAt's
}

func analyze(e *engine.Note, sc *analysisScratch) *analyzed {
	if sc.ids == nil {
		sc.ids = map[string]int32{}
		sc.minor = make([][]int32, len(stopList()))
	}
	sc.note++
	// The note's vocabulary and occurrences grow in locals, kept in the
	// scratch for the next note at the end: an append to a slice of the
	// scratch (on the heap) stored its header there, and while the
	// collector runs each store is a write barrier, which cost the build
	// more than the appends themselves.
	vs, occ, vids, note := sc.vs[:0], sc.occ[:0], sc.vids[:0], sc.note
	// The text is read in place (nothing analyze keeps points into it), and
	// hashed from that read when the load left the hash to Sum.
	text, sum, err := e.TextSum()
	var body []byte
	if err == nil {
		body = text[e.BodyStart():]
	} else {
		sum = e.Sum() // the load's, or no text's (the read failed: the note changed)
	}
	a := &analyzed{hash: sum, day: dayOf(e), unread: err != nil}
	key := e.Key
	if !a.day.IsZero() {
		key = strings.Replace(key, a.day.String(), " ", 1) // the date is matched as a date
	}
	key = strings.TrimSuffix(key, ".md")
	sc.key = append(sc.key[:0], key...)
	var kept [8]string // the key's terms gather here, and are kept in one allocation of their size
	keyTerms := kept[:0]
	for i := 0; ; { // words(), through the scratch
		lx, next := nextLexeme(sc, &sc.keys, sc.key, i)
		if lx == nil {
			break
		}
		if i = next; !lx.stop && !slices.Contains(keyTerms, sc.terms[lx.id]) {
			keyTerms = append(keyTerms, sc.terms[lx.id])
		}
	}
	if len(keyTerms) > 0 {
		a.keyTerms = slices.Clone(keyTerms)
	}
	a.bodyLen = int32(len(body))
	a.lineLen.n = make([]uint8, 0, bytes.Count(body, []byte{'\n'})+1)
	// Lines as ReadLines counts them: a last line end starts no line.
	for at := 0; at < len(body) || at == 0; {
		end := bytes.IndexByte(body[at:], '\n')
		if end < 0 {
			end = len(body)
		} else {
			end += at
		}
		line := int32(a.lines())
		text := body[at:end]
		if len(text) > 0 && text[0] == '#' {
			a.heads = append(a.heads, line)
		}
		n := int32(0)
		afterStop := false
		for i := 0; ; {
			lx, next := nextLexeme(sc, &sc.lex, text, i)
			if lx == nil {
				break
			}
			i = next
			if lx.stop {
				afterStop = true
				if ls := sc.minor[lx.minor]; len(ls) == 0 || ls[len(ls)-1] != line {
					if len(ls) == 0 {
						sc.minors = append(sc.minors, int(lx.minor))
					}
					sc.minor[lx.minor] = append(ls, line)
				}
				continue
			}
			ta := &sc.at[lx.id]
			if ta.seen != note {
				ta.seen, ta.slot = note, int32(len(vs))
				vids, vs = append(vids, lx.id), append(vs, vocabSlot{last: -1})
			}
			slot := ta.slot
			v := &vs[slot]
			if v.n++; v.last != line {
				v.last = line
				v.lines++
			}
			occ = append(occ, occurrence{slot, packAt(line, n, afterStop)})
			afterStop = false
			n++
		}
		a.terms += int(n)
		a.lineLen.add(n)
		if end == len(body) {
			break
		}
		at = end + 1
	}
	slices.Sort(sc.minors)
	for _, w := range sc.minors {
		a.minor = appendMinor(a.minor, w, sc.minor[w])
		sc.minor[w] = sc.minor[w][:0]
	}
	sc.minors = sc.minors[:0]
	// Every term's positions, in one array of the scratch, grouped by term,
	// until the index lists them (searchindex.go).
	all := slices.Grow(sc.all[:0], len(occ))[:len(occ)]
	offs := sc.off[:0]
	off := int32(0)
	for _, v := range vs {
		offs = append(offs, off)
		off += v.n
	}
	for _, o := range occ {
		all[offs[o.slot]] = o.at
		offs[o.slot]++
	}
	for i, v := range vs {
		offs[i] -= v.n
	}
	sc.vs, sc.occ, sc.vids, sc.all, sc.off = vs, occ, vids, all, offs
	return a
}

// dayOf is the journal day e is (a daily or refined note), else zero.
func dayOf(e *engine.Note) journal.Day {
	if e.Layer.Kind == engine.KindFractal {
		if f, _ := journal.Classify(e.LayerKey()); f.Kind == journal.Daily || f.Kind == journal.Refined {
			return f.Day
		}
	}
	return journal.Day{}
}

// text is body lines lo..hi (0-based, included); starts is lineStarts's of
// body.
func (a *analyzed) text(body string, starts []int32, lo, hi int) string {
	end := int(starts[hi+1])
	if hi+1 < a.lines() {
		end-- // the line end
	}
	return strings.TrimRight(body[starts[lo]:end], "\r\n")
}

// textLines is readLines's body as a string.
func (c *cand) textLines() (string, []int32, bool) {
	body, starts, ok := c.readLines()
	return string(body), starts, ok
}

// readLines is c's body and the start of each of its lines (lineStarts), or
// false when it cannot be had (read on demand, it changed on disk since the
// load: engine.Note.Text, which has the tree refresh it). Search leaves such
// a note out rather than rank or quote a text that is no longer there.
func (c *cand) readLines() ([]byte, []int32, bool) {
	// TextSum: a hit carries its note's hash (NoteOf), which this read
	// gives for a note the load did not hash.
	text, _, err := c.e.TextSum()
	if err != nil || len(text)-c.e.BodyStart() != int(c.a.bodyLen) {
		return nil, nil, false
	}
	body := text[c.e.BodyStart():]
	starts := lineStarts(make([]int32, 0, c.a.lines()+1), body)
	if len(starts) != c.a.lines()+1 {
		return nil, nil, false
	}
	return body, starts, true
}

// wordPair is two words next to each other, each a stem or a stop word.
type wordPair [2]string

// query is a search's terms and what narrows it.
type query struct {
	terms   []string   // stems, each once
	phrases []phrase   // quoted words: every one must be in the note (phrase.go)
	minor   []string   // the stop words, each once: they only tell apart passages that hold terms
	pairs   []wordPair // adjacent words of the query, stop words too, not both stop words; each once
	dates   []dayRange
}

func parseQuery(q string, today journal.Day) query {
	var out query
	seen := map[string]bool{}
	add := func(t string) {
		if !seen[t] {
			seen[t] = true
			out.terms = append(out.terms, t)
		}
	}
	parts := strings.Split(q, `"`)
	var plain []string
	for i, part := range parts {
		if i%2 == 1 {
			if ph := phraseOf(part); len(ph.toks) > 0 {
				words(part, add)
				for _, t := range ph.toks {
					if !t.stop {
						ph.terms = append(ph.terms, slices.Index(out.terms, t.w))
					}
				}
				out.phrases = append(out.phrases, ph)
			}
			continue
		}
		plain = append(plain, part)
	}
	rest, dates := queryDates(strings.Join(plain, " "), today)
	out.dates = dates
	minor := map[string]bool{}
	pairs := map[wordPair]bool{}
	prev, prevStop := "", true
	tokens(rest, func(w string, stop bool) {
		if pw := (wordPair{prev, w}); prev != "" && !(stop && prevStop) && !pairs[pw] && len(out.pairs) < 32 {
			pairs[pw] = true
			out.pairs = append(out.pairs, pw)
		}
		prev, prevStop = w, stop
		switch {
		case !stop:
			add(w)
		case !minor[w] && len(out.minor) < 32:
			minor[w] = true
			out.minor = append(out.minor, w)
		}
	})
	return out
}

// The ranking's weights.
const (
	bm25K1       = 0.6  // low: a passage saying a thing twice says it no better
	bm25B        = 0.5  // mild: a long line says as much as a short one
	passageReach = 1    // a passage is a line and this many lines either side
	sideWeight   = 0.15 // a term only on a side line of a passage, against one on its centre line
	keyWeight    = 1.0  // a term in the key, per its idf
	headWeight   = 0.3  // a term in a heading: in the passage, or over it
	nearWeight   = 0.5  // two different terms next to each other
	pairWeight   = 1.0  // two words of the query next to each other in its order, per the lesser idf
	minorWeight  = 1.0  // the query's stop words on a passage's centre line, all of them, against its weakest term
	dateBoost    = 1.0  // a journal day a date of the query names: score × (1 + dateBoost)
	maxSnippet   = 800  // bytes of a snippet
)

// Search ranks the notes in scope by query, best first: see the comment at
// the top of this file. Every note in scope holding a term (and every quoted
// phrase) is counted in Total; a query with a date and no other words lists
// the journal days it names. Its steps: the query, the candidates (the index
// brought up to date), which of them match, the scope's line statistics, the
// best passage of each match, the best limit of those, and their hits.
func (p *Participant) Search(query string, limit int) (*SearchResult, error) {
	limit, err := searchLimit(limit)
	if err != nil {
		return nil, err
	}
	q, err := p.parseSearch(query)
	if err != nil {
		return nil, err
	}
	hybrid := p.embed != nil && len(q.terms) > 0
	sc := p.index.borrow()
	defer p.index.giveBack(sc)
	cands, tot := p.candidates(&q, hybrid && len(q.phrases) == 0, sc)
	matched := q.match(cands, sc)
	st := q.stats(tot, matched)
	scoreLimit := limit // the best limit are all the ranking reads
	if hybrid || p.index.exhaustive {
		scoreLimit = 0 // the fusion reads every score
	}
	all := q.score(matched, st, scoreLimit, sc)
	if hybrid {
		if top, total, err := p.hybrid(query, &q, cands, matched, all, limit); err == nil {
			return &SearchResult{Total: total, Hits: hitsOf(top)}, nil
		} else {
			return &SearchResult{Total: len(matched), Hits: hitsOf(topScored(all, limit)),
				Warnings: []string{fmt.Sprintf("embeddings: %v; ranked by keywords only", err)}}, nil
		}
	}
	return &SearchResult{Total: len(matched), Hits: hitsOf(topScored(all, limit))}, nil
}

// hybrid fuses the keyword ranking with the embeddings' (hybrid.go). A
// query with phrases ranks only the notes that hold them.
func (p *Participant) hybrid(text string, q *query, cands []cand, matched []*cand, all []scored, limit int) ([]*scored, int, error) {
	pool, every := matched, false
	if len(q.phrases) == 0 {
		pool, every = make([]*cand, len(cands)), true
		for j := range cands {
			pool[j] = &cands[j]
		}
	}
	sem, err := p.semantic(text, pool, every)
	if err != nil {
		return nil, 0, err
	}
	top, total := fuse(all, sem, limit)
	return top, total, nil
}

// searchLimit checks a search's limit: 0 is the default, more than the
// most is the most.
func searchLimit(limit int) (int, error) {
	switch {
	case limit < 0:
		return 0, refuse("limit %d: want 1 to %d (0: %d)", limit, MaxSearchLimit, DefaultSearchLimit)
	case limit == 0:
		return DefaultSearchLimit, nil
	case limit > MaxSearchLimit:
		return MaxSearchLimit, nil
	}
	return limit, nil
}

// parseSearch reads a query against the participant's today, refusing one
// with nothing to search for.
func (p *Participant) parseSearch(text string) (query, error) {
	today, err := p.Day()
	if err != nil {
		return query{}, err
	}
	q := parseQuery(text, today)
	if len(q.terms) == 0 && len(q.dates) == 0 {
		return q, refuse("query %q has no words to search for (words as common as \"the\" and \"what\" are not searched)", text)
	}
	if len(q.terms) > 32 {
		return q, refuse("query has %d terms; use at most 32", len(q.terms))
	}
	return q, nil
}

// cand is a note in scope as one search sees it.
type cand struct {
	e         *engine.Note
	a         *analyzed
	id        int32
	effective bool
	hits      []*posting // per term, nil where absent
	inKey     []bool
	matched   bool
	inDate    bool
}

// scopeTotals is what a query needs of the scope's running totals.
type scopeTotals struct {
	lines, length int
	minor         []int // lines holding each minor word of the query
}

// candidates brings the index up to date and lists the notes a query reads,
// with the postings of its terms: every note in scope when every (the
// embeddings rank them all), else those holding a term of the query in the
// body or the key or, for a query of dates only, the journal days.
func (p *Participant) candidates(q *query, every bool, sc *searchScratch) ([]cand, scopeTotals) {
	ix := &p.index
	ix.mu.Lock()
	defer ix.mu.Unlock()
	p.syncIndex()
	tot := scopeTotals{lines: ix.lines, length: ix.length, minor: make([]int, len(q.minor))}
	for i, w := range q.minor {
		tot.minor[i] = ix.minor[w]
	}
	if len(ix.mark) < len(ix.docs) {
		ix.mark = make([]int32, len(ix.docs)+len(ix.docs)/4)
	}
	nt := len(q.terms)
	lists := make([]*termList, nt)
	most := 0 // cands at most
	for i, t := range q.terms {
		if lists[i] = ix.terms[t]; lists[i] != nil {
			most += int(lists[i].refs)
		}
	}
	switch {
	case every:
		most = len(ix.ids)
	case nt == 0:
		most = len(ix.days)
	}
	cands := slices.Grow(sc.cands[:0], min(most, len(ix.ids)))
	put := func(id int32) {
		if d := &ix.docs[id]; d.a != nil && ix.mark[id] == 0 {
			cands = append(cands, cand{e: d.e, a: d.a, id: id, effective: d.effective})
			ix.mark[id] = int32(len(cands))
		}
	}
	switch {
	case every:
		for id := range ix.docs {
			put(int32(id))
		}
	case nt == 0:
		for _, id := range ix.days {
			put(id)
		}
	default:
		for _, l := range lists {
			if l != nil {
				for rr := newRefReader(l.b); ; {
					r, ok := rr.next()
					if !ok {
						break
					}
					put(r.id)
				}
			}
		}
	}
	if nt > 0 {
		sc.hits, sc.inKey = slices.Grow(sc.hits[:0], len(cands)*nt)[:len(cands)*nt], slices.Grow(sc.inKey[:0], len(cands)*nt)[:len(cands)*nt]
		sc.posts = slices.Grow(sc.posts[:0], len(cands)*nt)[:len(cands)*nt]
		hits, inKey := sc.hits, sc.inKey
		clear(hits)
		clear(inKey)
		for i, l := range lists {
			if l == nil {
				continue
			}
			for rr := newRefReader(l.b); ; {
				r, ok := rr.next()
				if !ok {
					break
				}
				m := int(ix.mark[r.id])
				if m == 0 || ix.docs[r.id].a == nil {
					continue
				}
				c := &cands[m-1]
				if c.hits == nil {
					c.hits, c.inKey = hits[(m-1)*nt:m*nt:m*nt], inKey[(m-1)*nt:m*nt:m*nt]
				}
				if r.n > 0 {
					k := (m-1)*nt + i
					sc.posts[k] = posting{lines: r.lines, n: r.n, sum: r.sum, occ: r.occ}
					c.hits[i] = &sc.posts[k]
				}
				c.inKey[i] = r.key
				c.matched = true
			}
		}
	}
	for i := range cands {
		ix.mark[cands[i].id] = 0
	}
	sc.cands = cands
	return cands, tot
}

// decode reads the occurrences of c's terms (postings.go), in one array,
// for scoring its passages. Only the notes a search scores are decoded: the
// phrases read the occurrences where they are (occReader) and the bounds
// read the postings' summaries.
func (c *cand) decode() { c.decodeIn(nil) }

// decodeIn is decode into space (grown when short, returned), which the
// caller lends for as long as it reads the occurrences (then forget); nil:
// an array of their own.
func (c *cand) decodeIn(space []uint64) []uint64 {
	total := 0
	for _, h := range c.hits {
		if h != nil && len(h.at) < int(h.n) {
			total += int(h.n)
		}
	}
	if total == 0 {
		return space
	}
	if cap(space) < total {
		space = make([]uint64, total+total/4)
	}
	space = space[:total]
	off := 0
	for _, h := range c.hits {
		if h != nil && len(h.at) < int(h.n) {
			h.at, off = decodeOccs(space[off:off:off+int(h.n)], h.occ), off+int(h.n)
		}
	}
	return space
}

// forget drops c's decoded occurrences, whose array is lent to another.
func (c *cand) forget() {
	for _, h := range c.hits {
		if h != nil {
			h.at = nil
		}
	}
}

// scoreEach scores the notes cs into out (scoreOne against floor), each
// run of them over one array of decoded occurrences: a common word's rest
// is tens of thousands of notes, scored once each.
func (q *query) scoreEach(cs []*cand, out []scored, st lineStats, floor float64) {
	parallelRange(len(cs), func(lo, hi int) {
		var space []uint64
		for k := lo; k < hi; k++ {
			space = cs[k].decodeIn(space[:0])
			out[k], _ = q.scoreOne(cs[k], st, floor)
			cs[k].forget()
		}
	})
}

// match keeps the candidates that hold every phrase and a term (or, for a
// query of dates only, are a day it names), marks those a date of the query
// names, and returns them.
func (q *query) match(cands []cand, sc *searchScratch) []*cand {
	nt := len(q.terms)
	parallel(len(cands), func(j int) {
		c := &cands[j]
		if nt > 0 && !c.matched {
			return
		}
		for i := range q.phrases {
			if !q.phrases[i].in(c) {
				c.hits, c.inKey, c.matched = nil, nil, false
				return
			}
		}
		for _, r := range q.dates {
			if !c.a.day.IsZero() && r.holds(c.a.day) {
				c.inDate = true
			}
		}
		if nt == 0 && c.inDate {
			c.matched = true
		}
	})
	matched := sc.matched[:0]
	for j := range cands {
		if cands[j].matched {
			matched = append(matched, &cands[j])
		}
	}
	sc.matched = matched
	return matched
}

// lineStats is what BM25 needs of the whole scope, counted in lines.
type lineStats struct {
	idf        []float64 // per term
	minorIdf   []float64 // per minor word
	avgPassage float64   // terms in a passage, on average
	weakest    float64   // the least idf of a term
	minorTotal float64   // the idfs of the minor words on some line, summed
	pairIdf    []float64 // per pair of the query: the lesser idf of its two words
	pairNeeds  []uint32  // per pair: its terms, by bit
}

// stats counts lines across the scope: every note's lines and terms and the
// lines holding each minor word (the index's running totals, tot), and the
// lines holding each term (in the matched notes, the only ones holding any).
func (q *query) stats(tot scopeTotals, matched []*cand) lineStats {
	df := make([]float64, len(q.terms))
	minorDf := make([]float64, len(q.minor))
	lines, length := float64(tot.lines), float64(tot.length)
	for i, n := range tot.minor {
		minorDf[i] = float64(n)
	}
	for _, c := range matched {
		for i, h := range c.hits {
			if h != nil {
				df[i] += float64(h.lines)
			}
		}
	}
	idf := func(df float64) float64 { return math.Log(1 + (lines-df+0.5)/(df+0.5)) }
	st := lineStats{idf: make([]float64, len(df)), minorIdf: make([]float64, len(minorDf)),
		avgPassage: max(1, (2*passageReach+1)*length/max(1, lines))}
	for i := range df {
		st.idf[i] = idf(df[i])
		if i == 0 || st.idf[i] < st.weakest {
			st.weakest = st.idf[i]
		}
	}
	for i := range minorDf {
		st.minorIdf[i] = idf(minorDf[i])
		if minorDf[i] > 0 { // a word on no line tells no passage apart
			st.minorTotal += st.minorIdf[i]
		}
	}
	wordIdf := func(w string) float64 {
		if i := slices.Index(q.terms, w); i >= 0 {
			return st.idf[i]
		}
		if i := slices.Index(q.minor, w); i >= 0 && minorDf[i] > 0 {
			return st.minorIdf[i]
		}
		return 0 // a stop word on no line: its pairs are on none, and weigh nothing
	}
	for _, pw := range q.pairs {
		st.pairIdf = append(st.pairIdf, min(wordIdf(pw[0]), wordIdf(pw[1])))
		need := uint32(0)
		for _, w := range pw {
			if i := slices.Index(q.terms, w); i >= 0 {
				need |= 1 << (i & 31)
			}
		}
		st.pairNeeds = append(st.pairNeeds, need)
	}
	return st
}

// scored is a matched note with its score and best passage.
type scored struct {
	c      *cand
	score  float64
	lo, hi int // the best passage's lines, 0-based, included
}

// score scores the matched notes by their best passages, their keys and the
// query's dates. With a limit (0: every note scored in full, as the
// embeddings' fusion reads them all), a note that cannot reach the best limit
// is not scored in full. First its bound (upperBound, read from its postings
// without scoring a passage): the notes of the highest bounds are scored in
// full, and the limit-th best of their scores is a floor every note of the
// best limit reaches; a note whose bound does not reach it is left out of
// the result. A query of more than one term then bounds the notes still over
// the floor again with their proximity read from their positions
// (nearBound), scores those of the highest such bounds and raises the floor.
// Then the query's word pairs, which re-read the note's lines:
// the others are first scored without them (a score they can only raise),
// with a bound of what they could add, and only a note whose bound reaches
// the limit-th best score so far is scored again in full. A note left at its
// first score stays below all of the best limit. The best limit and their
// passages are the full ranking's (TestSearchPruneAgrees,
// TestSearchLimitAgrees).
//
// Its space (the scores, bounds, ties and the rest) is the search's scratch,
// sc, lent from one search to the next as the candidates are: a common
// word's 100,000 matches made about 17 MB of it a query, garbage that brought
// the collector's cycles, and with them the slowest queries, closer.
func (q *query) score(matched []*cand, st lineStats, limit int, sc *searchScratch) []scored {
	exact := math.Inf(-1) // scoreOne's floor for a score in full
	if limit <= 0 || len(matched) <= limit {
		all := lent(&sc.all, len(matched))
		parallel(len(matched), func(j int) { all[j], _ = q.scoreOne(matched[j], st, exact) })
		return all
	}
	bound := lent(&sc.bound, len(matched))
	parallel(len(matched), func(j int) { bound[j] = q.upperBound(matched[j], st) })
	done := lent(&sc.done, len(matched)) // scored in full
	clear(done)
	// all grows in place up to len(matched); sc.all is given its final
	// length below, what giveBack clears.
	all := q.scoreHighest(lent(&sc.all, len(matched))[:0], matched, bound, done, st, limit, exact, sc)
	// Scores are rounded to 0.001: a bound below a floor by more than that
	// cannot tie it, and one above it by less than half of that cannot pass
	// it (ties: such a note can at most tie the floor).
	floor := limitth(all, limit, sc)
	if len(q.terms) > 1 {
		parallel(len(matched), func(j int) {
			if !done[j] && bound[j]+0.001 >= floor {
				bound[j] = min(bound[j], q.nearBound(matched[j], st))
			}
		})
		all = q.scoreHighest(all, matched, bound, done, st, limit, floor, sc)
		floor = limitth(all, limit, sc)
	}
	rest, ties := sc.rest[:0], sc.ties[:0]
	for j, b := range bound {
		switch {
		case done[j] || b+0.001 < floor:
		case b < floor+tieMargin:
			ties = append(ties, tie{matched[j], b})
		default:
			rest = append(rest, matched[j])
		}
	}
	sc.rest, sc.ties = rest, ties
	more := all[len(all) : len(all)+len(rest)]
	if len(q.pairs) == 0 {
		q.scoreEach(rest, more, st, exact)
		all = all[:len(all)+len(rest)]
	} else {
		pairs := lent(&sc.pairs, len(rest))
		parallel(len(rest), func(k int) { more[k], pairs[k] = q.scoreOne(rest[k], st, math.Inf(1)) })
		all = all[:len(all)+len(rest)]
		floor = limitth(all, limit, sc)
		parallel(len(rest), func(k int) {
			if pairs[k]+0.001 >= floor {
				more[k], _ = q.scoreOne(rest[k], st, exact)
			}
		})
	}
	all = q.scoreTies(all, ties, st, limit, sc)
	sc.all = all
	return all
}

// lent is *space at length n, grown when short (its elements are the last
// search's, or zero: the caller sets what it reads), and kept in *space.
func lent[T any](space *[]T, n int) []T {
	*space = slices.Grow((*space)[:0], n)[:n]
	return *space
}

// scoreHighest scores in full, into all, the notes not done of the 2×limit
// highest bounds among those not done whose bound reaches floor (all of a
// tie at the last), and marks them done.
func (q *query) scoreHighest(all []scored, matched []*cand, bound []float64, done []bool, st lineStats, limit int, floor float64, sc *searchScratch) []scored {
	open := sc.open[:0]
	for j, b := range bound {
		if !done[j] && b+0.001 >= floor {
			open = append(open, b)
		}
	}
	sc.open = open
	if len(open) == 0 {
		return all
	}
	cut := quickSelect(open, min(len(open), 2*limit)-1)
	var batch []*cand
	for j, b := range bound {
		if !done[j] && b >= cut && b+0.001 >= floor {
			batch, done[j] = append(batch, matched[j]), true
		}
	}
	more := all[len(all) : len(all)+len(batch)]
	parallel(len(batch), func(k int) { more[k], _ = q.scoreOne(batch[k], st, math.Inf(-1)) })
	return all[:len(all)+len(batch)]
}

// tieMargin is how far over a floor (a score rounded to 0.001) a bound may
// be and still round, with any score under it, to the floor at most: under
// half of 0.001, with room for the bounds' and the scores' float errors.
const tieMargin = 0.0004

// scoreTies scores those of ties (matched notes whose bound rounds to the
// floor at most) that could still be among the best limit, and adds them to
// all. Such a note can at most tie the limit-th best note so far, and a tie
// goes to the effective note, then the lesser path (better): a note that
// loses that order to the limit-th best stays out of the best limit whatever
// its score. When a common word's idf is about 0 every score rounds to 0, and
// this is what spares scoring every note holding it (issue 26). They are
// scored first in that order, a limit at first and twice as many each round
// (a run of notes that score under their bounds costs a few rounds, not one
// per limit), the limit-th best found again after each round.
func (q *query) scoreTies(all []scored, ties []tie, st lineStats, limit int, sc *searchScratch) []scored {
	sorted := false
	for round := limit; len(ties) > 0; round *= 2 {
		floor := limitth(all, limit, sc)
		worst := topScored(all, limit)[limit-1].c
		ties = slices.DeleteFunc(ties, func(t tie) bool { return t.bound+0.001 < floor || !tieBefore(t.c, worst) })
		if len(ties) == 0 {
			break
		}
		n := min(round, len(ties))
		switch {
		case sorted:
		case n > 64 && n < len(ties):
			slices.SortFunc(ties, func(x, y tie) int { return tieCompare(x.c, y.c) })
			sorted = true
		case n < len(ties):
			firstInTieOrder(ties, n)
		}
		pick := ties[:n]
		more := all[len(all) : len(all)+n]
		parallel(n, func(k int) { more[k], _ = q.scoreOne(pick[k].c, st, math.Inf(-1)) })
		all = all[:len(all)+n]
		ties = ties[n:]
	}
	return all
}

// tie is a matched note that can at most tie the floor, with its bound.
type tie struct {
	c     *cand
	bound float64
}

// firstInTieOrder moves the first n of ties in tie order (tieCompare) to
// its head, in that order: the head is kept in order, and a later note that
// comes before its last takes that one's place.
func firstInTieOrder(ties []tie, n int) {
	head := ties[:n]
	slices.SortFunc(head, func(x, y tie) int { return tieCompare(x.c, y.c) })
	for j := n; j < len(ties); j++ {
		if t := ties[j]; tieBefore(t.c, head[n-1].c) {
			ties[j] = head[n-1]
			i := sort.Search(n-1, func(i int) bool { return tieBefore(t.c, head[i].c) })
			copy(head[i+1:], head[i:n-1])
			head[i] = t
		}
	}
}

// tieCompare orders notes of the same score as better does: the effective
// one first, then the lesser path.
func tieCompare(x, y *cand) int {
	if x.effective != y.effective {
		if x.effective {
			return -1
		}
		return 1
	}
	return strings.Compare(x.e.Path, y.e.Path)
}

func tieBefore(x, y *cand) bool { return tieCompare(x, y) < 0 }

// limitth is the limit-th best score of all: at least limit notes score as
// much. The scores it selects among are copied into sc's space.
func limitth(all []scored, limit int, sc *searchScratch) float64 {
	scores := lent(&sc.scores, len(all))
	for k := range all {
		scores[k] = all[k].score
	}
	return quickSelect(scores, limit-1)
}

// upperBound is at least what scoreOne scores c, read from its postings'
// summaries only (lineSummary), never their occurrences. Per term, the most a
// passage can give it: on a centre line l, its occurrences there at full
// weight against a passage no shorter than l (on a heading they weigh less,
// and on a side line less than on its own line), or its heading's weight;
// proximity at most the second-best idf per occurrence on one line; the stop
// words at most their cap; every word pair the note's terms allow; the key
// and the date as scored.
func (q *query) upperBound(c *cand, st lineStats) float64 {
	if len(q.terms) == 0 {
		return q.dateOnlyBound(c)
	}
	return q.boundOf(c, st, termParts(c, st))
}

// nearBound is upperBound with its proximity read from the occurrences
// (nearest) instead of the summaries, which take every occurrence of the
// terms on a line to be next to another term's: a quoted phrase's notes all
// hold its terms, mostly on the same lines, and with that bound nearly every
// one of them was scored in full (issue 26). It reads each occurrence once,
// where it is, and decodes none.
func (q *query) nearBound(c *cand, st lineStats) float64 {
	if len(q.terms) == 0 {
		return q.dateOnlyBound(c)
	}
	b := termParts(c, st)
	b.near, b.exact = c.nearest(st.idf), true
	return q.boundOf(c, st, b)
}

// dateOnlyBound is the score of a note that a query of dates only matched.
func (q *query) dateOnlyBound(c *cand) float64 {
	if c.inDate {
		return 1 + dateBoost
	}
	return 1
}

// termParts is the per-term parts of c's bound, read from its postings'
// summaries.
func termParts(c *cand, st lineStats) boundSum {
	var b boundSum
	for i, h := range c.hits {
		if h != nil && h.n != 0 {
			b.term(i, st.idf[i], st.lineBound(h.sum), int(h.sum.peak))
		}
	}
	return b
}

// boundSum gathers the per-term parts of a candidate's upper bound: each held
// term's best passage weight, its peak of occurrences on one line, the two
// best idfs (proximity) and which terms are held (the word pairs); and the
// proximity itself when it is known exactly (exact: nearest's).
type boundSum struct {
	passage, top, second, most float64
	near                       float64
	exact                      bool
	held                       uint32
}

// term adds term i, of weight idf, at best best on a line and at most peak
// occurrences on one line.
func (b *boundSum) term(i int, idf, best float64, peak int) {
	b.held |= 1 << (i & 31)
	b.passage += idf * max(best, headWeight)
	b.most += float64(peak)
	if idf > b.top {
		b.top, b.second = idf, b.top
	} else if idf > b.second {
		b.second = idf
	}
}

// boundOf is the bound of c from its terms' parts: the stop words, the
// proximity, the word pairs, the key and the date added as scoreOne adds them.
func (q *query) boundOf(c *cand, st lineStats, b boundSum) float64 {
	passage := b.passage
	if b.held != 0 {
		if len(q.minor) > 0 && st.minorTotal > 0 {
			passage += minorWeight * st.weakest
		}
		if b.exact {
			passage += b.near
		} else {
			passage += nearWeight * b.second * max(0, b.most-1)
		}
		for k, need := range st.pairNeeds {
			if b.held&need == need {
				passage += pairWeight * st.pairIdf[k]
			}
		}
	}
	for i, k := range c.inKey {
		if k {
			passage += keyWeight * st.idf[i]
		}
	}
	if c.inDate {
		passage *= 1 + dateBoost
	}
	return passage
}

// nearest is the most proximity a line of c gives (bestPassage's on a
// centre line: each two different terms next to each other in order of
// position, by the lesser idf over their gap), read from the encoded
// occurrences where they are (occReader), each once, the terms' lists merged
// by line and position as mergeRuns merges a line's (an equal position, which
// only a stored index that lies holds, to the term first in the query).
func (c *cand) nearest(idf []float64) float64 {
	var readSpace [8]occReader // no allocation for most queries
	var curSpace [8]uint64
	var termSpace [8]int
	reads, cur, term := readSpace[:0], curSpace[:0], termSpace[:0]
	for i, h := range c.hits {
		if h == nil || h.n == 0 {
			continue
		}
		r := newOccReader(h.occ)
		if x, ok := r.next(); ok {
			reads, cur, term = append(reads, r), append(cur, x), append(term, i)
		}
	}
	if len(reads) < 2 {
		return 0 // one term: nothing next to another
	}
	best, sum := 0.0, 0.0
	line, prev, prevPos := -1, -1, 0
	for len(reads) > 0 {
		k := 0
		for j := 1; j < len(cur); j++ {
			if cur[j]&^1 < cur[k]&^1 {
				k = j
			}
		}
		x, t := cur[k], term[k]
		if l := atLine(x); l != line {
			best, sum, line, prev = max(best, sum), 0, l, -1
		}
		pos := atPos(x)
		if prev >= 0 && prev != t {
			sum += nearWeight * min(idf[t], idf[prev]) / max(1, float64(pos-prevPos))
		}
		prev, prevPos = t, pos
		if next, ok := reads[k].next(); ok {
			cur[k] = next
		} else {
			reads, cur, term = slices.Delete(reads, k, k+1), slices.Delete(cur, k, k+1), slices.Delete(term, k, k+1)
		}
	}
	return max(best, sum)
}

// sat is a term's saturation on a centre line holding it f times, in a
// passage of n terms (no fewer than f).
func (st *lineStats) sat(f, n float64) float64 {
	return f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*max(f, n)/st.avgPassage))
}

// lineBound is at least the saturation any centre line gives a term of
// summary s (upperBound). Saturation grows with the occurrences on the line
// and shrinks with the line's length: no line gives more than the peak on the
// shortest line holding the peak, or one fewer on the shortest line holding
// the term. That is the most over the lines exactly when the term is at most
// twice on any line (TestBoundSummary), and at most a little more otherwise.
func (st *lineStats) lineBound(s lineSummary) float64 {
	best := st.sat(float64(s.peak), float64(s.shortestPeak))
	if s.peak > 1 {
		best = max(best, st.sat(float64(s.peak-1), float64(s.shortest)))
	}
	return best
}

// scoreOne scores one matched note, looking for the query's word pairs only
// on the centre lines whose bound reaches floor (-Inf: on every line that
// could be the note's best, the exact score; +Inf: on none, a lower bound).
// It also returns a bound of the note's exact score.
func (q *query) scoreOne(c *cand, st lineStats, floor float64) (scored, float64) {
	sc := scored{c: c}
	c.decode()
	var body []byte
	var starts []int32
	if floor < math.Inf(1) && len(q.pairs) > 0 {
		// A body that cannot be read now (changed on disk since the
		// analysis: it is refreshed) scores without its word pairs.
		body, starts, _ = c.readLines()
	}
	var bound float64
	sc.score, bound, sc.lo, sc.hi = bestPassage(c.a, body, starts, c.hits, st, q, floor)
	for i, k := range c.inKey {
		if k {
			sc.score += keyWeight * st.idf[i]
			bound += keyWeight * st.idf[i]
		}
	}
	if len(q.terms) == 0 {
		sc.score, bound = 1, 1
	}
	if c.inDate {
		sc.score *= 1 + dateBoost
		bound *= 1 + dateBoost
	}
	sc.score = math.Round(sc.score*1000) / 1000
	return sc, math.Max(bound, sc.score)
}

// quickSelect is the k-th largest of xs (0: the largest), reordering xs.
func quickSelect(xs []float64, k int) float64 {
	lo, hi := 0, len(xs)-1
	for lo < hi {
		pivot := xs[(lo+hi)/2]
		i, j := lo, hi
		for i <= j {
			for xs[i] > pivot {
				i++
			}
			for xs[j] < pivot {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return xs[k]
		}
	}
	return xs[k]
}

// better orders scored notes: score, then the effective one, then the path.
func better(x, y *scored) bool {
	if x.score != y.score {
		return x.score > y.score
	}
	return tieBefore(x.c, y.c)
}

// topScored keeps the best limit notes in order; a full sort of every match
// costs more than the scan when a common word matches most notes.
func topScored(all []scored, limit int) []*scored {
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
	return top
}

// hitsOf makes the hits of the best notes, their passages without blank
// lines at the edges.
func hitsOf(top []*scored) []Hit {
	hits := make([]Hit, 0, len(top))
	for _, sc := range top {
		body, starts, ok := sc.c.textLines()
		if !ok {
			continue
		}
		for sc.lo < sc.hi && strings.TrimSpace(sc.c.a.text(body, starts, sc.lo, sc.lo)) == "" {
			sc.lo++
		}
		for sc.hi > sc.lo && strings.TrimSpace(sc.c.a.text(body, starts, sc.hi, sc.hi)) == "" {
			sc.hi--
		}
		hits = append(hits, Hit{NoteInfo: NoteOf(sc.c.e), Effective: sc.c.effective, Score: sc.score,
			Snippet: clip(sc.c.a.text(body, starts, sc.lo, sc.hi)), StartLine: sc.lo + 1, EndLine: sc.hi + 1, Note: sc.c.e})
	}
	return hits
}

// parallel runs f(0) … f(n-1) over the CPUs.
func parallel(n int, f func(int)) {
	parallelRange(n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			f(i)
		}
	})
}

// parallelRange splits 0 … n-1 into a run of indices per CPU, lo included
// and hi not, and calls f with each run in a goroutine of its own.
func parallelRange(n int, f func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), 1+n/500)
	if workers <= 1 {
		f(0, n)
		return
	}
	per := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += per {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			f(lo, hi)
		}(lo, min(lo+per, n))
	}
	wg.Wait()
}

// bestPassage scores every passage centred on a line holding a term and
// returns the best, with its lines (0-based, included). A note matched by its
// key only has its first lines as passage. The query's word pairs are looked
// for only on the centre lines they could still lift to the top and whose
// bound reaches floor (they are not indexed: the line of body, the note's, is
// read again); bound is what the best passage could score with every pair
// its terms allow.
func bestPassage(a *analyzed, body []byte, lineAt []int32, hits []*posting, st lineStats, q *query, floor float64) (best, bound float64, blo, bhi int) {
	minor := q.minor
	idf, avg := st.idf, st.avgPassage
	last := a.lines() - 1
	blo, bhi = 0, min(last, 2*passageReach)
	var centreSpace [64]int // no allocation for most notes
	centres := centreSpace[:0]
	for _, h := range hits {
		if h != nil {
			for _, x := range h.at {
				if l := atLine(x); len(centres) == 0 || centres[len(centres)-1] != l {
					centres = append(centres, l)
				}
			}
		}
	}
	slices.Sort(centres)
	centres = slices.Compact(centres)
	if len(centres) == 0 {
		return 0, 0, blo, bhi
	}
	// Scratch on the stack for most notes: a query has at most 32 terms.
	var inSpace, mergeSpace [64]occ
	var tfSpace [32]float64
	var asideSpace [32]bool
	var runSpace [33]int
	var baseSpace [64]float64
	var heldSpace [64]uint32
	in, merged := inSpace[:0], mergeSpace[:0]
	tf, aside := tfSpace[:0], asideSpace[:0] // aside: the term is only on a side line
	if len(hits) > len(tfSpace) {
		tf, aside = make([]float64, 0, len(hits)), make([]bool, 0, len(hits))
	}
	tf, aside = tf[:len(hits)], aside[:len(hits)]
	base, held := baseSpace[:0], heldSpace[:0] // held: the terms on each centre line, by bit
	if len(centres) > len(baseSpace) {
		base, held = make([]float64, 0, len(centres)), make([]uint32, 0, len(centres))
	}
	base, held = base[:len(centres)], held[:len(centres)]
	starts := runSpace[:0]
	var minorLines [][]int32 // per minor word, the lines holding it
	for j, c := range centres {
		lo, hi := max(0, c-passageReach), min(last, c+passageReach)
		in, starts = in[:0], starts[:0]
		clear(tf)
		for i, h := range hits {
			if h == nil {
				continue
			}
			starts = append(starts, len(in)) // each term's are in order
			// A term on the centre line counts in full; one only on the side
			// lines counts less (context, not the statement).
			centre, side := 0.0, 0.0
			for _, x := range h.at {
				if l := atLine(x); l >= lo && l <= hi {
					w := 1.0
					if len(a.heads) > 0 && a.headOf(l) == int32(l) {
						w = headWeight // a heading is a field of its own
					}
					if l == c {
						centre += w
						in = append(in, occ{atPos(x), i})
						held[j] |= 1 << (i & 31)
					} else {
						side += w
					}
				}
			}
			tf[i], aside[i] = centre, centre == 0 && side > 0
			if aside[i] {
				tf[i] = min(side, 1)
			}
		}
		n := 0.0
		for l := lo; l <= hi; l++ {
			n += float64(a.lineLen.at(l))
		}
		s := 0.0
		for i, f := range tf {
			if f > 0 {
				w := 1.0
				if aside[i] {
					w = sideWeight
				}
				s += w * idf[i] * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*n/avg))
			} else if h := a.headOf(c); h >= 0 && hits[i] != nil {
				for _, x := range hits[i].at {
					if int32(atLine(x)) == h {
						s += headWeight * idf[i]
						break
					}
				}
			}
		}
		// The query's small words on the centre line tell apart passages
		// with the same terms ("visiting from" against "visit sometime").
		// Together they weigh at most minorWeight of the query's weakest
		// term: they never outrank a line holding one more term.
		// (A query whose stop words are on no line in scope has none to
		// weigh: 0/0 would make every passage NaN.)
		if len(minor) > 0 && st.minorTotal > 0 {
			if minorLines == nil {
				minorLines = a.minorLines(minor)
			}
			m := 0.0
			for i := range minor {
				if _, ok := slices.BinarySearch(minorLines[i], int32(c)); ok {
					m += st.minorIdf[i]
				}
			}
			s += minorWeight * st.weakest * m / st.minorTotal
		}
		// Proximity: different terms next to each other on the centre line.
		in, merged = mergeRuns(in, starts, merged)
		for k := 1; k < len(in); k++ {
			if in[k].term != in[k-1].term {
				// (A position is one term's: the gap is never 0, even in a
				// stored index that lies.)
				gap := max(1, float64(in[k].pos-in[k-1].pos))
				s += nearWeight * min(idf[in[k].term], idf[in[k-1].term]) / gap
			}
		}
		base[j] = s
	}
	// Pairs of the query's words, stop words included, in its order on the
	// centre line ("moving to", "to the airport"): a phrase the question
	// shares with the answer.
	top := slices.Max(base)
	best = -1 // ties go to the earliest passage
	for j, c := range centres {
		s := base[j]
		// A pair can be on the line only if its terms are.
		reach := 0.0
		for k, need := range st.pairNeeds {
			if held[j]&need == need {
				reach += pairWeight * st.pairIdf[k]
			}
		}
		bound = max(bound, s+reach)
		if reach > 0 && s+reach >= top && s+reach >= floor {
			s += pairWeight * a.pairsOn(body, lineAt, c, q.pairs, st.pairIdf)
		}
		lo := max(0, c-passageReach)
		if s > best || s == best && lo < blo {
			best, blo, bhi = s, lo, min(last, c+passageReach)
		}
	}
	return best, bound, blo, bhi
}

// minorLines is the lines holding each of words, stop words.
func (a *analyzed) minorLines(words []string) [][]int32 {
	out := make([][]int32, len(words))
	var all []int32
	for i, w := range words {
		lo := len(all)
		all = a.minor.lines(all, w)
		out[i] = all[lo:len(all):len(all)]
	}
	return out
}

// occ is a term of the query at a position of a passage's centre line.
type occ struct {
	pos  int
	term int
}

// mergeRuns orders in by position: each run, from starts[k] to the next
// start, is in order already. It returns the ordered occurrences and the
// other buffer, free to be the next spare.
func mergeRuns(in []occ, starts []int, spare []occ) (sorted, free []occ) {
	for len(starts) > 1 {
		out := spare[:0]
		next := starts[:0]
		for k := 0; k < len(starts); k += 2 {
			next = append(next, len(out))
			a := in[starts[k]:runEnd(in, starts, k)]
			if k+1 == len(starts) {
				out = append(out, a...)
				break
			}
			b := in[starts[k+1]:runEnd(in, starts, k+1)]
			for len(a) > 0 && len(b) > 0 {
				if b[0].pos < a[0].pos {
					out, b = append(out, b[0]), b[1:]
				} else {
					out, a = append(out, a[0]), a[1:]
				}
			}
			out = append(append(out, a...), b...)
		}
		in, spare, starts = out, in, next
	}
	return in, spare
}

// runEnd is where run k of in ends.
func runEnd(in []occ, starts []int, k int) int {
	if k+1 < len(starts) {
		return starts[k+1]
	}
	return len(in)
}

// pairsOn sums the weights of the pairs of words on line l of body.
func (a *analyzed) pairsOn(body []byte, starts []int32, l int, pairs []wordPair, weight []float64) float64 {
	if body == nil {
		return 0
	}
	var seen uint32
	prev, sum := "", 0.0
	tokens(string(body[starts[l]:starts[l+1]]), func(w string, _ bool) {
		if prev != "" {
			if i := slices.Index(pairs, wordPair{prev, w}); i >= 0 && seen&(1<<i) == 0 {
				seen |= 1 << i
				sum += weight[i]
			}
		}
		prev = w
	})
	return sum
}

// clip shortens a snippet to maxSnippet bytes, on a rune boundary.
func clip(s string) string {
	if len(s) <= maxSnippet {
		return s
	}
	end := maxSnippet
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + "…"
}
