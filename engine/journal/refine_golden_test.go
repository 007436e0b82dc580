package journal

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Independent of the refine's own detector (keyTokens): a git object id, and a
// file path with an extension, as a reader would pick them out of prose.
var (
	goldenCommit = regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)
	goldenPath   = regexp.MustCompile(`(?:^|[\s(\x60"'])((?:~|\.\.?)?/?(?:[A-Za-z0-9_.-]+/)+[A-Za-z0-9_-][A-Za-z0-9_.-]*\.[a-z][a-z0-9]{0,5}|[A-Za-z0-9_-]+\.(?:go|md|yaml|yml|json|toml|sh|py|ts|js|sql|txt|lua|el|env|lock|log))\b`)
)

// proseLines is the raw day as the golden test reads it: its body (no
// frontmatter) without fenced code, indented code and command lines.
func proseLines(body []byte) []string {
	var out []string
	fence := false
	for _, l := range strings.Split(string(stripFrontmatter(body)), "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
			continue
		}
		if fence || strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t") || strings.HasPrefix(t, "$ ") {
			continue
		}
		out = append(out, l)
	}
	return out
}

// TestRefineGolden: the built-in refine of realistic raw days
// (testdata/refine/*.txtar; want.md is the expected refine, -update rewrites
// it). For each day: the refine is at most a quarter of the raw day's body
// bytes (frontmatter not counted), or, for a day marked "over: yes" whose must
// lines alone do not fit, longer and saying so in its closing line; and it
// holds every item of the day twice over: each decision, problem, blocker and
// next step the refine's own detector finds (all the significant words of its
// compact form) and each commit id and path it names, and, found without it,
// every commit id and path a regular expression finds in the day's prose and
// every decision and error the golden lists by hand ("decision: …", "error:
// …" lines of its comment, each a phrase the refine must hold).
func TestRefineGolden(t *testing.T) {
	paths, _ := filepath.Glob("testdata/refine/*.txtar")
	if len(paths) < 4 {
		t.Fatalf("%d refine goldens", len(paths))
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			_, _, srcs, got, comment := summarizeGolden(t, path)
			total := 0
			for _, s := range srcs {
				total += len(stripFrontmatter(s.Body))
			}
			over := bytes.Contains(comment, []byte("\nover: yes"))
			t.Logf("%d of %d body bytes: %.1f%%", len(got), total, 100*float64(len(got))/float64(total))
			closing := strings.Contains(got, "\n<!-- over its bound: ")
			switch {
			case !over && len(got) > total/4:
				t.Errorf("refine is %d bytes, over a quarter of the day's %d body bytes", len(got), total)
			case !over && closing:
				t.Errorf("refine within its bound says it is over:\n%s", got)
			case over && (len(got) <= total/4 || !closing || !strings.HasSuffix(got, "-->\n")):
				t.Errorf("day marked over: refine of %d bytes (a quarter is %d), closing line %v", len(got), total/4, closing)
			}
			have := wordSet(sigWords(got))
			cands, named := refineCandidates(sortedSources(srcs))
			for _, c := range cands {
				if !c.must() {
					continue
				}
				for _, w := range sigWords(c.compact) {
					if !have[w] {
						t.Errorf("the refine lacks %q of %s line %q", w, RefinedSections[c.cat], c.text)
					}
				}
				named = append(named, c.tokens...)
			}
			for _, tok := range named {
				if !strings.Contains(got, tok) {
					t.Errorf("the refine lacks %s, named by the day", tok)
				}
			}
			for _, s := range srcs {
				for _, l := range proseLines(s.Body) {
					for _, m := range goldenCommit.FindAllString(l, -1) {
						if strings.ContainsAny(m, "abcdef") && strings.ContainsAny(m, "0123456789") && !strings.Contains(got, m) {
							t.Errorf("commit %s (%q) not in the refine", m, l)
						}
					}
					for _, m := range goldenPath.FindAllStringSubmatch(l, -1) {
						if !strings.Contains(got, m[1]) {
							t.Errorf("path %s (%q) not in the refine", m[1], l)
						}
					}
				}
			}
			low := strings.ToLower(got)
			for _, l := range strings.Split(string(comment), "\n") {
				for _, p := range []string{"decision: ", "error: "} {
					if v, ok := strings.CutPrefix(l, p); ok && !strings.Contains(low, strings.ToLower(v)) {
						t.Errorf("%s%q not in the refine", p, v)
					}
				}
			}
		})
	}
}
