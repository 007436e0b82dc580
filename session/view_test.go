package session

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/participant"
	"github.com/magicfrog/mf-lsp/session/base"
)

// testTree is a data directory and a project bound to task T-7 and agents
// larry and moe, on machine m1, with the core, skills and journal layers.
type testTree struct {
	data, project string
	m             *engine.Memory
}

const testLayers = `{"layers": [
  {"name": "core",    "prefix": ""},
  {"name": "skills",  "prefix": "skills/"},
  {"name": "journal", "prefix": "journal/", "kind": "fractal"}
]}`

func openTestTree(t *testing.T) *testTree {
	t.Helper()
	dir := t.TempDir()
	tr := &testTree{data: filepath.Join(dir, "data"), project: filepath.Join(dir, "project")}
	writeFile(t, filepath.Join(tr.data, "memory", "layers.json"), testLayers)
	writeFile(t, filepath.Join(tr.data, "magicfrog.json"), `{"agents": ["larry", "moe"]}`)
	writeFile(t, filepath.Join(tr.project, ".magicfrog", "config.json"), `{"task": "T-7", "agents": ["larry", "moe"]}`)
	tr.reopen(t)
	return tr
}

func (tr *testTree) reopen(t *testing.T) {
	t.Helper()
	m, err := engine.Open(engine.Options{DataDir: tr.data, ProjectDir: tr.project, Machine: "m1", Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	tr.m = m
}

// put writes a note at revision 1 as a plain editor would and loads it.
func (tr *testTree) put(t *testing.T, d engine.Dimension, owner, key, body string) string {
	t.Helper()
	p, err := tr.m.PathOf(d, owner, key)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, p, "---\nrevision: 1\nupdated: 2026-11-01T00:00:00.000Z\n---\n"+body)
	tr.m.Refresh(p)
	return p
}

// hide replaces the tree's folders by placeholders, so JSON can be compared
// byte for byte.
func (tr *testTree) hide(s string) string {
	for _, dir := range []string{tr.data, tr.project} {
		s = strings.ReplaceAll(s, PathToURI(dir), "file://"+strings.ToUpper(filepath.Base(dir)))
		s = strings.ReplaceAll(s, dir, strings.ToUpper(filepath.Base(dir)))
	}
	return s
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func ptr[T any](v T) *T { return &v }

func TestScopeRequestGiven(t *testing.T) {
	settings := participant.Given{Task: "T-7", TaskSet: true, Agents: []string{"larry", "moe"}, AgentsSet: true, AgentsFrom: `the setting "agents"`, Agent: "larry", AgentSet: true}
	named := func(g participant.Given, f func(*participant.Given)) participant.Given { f(&g); return g }
	for _, tc := range []struct {
		name string
		req  ScopeRequest
		want participant.Given
	}{
		{"nothing named: the settings", ScopeRequest{}, settings},
		{"task replaced", ScopeRequest{Task: ptr("T-9")}, named(settings, func(g *participant.Given) { g.Task = "T-9" })},
		{"no task", ScopeRequest{Task: ptr("")}, named(settings, func(g *participant.Given) { g.Task = "" })},
		{"agents named: they replace the settings' and its participant", ScopeRequest{Agents: &[]string{"moe", "curly"}},
			participant.Given{Task: "T-7", TaskSet: true, Agents: []string{"moe", "curly"}, AgentsSet: true, AgentsFrom: `the argument "agents"`}},
		{"participant picks one agent", ScopeRequest{Participant: "moe"}, named(settings, func(g *participant.Given) { g.Agent = "moe" })},
		{"participant over agents", ScopeRequest{Agents: &[]string{"larry", "moe"}, Participant: "moe"},
			participant.Given{Task: "T-7", TaskSet: true, Agents: []string{"larry", "moe"}, AgentsSet: true, AgentsFrom: `the argument "agents"`, Agent: "moe", AgentSet: true}},
		{"machine replaced", ScopeRequest{Machine: ptr("m2")}, named(settings, func(g *participant.Given) { g.Machine, g.MachineSet = "m2", true })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.req.Given(settings); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Given = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestRenderRequestOptions(t *testing.T) {
	tr := openTestTree(t)
	defaults := RenderDefaults{Budget: 500, Today: "2026-11-30", Earlier: 2}
	sc := engine.Scope{Task: "T-7", Agents: []string{"larry"}}
	withMachine := engine.Scope{Task: "T-7", Agents: []string{"larry"}, Machine: tr.m.MachineID()}
	for _, tc := range []struct {
		name string
		req  RenderRequest
		sc   engine.Scope
		want engine.RenderOptions
	}{
		{"the session's defaults, this machine", RenderRequest{}, sc,
			engine.RenderOptions{Scope: withMachine, Budget: 500, Today: "2026-11-30", Earlier: 2}},
		{"every field named", RenderRequest{Budget: ptr(0), Previous: "g1", Today: "2026-11-01", Earlier: ptr(0)}, sc,
			engine.RenderOptions{Scope: withMachine, Previous: "g1", Today: "2026-11-01"}},
		{"a named machine is kept", RenderRequest{}, engine.Scope{Machine: "m9"},
			engine.RenderOptions{Scope: engine.Scope{Machine: "m9"}, Budget: 500, Today: "2026-11-30", Earlier: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.req.Options(tr.m, tc.sc, defaults); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Options = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// The effective view's JSON is magicfrog.effectiveView's answer
// (docs/protocol.md): the task's note shadows the user's, a skill is listed
// under skills, empty lists are [] and not null (a scope's empty fields are
// left out).
func TestViewOfJSON(t *testing.T) {
	tr := openTestTree(t)
	tr.put(t, engine.User, "", "style.md", "user style\n")
	tr.put(t, engine.Task, "T-7", "style.md", "task style\n")
	tr.put(t, engine.User, "", "skills/review.md", "review\n")
	v, err := ViewOf(tr.m, engine.Scope{Task: "T-7"}, "2026-11-30", 0)
	if err != nil {
		t.Fatal(err)
	}
	got := tr.hide(mustJSON(t, v))
	want := `{"scope":{"task":"T-7"},"keys":[` +
		`{"key":"skills/review.md","winner":{"ref":"user/skills/review.md","dimension":"user","scope":"","key":"skills/review.md","layer":"skills","path":"DATA/memory/user/skills/review.md","uri":"file://DATA/memory/user/skills/review.md","revision":1,"updated":"2026-11-01T00:00:00.000Z","machine":"","legacy":false,"tokens":2,"hash":"HASH"},"shadowed":[]},` +
		`{"key":"style.md","winner":{"ref":"task/T-7/style.md","dimension":"task","scope":"T-7","key":"style.md","layer":"core","path":"PROJECT/.magicfrog/memory/T-7/style.md","uri":"file://PROJECT/.magicfrog/memory/T-7/style.md","revision":1,"updated":"2026-11-01T00:00:00.000Z","machine":"","legacy":false,"tokens":3,"hash":"HASH"},` +
		`"shadowed":[{"ref":"user/style.md","dimension":"user","scope":"","key":"style.md","layer":"core","path":"DATA/memory/user/style.md","uri":"file://DATA/memory/user/style.md","revision":1,"updated":"2026-11-01T00:00:00.000Z","machine":"","legacy":false,"tokens":3,"hash":"HASH"}]}],` +
		`"device":[],"skills":[{"ref":"user/skills/review.md","dimension":"user","scope":"","key":"skills/review.md","layer":"skills","path":"DATA/memory/user/skills/review.md","uri":"file://DATA/memory/user/skills/review.md","revision":1,"updated":"2026-11-01T00:00:00.000Z","machine":"","legacy":false,"tokens":2,"hash":"HASH"}],"boot":[]}`
	if got = hideHashes(got); got != want {
		t.Errorf("effective view JSON\n got %s\nwant %s", got, want)
	}
}

// hideHashes replaces every "hash" value, which depends on the bytes only.
func hideHashes(s string) string {
	var out strings.Builder
	for {
		i := strings.Index(s, `"hash":"`)
		if i < 0 {
			return out.String() + s
		}
		i += len(`"hash":"`)
		j := strings.IndexByte(s[i:], '"')
		out.WriteString(s[:i] + "HASH")
		s = s[i+j:]
	}
}

// Describe says whether a note wins its key for the participant, and what it
// shadows or what shadows it.
func TestDescribe(t *testing.T) {
	tr := openTestTree(t)
	user := tr.put(t, engine.User, "", "style.md", "user style\n")
	task := tr.put(t, engine.Task, "T-7", "style.md", "task style\n")
	other := tr.put(t, engine.Task, "T-9", "style.md", "another task\n")
	participant := engine.Scope{Task: "T-7", Agents: []string{"larry"}, Machine: "m1"}
	for _, tc := range []struct {
		name                 string
		path                 string
		inScope, effective   bool
		shadowedBy           string
		shadows              []string
		wantShadowedByInJSON bool
	}{
		{"the winner shadows the user's", task, true, true, "", []string{"user/style.md"}, false},
		{"the user's is shadowed", user, true, false, "task/T-7/style.md", nil, true},
		{"another task's is out of scope", other, false, false, "", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Describe(tr.m, tr.m.Note(tc.path), participant)
			if d.InScope != tc.inScope || d.Effective != tc.effective {
				t.Errorf("inScope %v effective %v, want %v %v", d.InScope, d.Effective, tc.inScope, tc.effective)
			}
			by := ""
			if d.ShadowedBy != nil {
				by = d.ShadowedBy.Ref
			}
			if by != tc.shadowedBy {
				t.Errorf("shadowedBy %q, want %q", by, tc.shadowedBy)
			}
			var shadows []string
			for _, s := range d.Shadows {
				shadows = append(shadows, s.Ref)
			}
			if !reflect.DeepEqual(shadows, tc.shadows) {
				t.Errorf("shadows %v, want %v", shadows, tc.shadows)
			}
			js := mustJSON(t, d)
			if strings.Contains(js, `"shadowedBy"`) != tc.wantShadowedByInJSON || !strings.Contains(js, `"shadows":[`) {
				t.Errorf("JSON %s: shadowedBy present %v, shadows a list", js, tc.wantShadowedByInJSON)
			}
		})
	}
}

// Preview's JSON is magicfrog.render's answer with details (docs/protocol.md):
// groups cut at their closing lines, <omitted/> lines listed with their line,
// and a header that tallies tokens and what was left out and why.
func TestPreviewJSON(t *testing.T) {
	text := `<memory generation="g1">
<task id="T-7">
<note ref="task:T-7/a.md">
alpha
</note>
<omitted path="task:T-7/b.md" tokens="12" reason="budget"/>
</task>
<agent id="larry">
<omitted path="agent:zed/c.md" reason="unregistered-scope"/>
</agent>
</memory>
`
	b := &engine.Block{Text: text, Generation: "g1", Tokens: 40}
	sc := engine.Scope{Task: "T-7", Machine: "m1"}
	got := mustJSON(t, Preview(b, sc, 100, "task `T-7` · no agent · machine `m1`"))
	want := `{"text":` + mustJSON(t, text) + `,"generation":"g1","tokens":40,"budget":100,` +
		`"scope":{"task":"T-7","machine":"m1"},` +
		`"header":["\u003c!-- MagicFrog preview for task T-7 · no agent · machine m1 (these comment lines are not part of the block) --\u003e",` +
		`"\u003c!-- 40 tokens of a 100 budget · task id=T-7 ` + tokensOf(t, text, 1, 6) + ` · agent id=larry ` + tokensOf(t, text, 7, 9) + ` · 1 left out by the budget (✂) · 1 under unregistered folders, in no one's view --\u003e"],` +
		`"groups":[{"name":"task id=\"T-7\"","line":1,"tokens":` + tokensOf(t, text, 1, 6) + `,"notes":1,"omitted":1},` +
		`{"name":"agent id=\"larry\"","line":7,"tokens":` + tokensOf(t, text, 7, 9) + `,"notes":0,"omitted":0}],` +
		`"omitted":[{"ref":"task:T-7/b.md","tokens":12,"reason":"budget","line":5},{"ref":"agent:zed/c.md","tokens":0,"reason":"unregistered-scope","line":8}]}`
	if got != want {
		t.Errorf("preview JSON\n got %s\nwant %s", got, want)
	}
	if empty := mustJSON(t, Preview(&engine.Block{Text: "<memory>\n</memory>\n"}, engine.Scope{}, 0, "no task · no agent")); !strings.Contains(empty, `"groups":[],"omitted":[]`) || !strings.Contains(empty, "0 tokens, no budget") {
		t.Errorf("empty block's preview: %s", empty)
	}
}

// tokensOf counts the tokens of lines from..to (0-based, inclusive) of text.
func tokensOf(t *testing.T, text string, from, to int) string {
	t.Helper()
	lines := strings.SplitAfter(text, "\n")
	return mustJSON(t, engine.Tokens(strings.Join(lines[from:to+1], "")))
}

func TestHostFile(t *testing.T) {
	project := t.TempDir()
	bare := t.TempDir()
	writeFile(t, filepath.Join(project, "AGENTS.md"), "# Agents\n")
	for _, tc := range []struct {
		name, project, file, want string
		err                       error
	}{
		{"AGENTS.md without a CLAUDE.md", project, "", filepath.Join(project, "AGENTS.md"), nil},
		{"relative to the project", project, "docs/HOST.md", filepath.Join(project, "docs", "HOST.md"), nil},
		{"absolute as it is", project, "/elsewhere/HOST.md", "/elsewhere/HOST.md", nil},
		{"no host file", bare, "", "", ErrNoHostFile},
		{"no project", "", "", "", ErrNoHostFile},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := HostFile(tc.project, tc.file)
			if got != tc.want || !errors.Is(err, tc.err) {
				t.Errorf("HostFile = %q, %v; want %q, %v", got, err, tc.want, tc.err)
			}
		})
	}
	writeFile(t, filepath.Join(project, "CLAUDE.md"), "# Claude\n")
	if got, _ := HostFile(project, ""); got != filepath.Join(project, "CLAUDE.md") {
		t.Errorf("with both, HostFile = %q, want CLAUDE.md", got)
	}
}

// Describe's JSON is magicfrog.describe's answer: the Entry's fields, then
// inScope, effective, shadowedBy (only when shadowed) and shadows.
func TestDescribeJSON(t *testing.T) {
	tr := openTestTree(t)
	user := tr.put(t, engine.User, "", "style.md", "user style\n")
	tr.put(t, engine.Task, "T-7", "style.md", "task style\n")
	d := Describe(tr.m, tr.m.Note(user), engine.Scope{Task: "T-7", Agents: []string{"larry"}, Machine: "m1"})
	want := `{"ref":"user/style.md","dimension":"user","scope":"","key":"style.md","layer":"core","path":"DATA/memory/user/style.md","uri":"file://DATA/memory/user/style.md","revision":1,"updated":"2026-11-01T00:00:00.000Z","machine":"","legacy":false,"tokens":3,"hash":"HASH",` +
		`"inScope":true,"effective":false,` +
		`"shadowedBy":{"ref":"task/T-7/style.md","dimension":"task","scope":"T-7","key":"style.md","layer":"core","path":"PROJECT/.magicfrog/memory/T-7/style.md","uri":"file://PROJECT/.magicfrog/memory/T-7/style.md","revision":1,"updated":"2026-11-01T00:00:00.000Z","machine":"","legacy":false,"tokens":3,"hash":"HASH"},` +
		`"shadows":[]}`
	if got := hideHashes(tr.hide(mustJSON(t, d))); got != want {
		t.Errorf("describe JSON\n got %s\nwant %s", got, want)
	}
}

// Every key of a command's answer is one docs/protocol.md names for it (in
// the command's row, or in Entry's line when the answer holds notes): the
// session types are the protocol's JSON, and a field added here without the
// doc fails.
func TestAnswersAreTheDocumentedJSON(t *testing.T) {
	doc, err := os.ReadFile("../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	entry := documentedKeys(t, string(doc), "`Entry` is ")
	for _, tc := range []struct {
		command string
		answer  any
		notes   bool // holds Entry objects
	}{
		{"magicfrog.render", RenderDetails{Groups: []RenderGroup{{}}, Omitted: []RenderOmitted{{}}}, false},
		{"magicfrog.renderInto", base.Written{}, false},
		{"magicfrog.effectiveView", EffectiveView{Keys: []KeyView{{Shadowed: []NoteSummary{{}}}}, Device: []NoteSummary{{}}}, true},
		{"magicfrog.describe", Description{ShadowedBy: &NoteSummary{}}, true},
		{"magicfrog.promote", Promoted{}, false},
		{"magicfrog.export", Exported{}, false},
		{"magicfrog.import", Imported{Skipped: []ImportSkip{{}}, LayersDiffer: "differs"}, false},
		{"magicfrog.rollup", RollupReport{Failed: []RollupFailure{{}}, Lessons: []RollupLesson{{}}}, false},
		{"magicfrog.today", Daily{}, false},
		{"magicfrog.registerAgent", Registration{}, false},
	} {
		t.Run(tc.command, func(t *testing.T) {
			documented := documentedKeys(t, string(doc), "| `"+tc.command+"` |")
			if tc.notes {
				for k := range entry {
					documented[k] = true
				}
			}
			raw, err := json.Marshal(tc.answer)
			if err != nil {
				t.Fatal(err)
			}
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatal(err)
			}
			var undocumented []string
			for _, k := range jsonKeys(v) {
				if !documented[k] {
					undocumented = append(undocumented, k)
				}
			}
			if len(undocumented) > 0 {
				t.Errorf("%s answers keys docs/protocol.md does not name: %v (answer %s)", tc.command, undocumented, raw)
			}
		})
	}
}

var quotedKey = regexp.MustCompile(`"([A-Za-z]+)"`)

// documentedKeys are the quoted words of the doc line that starts with
// prefix (for a table row, of its last cell: the result).
func documentedKeys(t *testing.T, doc, prefix string) map[string]bool {
	t.Helper()
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		if cells := strings.Split(line, " | "); len(cells) >= 3 {
			line = cells[len(cells)-1]
		}
		keys := map[string]bool{}
		for _, m := range quotedKey.FindAllStringSubmatch(line, -1) {
			keys[m[1]] = true
		}
		return keys
	}
	t.Fatalf("docs/protocol.md has no line starting %q", prefix)
	return nil
}

// jsonKeys lists the object keys in v, at every depth, except inside a
// "scope" (engine.Scope, documented with the settings).
func jsonKeys(v any) []string {
	seen := map[string]bool{}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				seen[k] = true
				if k != "scope" {
					walk(x)
				}
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
