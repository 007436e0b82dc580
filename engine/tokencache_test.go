package engine_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
)

// TestRenderWithoutBudgetDoesNotTokenize: without a budget nothing reads a
// count, so the tokenizer does not run; CountTokens still counts on request.
func TestRenderWithoutBudgetDoesNotTokenize(t *testing.T) {
	m := budgetTree(t)
	before := engine.TokenizerRuns()
	blk := render(t, m, engine.RenderOptions{})
	if n := engine.TokenizerRuns() - before; n != 0 {
		t.Errorf("rendering without a budget ran the tokenizer %d times", n)
	}
	if blk.Tokens != 0 {
		t.Errorf("Block.Tokens = %d without a budget, want 0 until CountTokens", blk.Tokens)
	}
	if got, want := blk.CountTokens(), engine.Tokens(blk.Text); got != want {
		t.Errorf("CountTokens() = %d, the text counts %d", got, want)
	}
}

// budgetRenders renders a fresh copy of the budget tree (no counts held by
// its notes, as in a new process) at every budget from 1 past the full
// block, and returns each block's text and size.
func budgetRenders(t *testing.T, c *engine.TokenCache) []string {
	t.Helper()
	m := budgetTreeIn(t, c)
	full := render(t, m, engine.RenderOptions{}).CountTokens()
	m = budgetTreeIn(t, c)
	var out []string
	for budget := 1; budget <= full+10; budget += 3 {
		blk := render(t, m, engine.RenderOptions{Budget: budget})
		out = append(out, strconv.Itoa(blk.Tokens)+"\n"+blk.Text)
	}
	return out
}

// budgetTreeIn is budgetTree loaded with token cache c.
func budgetTreeIn(t *testing.T, c *engine.TokenCache) *engine.Memory {
	t.Helper()
	m := budgetTree(t)
	m, err := engine.Open(engine.Options{DataDir: m.Paths.DataDir, ProjectDir: m.Paths.ProjectDir, TokenCache: c})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// openTokenCache is the token cache in dir as a new process opens it.
func openTokenCache(dir string) *engine.TokenCache { return engine.OpenTokenCache(dir) }

func sameRenders(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d renders, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: render %d differs:\n%s\nwant:\n%s", what, i, got[i], want[i])
		}
	}
}

// TestTokenCacheSameDecisions: a budget decides the same with no cache, an
// empty one and a full one, byte for byte; the second boot of an unchanged
// tree does not tokenize at all.
func TestTokenCacheSameDecisions(t *testing.T) {
	want := budgetRenders(t, nil)
	dir := t.TempDir()
	sameRenders(t, "empty cache", budgetRenders(t, openTokenCache(dir)), want)
	if _, err := os.Stat(filepath.Join(dir, engine.TokenCacheFile)); err != nil {
		t.Fatalf("no cache written: %v", err)
	}
	c := openTokenCache(dir) // a new process
	before := engine.TokenizerRuns()
	sameRenders(t, "full cache", budgetRenders(t, c), want)
	if n := engine.TokenizerRuns() - before; n != 0 {
		t.Errorf("with every count cached the tokenizer still ran %d times", n)
	}
}

// TestTokenCacheDamaged: a damaged record, a file cut short, garbage and a
// cache from another tokenizer version are detected and ignored (counted
// again, never trusted), and the next write leaves a healthy cache.
func TestTokenCacheDamaged(t *testing.T) {
	want := budgetRenders(t, nil)
	dir := t.TempDir()
	file := filepath.Join(dir, engine.TokenCacheFile)
	budgetRenders(t, openTokenCache(dir))
	good, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	header := good[:bytes.IndexByte(good, '\n')+1]
	records := good[len(header):]
	if len(records) == 0 || len(records)%24 != 0 {
		t.Fatalf("cache of %d bytes after the header, want whole 24-byte records", len(records))
	}
	// Every record's count off by one, its checksum left alone: if a damaged
	// record were trusted, every budget decision would move.
	offByOne := append([]byte(nil), good...)
	for i := len(header); i < len(offByOne); i += 24 {
		offByOne[i+16]++
	}
	otherVersion := append(bytes.Replace(header, []byte("o200k@"), []byte("o200k@9-"), 1), records...)
	for name, damaged := range map[string][]byte{
		"records damaged":          offByOne,
		"cut mid-record":           good[:len(good)-5],
		"garbage":                  []byte("not a token cache\x00\xff"),
		"another tokenizer":        otherVersion,
		"header only":              header,
		"empty file":               {},
		"records without a header": records,
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(file, damaged, 0o600); err != nil {
				t.Fatal(err)
			}
			before := engine.TokenizerRuns()
			sameRenders(t, name, budgetRenders(t, openTokenCache(dir)), want)
			if engine.TokenizerRuns() == before {
				t.Errorf("the tokenizer never ran: the damaged cache was trusted")
			}
			c := openTokenCache(dir) // the next process reads what the last one wrote
			before = engine.TokenizerRuns()
			sameRenders(t, name+", rewritten", budgetRenders(t, c), want)
			if n := engine.TokenizerRuns() - before; n != 0 {
				t.Errorf("after the rewrite the tokenizer still ran %d times", n)
			}
		})
	}
}

