package engine

import (
	"sync/atomic"

	"github.com/magicfrog/mf-lsp/engine/internal/o200k"
)

// Tokens counts text in o200k_base tokens, the encoding of current OpenAI models,
// with a real BPE tokenizer: characters / 4 is off by 2× on code and non-English
// text, and a budget is only as good as its count. The counter is our own
// (engine/internal/o200k), tested piece for piece and count for count against
// tiktoken-go, whose regexp2 dependency built Unicode tables in every process
// at start, a third of what `version` ran.
func Tokens(text string) int {
	tokenizerRuns.Add(1)
	return o200k.Count(text)
}

// tokenizerRuns counts Tokens calls, for tests that check what did not run.
var tokenizerRuns atomic.Int64

// noteCounts is what counting a note keeps: token counts + 1 (0 until
// counted) of the body and of the block's element, skill line and omitted
// line for the note, and the element and omitted line themselves.
type noteCounts struct {
	tokens, elemTokens, skillLineTokens, omitTokens atomic.Int32
	elem, omit                                      atomic.Pointer[string] // the block's <note> element and <omitted/> line
}

// counted is the note's counts, made on first use.
func (e *Note) counted() *noteCounts {
	if c := e.counts.Load(); c != nil {
		return c
	}
	e.counts.CompareAndSwap(nil, &noteCounts{})
	return e.counts.Load()
}

// Tokens is the size of the note's body in tokens, counted once (and kept in
// c, when there is one: the memory's own is Memory.TokenCache).
// Its error is Text's.
func (e *Note) Tokens(c *TokenCache) (int, error) {
	cs := e.counted()
	if n := cs.tokens.Load(); n > 0 {
		return int(n - 1), nil
	}
	body, err := e.Body()
	if err != nil {
		return 0, err
	}
	n := c.count(string(body))
	cs.tokens.Store(int32(n + 1))
	return n, nil
}

// KnownTokens is the size of the note's body in tokens when knowing it runs no
// tokenizer: counted before in this process, or in c. Counting a 64 KB note
// takes about 3 ms, and the first count builds the vocabulary's table (3.6 MB,
// 10 ms), over hover's 2 ms, so hover shows a count only when it is known
// (docs/protocol.md) rather than count for one line.
func (e *Note) KnownTokens(c *TokenCache) (int, bool) {
	if cs := e.counts.Load(); cs != nil {
		if n := cs.tokens.Load(); n > 0 {
			return int(n - 1), true
		}
	}
	body, err := e.Body()
	if err != nil {
		return 0, false
	}
	n, ok := c.lookup(body)
	if !ok {
		return 0, false
	}
	e.counted().tokens.Store(int32(n + 1))
	return n, true
}

// element is the note's <note> element, built once for a small note kept
// whole: rendering at 100,000 notes concatenates, it does not rebuild (a note
// is replaced whole when its file changes, so the cache never goes stale). A
// note whose text is read on demand, or larger than ResidentMax, builds it at
// each render: kept, it would be the text again (1.9 GB of peak RSS for a
// render at 100,000 notes of 8-64 KB, where the text in scope is 730 MB).
// Its error is Text's.
func (e *Note) element() (string, error) {
	if el, ok := e.cachedElement(); ok {
		return el, nil
	}
	el, err := noteElement(e)
	if err != nil {
		return "", err
	}
	if e.Resident() && e.Size() <= ResidentMax {
		e.counted().elem.Store(&el)
	}
	return el, nil
}

// cachedElement is the note's element when element kept it.
func (e *Note) cachedElement() (string, bool) {
	if p := e.counted().elem.Load(); p != nil {
		return *p, true
	}
	return "", false
}

// elementTokens is the size of the note's <note> element in the block, counted
// once: rendering at 100,000 notes must not run the tokenizer again.
func (e *Note) elementTokens(c *TokenCache) (int, error) {
	n := &e.counted().elemTokens
	if v := n.Load(); v > 0 {
		return int(v - 1), nil
	}
	el, err := e.element()
	if err != nil {
		return 0, err
	}
	v := c.count(el)
	n.Store(int32(v + 1))
	return v, nil
}

// skillTokens is the size of the note's <skill/> line (its file named from
// project: one memory has one project, so the count is cached with the note).
func (e *Note) skillTokens(c *TokenCache, project string) int {
	return cachedCount(c, &e.counted().skillLineTokens, func() string { return skillLine(e, project) })
}

// omittedLine is the note's <omitted/> line under a budget, built once. It names
// the tokens of the note's element: the line would be a note or a skill line,
// and a skill's element is its skill line.
func (e *Note) omittedLine(c *TokenCache, project string) (string, error) {
	cs := e.counted()
	if p := cs.omit.Load(); p != nil {
		return *p, nil
	}
	var n int
	if e.Layer.IsSkills() {
		n = e.skillTokens(c, project)
	} else {
		var err error
		if n, err = e.elementTokens(c); err != nil {
			return "", err
		}
	}
	line := omittedLine(e, n, "budget")
	cs.omit.Store(&line)
	return line, nil
}

// omittedTokens is the size of the note's <omitted/> line.
func (e *Note) omittedTokens(c *TokenCache, project string) (int, error) {
	n := &e.counted().omitTokens
	if v := n.Load(); v > 0 {
		return int(v - 1), nil
	}
	line, err := e.omittedLine(c, project)
	if err != nil {
		return 0, err
	}
	v := c.count(line)
	n.Store(int32(v + 1))
	return v, nil
}

func cachedCount(c *TokenCache, n *atomic.Int32, text func() string) int {
	if v := n.Load(); v > 0 {
		return int(v - 1)
	}
	v := c.count(text())
	n.Store(int32(v + 1))
	return v
}
