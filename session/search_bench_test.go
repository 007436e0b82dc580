package session

import (
	"os"
	"strconv"
	"testing"

	"github.com/magicfrog/mf-lsp/engine/participant"
)

// magicfrog.search in process on the navigation benchmark's tree
// (MF_BENCH_NOTES notes, default 10,000; most of them in the participant's
// scope): "warm" is every search after the first, the participant and its
// index kept on the tree; "fresh" is what a search would cost if each made
// its participant anew (the whole index built again); "participant-kept" is
// engine/participant's search alone, warm, for what the session adds (the
// snapshot, the cache's look-up, placing ten passages). The tree's words come
// from a vocabulary of 40, so nearly every note matches every query: the worst
// case for ranking, far above engine/participant's BenchmarkSearch (prose,
// 2,000 words), which holds the targets:
//
//	go test ./session -run '^$' -bench SearchCommand -benchtime 20x
func BenchmarkSearchCommand(b *testing.B) {
	n := 10_000
	if v, err := strconv.Atoi(os.Getenv("MF_BENCH_NOTES")); err == nil && v > 0 {
		n = v
	}
	s, _, _ := navBenchSession(b, n)
	snap, err := s.Snapshot("")
	if err != nil {
		b.Fatal(err)
	}
	queries := []string{"deploy review budget", "prefer the client cache", "never render before config", "token index query"}
	if _, err := Search(snap, SearchArgs{Query: queries[0]}); err != nil {
		b.Fatal(err)
	}
	b.Run("warm", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			snap, err := s.Snapshot("")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Search(snap, SearchArgs{Query: queries[i%len(queries)]}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("participant-kept", func(b *testing.B) {
		p, err := participant.New(snap.Memory, participant.Options{Scope: snap.Participant, Today: snap.Today.String()})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Search(queries[0], 0); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := p.Search(queries[i%len(queries)], 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fresh", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			p, err := participant.New(snap.Memory, participant.Options{Scope: snap.Participant, Today: snap.Today.String()})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := p.Search(queries[i%len(queries)], 0); err != nil {
				b.Fatal(err)
			}
		}
	})
}