// TestTokenCacheUnwritable: a cache folder that cannot be written costs speed,
// never a render.
func TestTokenCacheUnwritable(t *testing.T) {
	want := budgetRenders(t, nil)
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	c := openTokenCache(filepath.Join(blocker, "mf-lsp")) // below a file: never a folder
	sameRenders(t, "unwritable cache", budgetRenders(t, c), want)
	if err := c.Flush(); err != nil {
		t.Logf("flush: %v (expected to fail quietly)", err)
	}
}

// TestBudgetCountsInParallel: a scope large enough to count on every CPU
// decides exactly as counting on one does (run it with -race too).
func TestBudgetCountsInParallel(t *testing.T) {
	files := map[string]string{}
	for i := range 300 {
		files[fmt.Sprintf("data/memory/user/notes/n%03d.md", i)] = note(1, strings.Repeat(fmt.Sprintf("user note %d says something. ", i), 1+i%7))
	}
	for i := range 20 {
		files[fmt.Sprintf("data/memory/user/skills/s%02d.md", i)] = fmt.Sprintf("---\nrevision: 1\nname: s%02d\ndescription: Skill %d\n---\nSteps.\n", i, i)
	}
	renders := func() []string {
		var out []string
		for _, budget := range []int{1, 500, 2000, 8000, 1 << 20} {
			_, m := makeTree(t, files)
			blk := render(t, m, engine.RenderOptions{Budget: budget})
			out = append(out, strconv.Itoa(blk.Tokens)+"\n"+blk.Text)
		}
		return out
	}
	prev := runtime.GOMAXPROCS(1)
	serial := renders()
	runtime.GOMAXPROCS(max(prev, 4))
	defer runtime.GOMAXPROCS(prev)
	sameRenders(t, "counted on 4 CPUs", renders(), serial)
}

// TestCountTokensWithUnregisteredNotes: the count of a block rendered without
// a budget includes the lines naming notes of unregistered folders.
func TestCountTokensWithUnregisteredNotes(t *testing.T) {
	_, m := makeTree(t, map[string]string{
		"data/memory/agent/stranger/notes/x.md": note(1, "a note of a folder no roster names"),
	})
	blk := render(t, m, engine.RenderOptions{})
	if !strings.Contains(blk.Text, "unregistered") {
		t.Fatalf("no unregistered line in:\n%s", blk.Text)
	}
	if got, want := blk.CountTokens(), engine.Tokens(blk.Text); got != want {
		t.Errorf("CountTokens() = %d, the text counts %d", got, want)
	}
}

// TestKnownTokensRunsNoTokenizer: a note's size is known once counted, in this
// process or (through the persistent cache) in an earlier one, and asking
// never runs the tokenizer.
func TestKnownTokensRunsNoTokenizer(t *testing.T) {
	c := openTokenCache(t.TempDir())
	long := func(m *engine.Memory) *engine.Note {
		for _, n := range m.Notes() {
			if strings.HasSuffix(n.Path, "long.md") {
				return n
			}
		}
		t.Fatal("no long.md in the budget tree")
		return nil
	}
	before := engine.TokenizerRuns()
	if n, ok := long(budgetTreeIn(t, c)).KnownTokens(c); ok {
		t.Errorf("KnownTokens() = %d before any count; want unknown", n)
	}
	if n := engine.TokenizerRuns() - before; n != 0 {
		t.Errorf("KnownTokens ran the tokenizer %d times", n)
	}
	want, _ := long(budgetTreeIn(t, c)).Tokens(c) // counted, and kept in the cache
	fresh := long(budgetTreeIn(t, c))             // a new load, as in the next process
	before = engine.TokenizerRuns()
	if n, ok := fresh.KnownTokens(c); !ok || n != want {
		t.Errorf("KnownTokens() = %d, %v after a count in the cache; want %d, true", n, ok, want)
	}
	if n := engine.TokenizerRuns() - before; n != 0 {
		t.Errorf("KnownTokens ran the tokenizer %d times", n)
	}
}
