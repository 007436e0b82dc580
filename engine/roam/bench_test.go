package roam

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// tenThousand writes n notes into a machine's user and agent roots.
func tenThousand(b *testing.B, mc *machine, n int) {
	for i := 0; i < n; i++ {
		dim := "user"
		if i%2 == 1 {
			dim = "agent/larry"
		}
		p := filepath.Join(mc.data, "memory", dim, fmt.Sprintf("topic-%02d", i%50), fmt.Sprintf("note-%05d.md", i))
		must(b, os.MkdirAll(filepath.Dir(p), 0o755))
		body := fmt.Sprintf("---\nrevision: 1\nupdated: 2026-11-30T09:00:00.000Z\n---\nNote %d: prefer small functions; name things for what they are.\nKeep tests close to the code.\n", i)
		must(b, os.WriteFile(p, []byte(body), 0o644))
	}
	mc.reopen()
}

// BenchmarkSync measures a sync of 10,000 notes to a folder remote: the
// first one (everything is scanned for secrets, stored and pushed), and an
// incremental one after one note changed.
func BenchmarkSync(b *testing.B) {
	const n = 10000
	dir := b.TempDir()
	mc := newMachine(b, dir, "a")
	tenThousand(b, mc, n)
	sync := func(remote string) *Report {
		rep, err := Sync(context.Background(), Options{Memory: mc.m, Remote: remote})
		if err != nil {
			b.Fatal(err)
		}
		return rep
	}
	runs := 0
	b.Run("first", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			must(b, os.RemoveAll(filepath.Join(mc.data, "sync")))
			runs++
			remote := bareRemote(b, filepath.Join(dir, fmt.Sprintf("first-%d", runs)))
			b.StartTimer()
			if rep := sync(remote); len(rep.Pushed) != n {
				b.Fatalf("pushed %d", len(rep.Pushed))
			}
		}
	})
	remote := bareRemote(b, filepath.Join(dir, "incremental"))
	must(b, os.RemoveAll(filepath.Join(mc.data, "sync")))
	sync(remote)
	note := filepath.Join(mc.data, "memory", "user", "topic-00", "note-00000.md")
	b.Run("incremental", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			runs++
			body := fmt.Sprintf("---\nrevision: %d\nupdated: 2026-11-30T09:00:00.000Z\n---\nEdited %d.\n", runs+1, runs)
			must(b, os.WriteFile(note, []byte(body), 0o644))
			b.StartTimer()
			if rep := sync(remote); len(rep.Pushed) != 1 {
				b.Fatalf("pushed %+v", rep.Pushed)
			}
		}
	})
}
