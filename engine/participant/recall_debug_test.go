package participant_test

import (
	"os"
	"strings"
	"testing"
)

// TestRecallDebug prints the benchmark's misses (RECALL_DEBUG=1) or its
// snippet misses (RECALL_DEBUG=snip): the question, the note and lines
// expected, and what ranked first instead, with the expected note's own rank
// and passage.
func TestRecallDebug(t *testing.T) {
	if os.Getenv("RECALL_DEBUG") == "" {
		t.Skip()
	}
	c := genRecall(1, 180)
	p := recallTree(t, c)
	for _, q := range c.questions {
		res, _ := p.Search(q.q, 100)
		rank := -1
		for i, h := range res.Hits {
			if h.Key == q.key {
				rank = i
				break
			}
		}
		if rank >= 0 && rank < 5 && os.Getenv("RECALL_DEBUG") == "snip" {
			h := res.Hits[rank]
			for _, ev := range q.evidence {
				if !strings.Contains(normSpace(h.Snippet), normSpace(strings.TrimPrefix(ev, "- "))) {
					t.Logf("SNIP %s: %q not in %q", q.q, ev, h.Snippet)
				}
			}
			continue
		}
		if rank != 0 && os.Getenv("RECALL_DEBUG") != "snip" {
			t.Logf("MISS rank %d: %s -> want %s %q", rank, q.q, q.key, q.evidence)
			for _, h := range res.Hits[:min(2, len(res.Hits))] {
				t.Logf("   got %s %.2f %q", h.Key, h.Score, h.Snippet)
			}
			if rank > 0 {
				h := res.Hits[rank]
				t.Logf("   want's %.2f %q", h.Score, h.Snippet)
			}
		}
	}
}
