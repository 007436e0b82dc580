package diagnostics

import (
	"fmt"
	"reflect"
	"sort"
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
)

// generatedTree is a tree of about n notes with something to say about most
// of them: shadowed keys, other agents' and unregistered folders, device
// and project notes, broken links,
// secrets, bad frontmatter, sync conflicts and files that do not load.
func generatedTree(t *testing.T, n int) *engine.Memory {
	files := map[string]string{
		"data/machine-id":                "m1\n",
		"data/magicfrog.json":            `{"agents": ["larry", "moe"]}`,
		"project/.magicfrog/config.json": `{"task": "T-7", "agents": ["larry"]}`,
		"data/memory/user/binary.md":     "\x00\x01\x02",
	}
	conflicts := ""
	for i := 0; i < n; i++ {
		body := fmt.Sprintf("Note %d; see [the next](n%04d.md).\n", i, i+1)
		head := fm
		switch i % 7 {
		case 0:
			body += "token: " + testToken + "\n"
		case 1:
			head = "---\nrevision: x\nupdated: yesterday\n---\n"
		case 2:
			head = ""
		}
		var rel string
		switch i % 9 {
		case 0, 1:
			rel = fmt.Sprintf("data/memory/account/d%02d/n%04d.md", i%13, i)
		case 2, 3: // shares keys with the account notes above
			rel = fmt.Sprintf("data/memory/user/d%02d/n%04d.md", (i-2)%13, i-2)
			if i%4 == 2 {
				conflicts += fmt.Sprintf(`%q: {"theirs": "", "reason": "deleted there", "since": "2026-11-30T09:00:00Z"},`, fmt.Sprintf("user/d%02d/n%04d.md", (i-2)%13, i-2))
			}
		case 4:
			rel = fmt.Sprintf("data/memory/agent/larry/n%04d.md", i)
		case 5:
			rel = fmt.Sprintf("data/memory/agent/moe/n%04d.md", i)
		case 6:
			rel = fmt.Sprintf("data/memory/agent/someone-%d/n%04d.md", i%3, i)
		case 7:
			rel = fmt.Sprintf("data/memory/device/n%04d.md", i)
			head = fmt.Sprintf("---\nrevision: 1\nupdated: 2026-10-20T09:12:00.000Z\nmachine: m%d\n---\n", i%3)
		default:
			rel = fmt.Sprintf("project/.magicfrog/memory/n%04d.md", i)
		}
		files[rel] = head + body
	}
	files["data/sync/state.json"] = `{"version": 1, "remote": "/srv/memory.git", "conflicts": {` + conflicts[:len(conflicts)-1] + `}}`
	m, _ := tree(t, files)
	return m
}

// CheckTree is every note's Check, and the files that did not load, sorted
// by path and position, as it was before it checked notes in parallel, read
// the sync state once and took notes by path: the same findings in the same
// order.
func TestCheckTreeIsEachNotesCheck(t *testing.T) {
	m := generatedTree(t, 700)
	for _, scope := range []engine.Scope{m.DefaultScope(), {Agents: []string{"larry", "moe"}, Task: "T-7"}, {}} {
		in := Input{Scope: scope, OpenLoopDays: DefaultOpenLoopDays}
		var want []Finding
		for _, e := range m.Notes() {
			one := in
			one.Memory, one.Note = m, e
			want = append(want, Check(one)...)
		}
		want = append(want, ProblemFindings(m)...)
		sort.SliceStable(want, func(i, j int) bool {
			a, b := want[i], want[j]
			if a.Path != b.Path {
				return a.Path < b.Path
			}
			if a.Span.Start != b.Span.Start {
				return a.Span.Start < b.Span.Start
			}
			if a.Span.End != b.Span.End {
				return a.Span.End < b.Span.End
			}
			return a.Code < b.Code
		})
		got := CheckTree(m, in)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("scope %+v: CheckTree gave %d findings, each note's Check %d; first difference at %d", scope, len(got), len(want), firstDifference(got, want))
		}
		counts := map[string]int{}
		for _, f := range got {
			counts[f.Code]++
		}
		for _, code := range []string{CodeSecret, CodeSyncConflict, CodeShadowed, CodeBrokenLink, CodeRevisionNotInteger, CodeFrontmatterMissing, CodeUnregisteredAgentFolder, CodeFileBinary} {
			if counts[code] == 0 {
				t.Errorf("scope %+v: no %s finding; the tree no longer exercises it (%v)", scope, code, counts)
			}
		}
	}
}

func firstDifference(a, b []Finding) int {
	for i := range min(len(a), len(b)) {
		if !reflect.DeepEqual(a[i], b[i]) {
			return i
		}
	}
	return min(len(a), len(b))
}
