package participant_test

import (
	"os"
	"strings"
	"testing"
)

func TestRecallDebug(t *testing.T) {
	if os.Getenv("RECALL_DEBUG") == "" {
		t.Skip()
	}
	c := genRecall(1, 120)
	p := recallTree(t, c)
	for _, q := range c.questions {
		res, _ := p.Search(q.q, 5)
		rank := -1
		for i, h := range res.Hits {
			if h.Key == q.key {
				rank = i
			}
		}
		if rank >= 0 && os.Getenv("RECALL_DEBUG") == "snip" {
			h := res.Hits[rank]
			for _, ev := range q.evidence {
				if !strings.Contains(normSpace(h.Snippet), normSpace(strings.TrimPrefix(ev, "- "))) {
					t.Logf("SNIP %s: %q not in %q", q.q, ev, h.Snippet)
				}
			}
			continue
		}
		if rank != 0 {
			t.Logf("MISS rank %d: %s -> want %s %q", rank, q.q, q.key, q.evidence)
			for _, h := range res.Hits[:min(2, len(res.Hits))] {
				t.Logf("   got %s %.2f %q", h.Key, h.Score, h.Snippet)
			}
		}
	}
}
