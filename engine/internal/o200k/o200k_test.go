package o200k

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dlclark/regexp2/v2"
	"github.com/tiktoken-go/tokenizer"
	"pgregory.net/rapid"
)

const pattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`

var alphabet = []string{"a", "Z", "s", "S", "t", "l", "L", "d", "e", "r", "v", "m", "7", "0", " ", "\t", "\r", "\n", "'", "ſ", "\u01c5", "\u02b0", "あ", "中", "\u0301", "٣", "\u00a0", "\u0085", "\u2028", "\u3000", "\u200b", "\ufeff", "\u1680", ".", ",", "!", "/", "😀", "\xff", "\xe2\x82", "\x7f", "\v", "\f", "\r\n", "  ", "\u2029"}

type tb interface {
	Fatal(...any)
	Fatalf(string, ...any)
}

// tricky is text of up to 64 runes, mostly from alphabet (the classes'
// edges, spaces and line breaks, contractions) and sometimes any rune.
func tricky(t *rapid.T) string {
	n := rapid.IntRange(0, 64).Draw(t, "n")
	rune1 := rapid.Map(rapid.Rune(), func(r rune) string { return string(r) })
	var b strings.Builder
	for i := 0; i < n; i++ {
		if rapid.IntRange(0, 3).Draw(t, "any") == 0 {
			b.WriteString(rune1.Draw(t, "rune"))
		} else {
			b.WriteString(rapid.SampledFrom(alphabet).Draw(t, "part"))
		}
	}
	return b.String()
}

func splitOracle(t tb, s string) []string {
	re := regexp2.MustCompile(pattern, regexp2.None)
	var out []string
	m, err := re.FindStringMatch(s)
	for ; m != nil && err == nil; m, err = re.FindNextMatch(m) {
		out = append(out, m.String())
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func split(s string) []string {
	var out []string
	pieces([]rune(s), func(piece []rune) { out = append(out, string(piece)) })
	return out
}

func oracleCount(t tb, s string) int {
	c, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	n, err := c.Count(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// check fails at the first piece where the split differs from regexp2's,
// with a few pieces either side, then compares the counts.
func check(t tb, s string) {
	got, want := split(s), splitOracle(t, s)
	for i := 0; i < max(len(got), len(want)); i++ {
		if i >= len(got) || i >= len(want) || got[i] != want[i] {
			lo := max(0, i-2)
			t.Fatalf("split of %d bytes differs at piece %d: got %q want %q", len(s), i, got[lo:min(i+3, len(got))], want[lo:min(i+3, len(want))])
		}
	}
	if got, want := Count(s), oracleCount(t, s); got != want {
		t.Fatalf("count %q: got %d want %d", s, got, want)
	}
}

// The cases where regexp2 runs the pattern otherwise than its text says,
// each found by the property below or on the repository's files.
func TestRegexp2Quirks(t *testing.T) {
	for _, s := range []string{
		"\x7f", "a\x7fb", "!\x7f!", " \x7f", "\v\v\v\x7f\x7f",
		"\n \n", "\r\t\r", "\n\r\t\r", "line\n  \n\nnext", "a \n\t\n  b",
	} {
		check(t, s)
	}
}

// spaces is the few runes whose runs the last four alternatives split, so
// that their orders come up often.
var spaces = []string{" ", "\t", "\n", "\r", "\v", "\u00a0", "\u2028", "a", "A", "!", "7", "\x7f"}

func TestSplitAndCountMatchTiktoken(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		if rapid.Bool().Draw(t, "spacey") {
			check(t, strings.Join(rapid.SliceOfN(rapid.SampledFrom(spaces), 0, 24).Draw(t, "spaces"), ""))
			return
		}
		check(t, tricky(t))
	})
}

func TestRepositoryFiles(t *testing.T) {
	root := "../../.."
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(path)
		if ext != ".md" && ext != ".txtar" && !strings.Contains(path, "/testdata/") && !strings.Contains(path, "/docs/") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil || len(b) > 1<<20 {
			return nil
		}
		check(t, string(b))
		return nil
	})
}

// letters is a small alphabet whose runs merge often and in overlapping ways
// ("aaa": the pair at 0 and the pair at 1 have the same rank).
var letters = []string{"a", "b", "e", "n", "t", "th", "in", "é", "中"}

// The heap merges exactly as the scan does, on pieces long enough to take
// many merges with equal ranks.
func TestHeapMergesAsTheScan(t *testing.T) {
	tab := tab()
	same := func(t tb, piece string) {
		if got, want := tab.countHeap(piece), tab.countScan(piece); got != want {
			t.Fatalf("%q: heap %d, scan %d", piece, got, want)
		}
	}
	same(t, "bbbbea") // the leftmost of equal ranks first: 3 parts, not 2
	piece := rapid.Map(rapid.SliceOfN(rapid.SampledFrom(letters), 1, 200), func(l []string) string { return strings.Join(l, "") })
	rapid.Check(t, func(t *rapid.T) {
		// Many pieces a check: ties that matter are rare (the first one
		// found by a reversed tie rule took 640 pieces).
		for _, p := range rapid.SliceOfN(piece, 32, 32).Draw(t, "pieces") {
			same(t, p)
		}
	})
}

// A long run of letters is one piece; counting it takes the heap, and agrees
// with tiktoken-go (which takes its own heap from 96 bytes).
func TestLongPieces(t *testing.T) {
	for _, s := range []string{
		strings.Repeat("a", 100_000),
		strings.Repeat("thequickbrownfox", 4_000),
		strings.Repeat("中文", 10_000),
		"x" + strings.Repeat("ab", 5_000) + " " + strings.Repeat("9", 999),
	} {
		check(t, s)
	}
}

// BenchmarkLongPiece is a 1 MiB note that is one word: linear-ish, not the
// scan's quadratic (which took 4.6 s for 100 KB).
func BenchmarkLongPiece(b *testing.B) {
	s := strings.Repeat("thequickbrownfox", 1<<16)
	tab()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Count(s)
	}
}

// BenchmarkDocs counts the repository's docs/*.md, prose and tables of
// realistic notes' mix.
func BenchmarkDocs(b *testing.B) {
	var texts []string
	n := 0
	paths, _ := filepath.Glob("../../../docs/*.md")
	for _, p := range paths {
		bs, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		texts, n = append(texts, string(bs)), n+len(bs)
	}
	tab()
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		for _, t := range texts {
			Count(t)
		}
	}
}
