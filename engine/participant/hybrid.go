package participant

import (
	"context"
	"math"
	"sort"
	"strings"
	"sync"
	"time"
)

// Hybrid search (issue 26): with an embedding provider configured, every
// note in scope is cut into chunks of a few lines, each embedded once (cached
// by content in memory and in the user's cache directory); a query is
// embedded too, a note ranks by its closest chunk, and that ranking is fused
// with the keyword ranking by reciprocal rank fusion. An endpoint that fails
// costs the fusion only: the keyword answer comes back with a warning.

const (
	chunkLines = 4   // lines of a chunk
	rrfK       = 60  // reciprocal rank fusion's constant: 1/(rrfK + rank)
	rrfDepth   = 100 // ranks of each list that are fused
	// embedTimeout bounds what one search waits for the endpoint.
	embedTimeout = 60 * time.Second
)

// chunk is lines lo..hi (0-based, included) of a note and their vector.
type chunk struct {
	lo, hi int
	vec    []float32
}

// noteChunks is a note's chunks, for the content hash they were made of.
type noteChunks struct {
	hash   [32]byte
	chunks []chunk
}

// embedIndex is the participant's embedded chunks by note path.
type embedIndex struct {
	mu    sync.Mutex
	notes map[string]*noteChunks
}

// semHit is a note the embeddings rank, with its closest chunk.
type semHit struct {
	c      *cand
	cos    float64
	lo, hi int
}

// semantic ranks cands by their closest chunk to the query text, closest
// first, the first rrfDepth. With every note in scope as cands, the chunks of
// notes that left the scope are dropped.
func (p *Participant) semantic(text string, cands []*cand, every bool) ([]semHit, error) {
	ctx, cancel := context.WithTimeout(context.Background(), embedTimeout)
	defer cancel()
	ix := &p.embedIx
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.notes == nil {
		ix.notes = map[string]*noteChunks{}
	}
	// Chunk the notes that are new or changed, and embed what they need.
	type want struct {
		path string
		nc   *noteChunks
		i    int
	}
	var texts []string
	var wants []want
	live := make(map[string]bool, len(cands))
	for _, c := range cands {
		live[c.e.Path] = true
		if nc := ix.notes[c.e.Path]; nc != nil && nc.hash == c.a.hash {
			continue
		}
		nc := &noteChunks{hash: c.a.hash}
		body, starts, ok := c.textLines()
		if !ok {
			ix.notes[c.e.Path] = nc // no chunks: it changed on disk
			continue
		}
		for lo := 0; lo < c.a.lines(); lo += chunkLines {
			hi := min(c.a.lines()-1, lo+chunkLines-1)
			t := strings.TrimSpace(c.a.text(body, starts, lo, hi))
			if t == "" {
				continue
			}
			nc.chunks = append(nc.chunks, chunk{lo: lo, hi: hi})
			texts = append(texts, clip(t))
			wants = append(wants, want{c.e.Path, nc, len(nc.chunks) - 1})
		}
		ix.notes[c.e.Path] = nc
	}
	texts = append(texts, text)
	vecs, err := p.embed.Embed(ctx, texts)
	if err != nil {
		// Leave no note half embedded.
		for _, w := range wants {
			delete(ix.notes, w.path)
		}
		return nil, err
	}
	for j, w := range wants {
		w.nc.chunks[w.i].vec = vecs[j]
	}
	qv := vecs[len(vecs)-1]
	for path := range ix.notes {
		if every && !live[path] {
			delete(ix.notes, path)
		}
	}
	out := make([]semHit, 0, len(cands))
	for _, c := range cands {
		best := semHit{c: c, cos: math.Inf(-1)}
		for _, ch := range ix.notes[c.e.Path].chunks {
			if cos := cosine(qv, ch.vec); cos > best.cos {
				best.cos, best.lo, best.hi = cos, ch.lo, ch.hi
			}
		}
		if best.cos > 0 {
			out = append(out, best)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].cos != out[j].cos {
			return out[i].cos > out[j].cos
		}
		return out[i].c.e.Path < out[j].c.e.Path
	})
	return out[:min(len(out), rrfDepth)], nil
}

// fuse merges the keyword ranking and the embeddings' by reciprocal rank
// fusion: a note's score is the sum of 1/(rrfK + rank) over the lists that
// hold it (× 1000, to read), its passage the keyword one where it has one.
// It returns the best limit and how many notes either list found.
func fuse(all []scored, sem []semHit, limit int) ([]*scored, int) {
	kw := topScored(all, rrfDepth)
	byCand := map[*cand]*scored{}
	var order []*scored
	for i, sc := range kw {
		f := &scored{c: sc.c, lo: sc.lo, hi: sc.hi, score: 1.0 / float64(rrfK+i+1)}
		byCand[sc.c] = f
		order = append(order, f)
	}
	inAll := make(map[*cand]bool, len(all))
	for j := range all {
		inAll[all[j].c] = true
	}
	total := len(all)
	for i, h := range sem {
		f := byCand[h.c]
		if f == nil {
			f = &scored{c: h.c, lo: h.lo, hi: h.hi}
			byCand[h.c] = f
			order = append(order, f)
			if !inAll[h.c] {
				total++
			}
		}
		f.score += 1.0 / float64(rrfK+i+1)
	}
	for _, f := range order {
		f.score = math.Round(f.score*1e6) / 1e3
	}
	sort.SliceStable(order, func(i, j int) bool { return better(order[i], order[j]) })
	return order[:min(len(order), limit)], total
}

// cosine is the cosine of two normalized vectors (0 when their lengths differ).
func cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	s := 0.0
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}
