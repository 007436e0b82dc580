package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/lsp/lsptest"
	"github.com/magicfrog/mf-lsp/session"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	scopeBinOnce sync.Once
	scopeBin     string
	scopeBinErr  error
)

// realBinary is mf-lsp built once for the tests that drive it as a process.
func realBinary(t *testing.T) string {
	t.Helper()
	scopeBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mf-lsp-scope-")
		if err != nil {
			scopeBinErr = err
			return
		}
		scopeBin, scopeBinErr = lsptest.Build(dir)
	})
	if scopeBinErr != nil {
		t.Fatal(scopeBinErr)
	}
	return scopeBin
}

// answer is what one front end said: a block, or a refusal with its code,
// choices and words.
type answer struct {
	block   string
	code    string
	choices []string
	words   string
}

// scopeTree writes a data directory whose roster is larry and bob, each with
// a note of their own, and a project bound to agents.
func scopeTree(t *testing.T, agents string) (data, project string) {
	root := t.TempDir()
	data, project = filepath.Join(root, "data"), filepath.Join(root, "project")
	files := map[string]string{
		"data/machine-id":                 "m-here\n",
		"data/magicfrog.json":             `{"agents": ["larry", "bob"]}`,
		"data/memory/agent/larry/only.md": "---\nrevision: 1\n---\nLarry only.\n",
		"data/memory/agent/bob/only.md":   "---\nrevision: 1\n---\nBob only.\n",
		"data/memory/user/all.md":         "---\nrevision: 1\n---\nEveryone.\n",
		"project/.magicfrog/config.json":  `{"task": "T-7", "agents": ` + agents + `}`,
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return data, project
}

// refusalLines reads the CLI's refusal: "mf-lsp CMD: WORDS" and
// "  code: CODE; choices: A, B" (docs/cli.md).
var refusalLines = regexp.MustCompile(`(?m)^mf-lsp \w+: (.*)\n  code: (\S+); choices: (.*)$`)

func cliAnswer(t *testing.T, bin, project string, env []string, args ...string) answer {
	cmd := exec.Command(bin, args...)
	cmd.Dir = project
	cmd.Env = append(os.Environ(), append([]string{"XDG_CACHE_HOME=" + t.TempDir(), "MAGICFROG_AGENT="}, env...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Stdin = strings.NewReader("")
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return answer{block: stdout.String()}
	case errors.As(err, &exit) && exit.ExitCode() == 2:
		m := refusalLines.FindStringSubmatch(stderr.String())
		if m == nil {
			t.Fatalf("%v: exit 2 without the refusal's lines:\n%s", args, stderr.String())
		}
		return answer{words: m[1], code: m[2], choices: strings.Split(m[3], ", ")}
	default:
		t.Fatalf("%v: %v\n%s", args, err, stderr.String())
		return answer{}
	}
}

// mcpAnswer starts `mf-lsp mcp` as an agent host does and asks for the block;
// a server that refuses to start answers as the CLI does.
func mcpAnswer(t *testing.T, bin, project, data string, env []string, args ...string) answer {
	args = append([]string{"mcp", "--data-dir", data}, args...)
	// With stdin at its end a server that starts serves nothing and exits 0;
	// one that refuses to start exits 2 as the CLI does.
	if probe := cliAnswer(t, bin, project, env, args...); probe.code != "" {
		return probe
	}
	ctx := context.Background()
	s := mcpConnect(t, bin, project, env, args...)
	defer s.Close()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "memory_context", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("memory_context: %v %+v", err, res)
	}
	var out struct {
		Block string `json:"block"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("memory_context: %v in %s", err, raw)
	}
	return answer{block: out.Block}
}

// mcpConnect starts `mf-lsp ARGS` (an MCP server) in project, as an agent
// host does, and connects to it.
func mcpConnect(t *testing.T, bin, project string, env []string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = project
	cmd.Env = append(os.Environ(), append([]string{"XDG_CACHE_HOME=" + t.TempDir(), "MAGICFROG_AGENT="}, env...)...)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	s, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("mcp %v: %v", args, err)
	}
	return s
}

// lspAnswer runs magicfrog.render over JSON-RPC against the server binary.
func lspAnswer(t *testing.T, bin, project string, options map[string]any, env []string) answer {
	t.Setenv("MAGICFROG_AGENT", "")
	for _, e := range env {
		k, v, _ := strings.Cut(e, "=")
		t.Setenv(k, v)
	}
	c := lsptest.StartBinary(t, bin)
	c.Initialize(string(session.PathToURI(project)), options)
	var raw json.RawMessage
	err := c.Call("workspace/executeCommand", map[string]any{"command": "magicfrog.render", "arguments": []any{map[string]any{}}}, &raw)
	if err == nil {
		var block string
		if err := json.Unmarshal(raw, &block); err != nil {
			t.Fatalf("render: %v in %s", err, raw)
		}
		return answer{block: block}
	}
	var e *lsptest.Error
	if !errors.As(err, &e) || len(e.Data) == 0 {
		t.Fatalf("render: %v, want a JSON-RPC error with data", err)
	}
	var d struct {
		Code    string   `json:"code"`
		Choices []string `json:"choices"`
	}
	if err := json.Unmarshal(e.Data, &d); err != nil {
		t.Fatalf("render's error data %s: %v", e.Data, err)
	}
	if e.Code != -32803 {
		t.Errorf("render refused with JSON-RPC code %d, want RequestFailed (-32803)", e.Code)
	}
	return answer{code: d.Code, choices: d.Choices, words: strings.TrimPrefix(e.Message, "magicfrog.render: ")}
}

// TestOneScopeResolver (issue 20): a project bound to two agents gets one
// answer from the CLI, the MCP server and the language server: refused alike
// (code several-agents, the agents as choices, the same words) until one is
// chosen, and then that agent's block everywhere.
func TestOneScopeResolver(t *testing.T) {
	bin := realBinary(t)
	for _, tc := range []struct {
		name    string
		agents  string   // the binding's
		flags   []string // the CLI's and the MCP server's
		options map[string]any
		env     []string
		refused bool
	}{
		{name: "two agents bound, none chosen", agents: `["larry", "bob"]`, refused: true},
		{name: "one agent bound", agents: `["bob"]`},
		{name: "two bound, bob chosen", agents: `["larry", "bob"]`, flags: []string{"--agent", "bob"}, options: map[string]any{"participant": "bob"}},
		{name: "two bound, bob from the environment", agents: `["larry", "bob"]`, env: []string{"MAGICFROG_AGENT=bob"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, project := scopeTree(t, tc.agents)
			opts := map[string]any{"dataDir": data, "today": "2026-10-20"}
			for k, v := range tc.options {
				opts[k] = v
			}
			answers := map[string]answer{
				"cli": cliAnswer(t, bin, project, tc.env, append([]string{"render", "--data-dir", data, "--today", "2026-10-20"}, tc.flags...)...),
				"mcp": mcpAnswer(t, bin, project, data, tc.env, tc.flags...),
				"lsp": lspAnswer(t, bin, project, opts, tc.env),
			}
			want := answers["cli"]
			for name, a := range answers {
				if tc.refused {
					if a.code != "several-agents" || strings.Join(a.choices, ",") != "larry,bob" {
						t.Errorf("%s: code %q, choices %v; want several-agents, [larry bob] (block %q)", name, a.code, a.choices, a.block)
					}
					if a.words != want.words || !strings.Contains(a.words, "names 2 agents (larry, bob)") {
						t.Errorf("%s says %q\nthe CLI says %q", name, a.words, want.words)
					}
					continue
				}
				if a.code != "" || !strings.Contains(a.block, `agents="bob"`) || !strings.Contains(a.block, "Bob only") || strings.Contains(a.block, "Larry only") {
					t.Errorf("%s: want bob's block, got %+v", name, a)
				}
			}
		})
	}
}

// reply is one door's answer to a question of TestOneAnswerThreeDoors: the
// failure's code and details (errcode.Data), or none.
type reply struct {
	code     string
	rule     string
	end      string
	revision int
	exit     int    // the CLI's exit code
	words    string // the CLI's stderr, the MCP tool's text, the LSP error's message
}

// errData is the part of errcode.Data the table compares.
type errData struct {
	Code     string `json:"code"`
	Rule     string `json:"rule"`
	End      string `json:"end"`
	Revision *int   `json:"revision"`
}

func (d errData) reply(words string) reply {
	r := reply{code: d.Code, rule: d.Rule, end: d.End, words: words}
	if d.Revision != nil {
		r.revision = *d.Revision
	}
	return r
}

// cliReply runs the binary with stdin and reads its refusal from the exit
// code and stderr as docs/cli.md publishes them: a "  code: CODE[; rule:
// RULE]" line, or (a stale write or promotion, exit 3) the first line
// "stale: current revision M", "stale: source at revision M" or "stale:
// destination at revision M".
func cliReply(t *testing.T, bin, project, stdin string, args ...string) reply {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = project
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir(), "MAGICFROG_AGENT=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdin = strings.NewReader(stdin)
	err := cmd.Run()
	r := reply{words: stderr.String()}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		r.exit = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	if m := regexp.MustCompile(`(?m)^  code: ([a-z-]+)(?:; rule: ([a-z0-9-]+))?`).FindStringSubmatch(r.words); m != nil {
		r.code, r.rule = m[1], m[2]
	}
	if m := regexp.MustCompile(`^stale: (?:current|source at|destination at) revision (\d+)`).FindStringSubmatch(r.words); r.exit == exitStale && m != nil {
		r.code = "stale"
		fmt.Sscan(m[1], &r.revision)
		switch {
		case strings.HasPrefix(r.words, "stale: source"):
			r.end = "source"
		case strings.HasPrefix(r.words, "stale: destination"):
			r.end = "destination"
		}
	}
	return r
}

// mcpReply starts `mf-lsp mcp` with args and calls tool; a server that
// refuses to start answers as the CLI does.
func mcpReply(t *testing.T, bin, project, data string, args []string, tool string, arguments map[string]any) reply {
	t.Helper()
	args = append([]string{"mcp", "--data-dir", data}, args...)
	if probe := cliReply(t, bin, project, "", args...); probe.exit != 0 {
		return probe
	}
	s := mcpConnect(t, bin, project, nil, args...)
	defer s.Close()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: arguments})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var words string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			words += tc.Text
		}
	}
	if !res.IsError {
		return reply{words: words}
	}
	var d errData
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("%s: error content %s: %v", tool, raw, err)
	}
	return d.reply(words)
}

// lspReply runs a workspace command against the server binary.
func lspReply(t *testing.T, bin, project string, options map[string]any, command string, arg map[string]any) reply {
	t.Helper()
	t.Setenv("MAGICFROG_AGENT", "")
	c := lsptest.StartBinary(t, bin)
	c.Initialize(string(session.PathToURI(project)), options)
	var raw json.RawMessage
	err := c.Call("workspace/executeCommand", map[string]any{"command": command, "arguments": []any{arg}}, &raw)
	if err == nil {
		return reply{}
	}
	var e *lsptest.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: %v, want a JSON-RPC error", command, err)
	}
	var d errData
	if len(e.Data) > 0 {
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatalf("%s's error data %s: %v", command, e.Data, err)
		}
	}
	return d.reply(e.Message)
}

// TestOneAnswerThreeDoors (issue 20): the same question asked through the
// CLI, the MCP server and the language server gets one answer: the same
// code and details. A door that offers no such operation is left out of its
// row, and the row says so (the language server writes a note only by saving
// its buffer, so the body rows have no LSP command; MCP has no promote tool).
func TestOneAnswerThreeDoors(t *testing.T) {
	bin := realBinary(t)
	big := strings.Repeat("too large a body. ", int(engine.MaxNoteSize)/18+1)
	type door func(t *testing.T, data, project string) reply
	cliWrite := func(stdin string, args ...string) door {
		return func(t *testing.T, data, project string) reply {
			return cliReply(t, bin, project, stdin, append([]string{"write", "--data-dir", data}, args...)...)
		}
	}
	mcpWrite := func(flags []string, place, key, body string, expected int) door {
		return func(t *testing.T, data, project string) reply {
			return mcpReply(t, bin, project, data, flags, "memory_write", map[string]any{"dimension": place, "key": key, "body": body, "expected_revision": expected})
		}
	}
	lspCommand := func(command string, arg func(data, project string) map[string]any) door {
		return func(t *testing.T, data, project string) reply {
			return lspReply(t, bin, project, map[string]any{"dataDir": data, "today": "2026-10-20"}, command, arg(data, project))
		}
	}
	noteURI := func(rel string) func(data, project string) string {
		return func(data, project string) string {
			return string(session.PathToURI(filepath.Join(data, "memory", filepath.FromSlash(rel))))
		}
	}
	for _, tc := range []struct {
		name   string
		agents string // the binding's
		want   reply  // code, rule, end, revision; exit is the CLI's
		doors  map[string]door
	}{
		{
			name: "two agents bound, none chosen", agents: `["larry", "bob"]`,
			want: reply{code: "several-agents", exit: exitUsage},
			doors: map[string]door{
				"cli": func(t *testing.T, data, project string) reply {
					return cliReply(t, bin, project, "", "render", "--data-dir", data, "--today", "2026-10-20")
				},
				"mcp": func(t *testing.T, data, project string) reply {
					return mcpReply(t, bin, project, data, nil, "memory_context", map[string]any{})
				},
				"lsp": lspCommand("magicfrog.render", func(string, string) map[string]any { return map[string]any{} }),
			},
		},
		{
			name: "stale write", agents: `["larry"]`,
			want: reply{code: "stale", revision: 1, exit: exitStale},
			doors: map[string]door{
				"cli": cliWrite("mine\n", "--dimension", "user", "--key", "all.md", "--expect-revision", "0"),
				"mcp": mcpWrite(nil, "user", "all.md", "mine\n", 0),
			},
		},
		{
			name: "stale promote", agents: `["larry"]`,
			want: reply{code: "stale", end: "source", revision: 1, exit: exitStale},
			doors: map[string]door{
				"cli": func(t *testing.T, data, project string) reply {
					return cliReply(t, bin, project, "", "promote", "--data-dir", data, "--from", "user", "--key", "all.md", "--to", "account", "--expect-source-revision", "5")
				},
				"lsp": lspCommand("magicfrog.promote", func(data, project string) map[string]any {
					return map[string]any{"uri": noteURI("user/all.md")(data, project), "to": "account", "sourceRevision": 5}
				}),
			},
		},
		{
			name: "a body with NUL", agents: `["larry"]`,
			want: reply{code: "not-a-note", rule: "nul-byte", exit: exitUsage},
			doors: map[string]door{
				"cli": cliWrite("a\x00b\n", "--dimension", "user", "--key", "nul.md", "--expect-revision", "0"),
				"mcp": mcpWrite(nil, "user", "nul.md", "a\x00b\n", 0),
			},
		},
		{
			name: "a body with frontmatter", agents: `["larry"]`,
			want: reply{code: "not-a-note", rule: "frontmatter-in-body", exit: exitUsage},
			doors: map[string]door{
				"cli": cliWrite("---\nrevision: 99\n---\nhi\n", "--dimension", "user", "--key", "fm.md", "--expect-revision", "0"),
				"mcp": mcpWrite(nil, "user", "fm.md", "---\nrevision: 99\n---\nhi\n", 0),
			},
		},
		{
			name: "an unregistered scope", agents: `["larry"]`,
			want: reply{code: "unregistered", exit: exitUsage},
			doors: map[string]door{
				"cli": cliWrite("hi\n", "--dimension", "agent", "--scope", "zed", "--key", "n.md", "--expect-revision", "0"),
				"mcp": mcpWrite([]string{"--agent", "zed"}, "agent/zed", "n.md", "hi\n", 0),
				"lsp": lspCommand("magicfrog.promote", func(data, project string) map[string]any {
					return map[string]any{"uri": noteURI("user/all.md")(data, project), "to": "agent", "scope": "zed", "copy": true}
				}),
			},
		},
		{
			name: "an oversized body", agents: `["larry"]`,
			want: reply{code: "not-a-note", rule: "too-large", exit: exitUsage},
			doors: map[string]door{
				"cli": cliWrite(big, "--dimension", "user", "--key", "big.md", "--expect-revision", "0"),
				"mcp": mcpWrite(nil, "user", "big.md", big, 0),
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for name, ask := range tc.doors {
				data, project := scopeTree(t, tc.agents)
				got := ask(t, data, project)
				want := tc.want
				if name != "cli" {
					got.exit, want.exit = 0, 0
				}
				if got.code != want.code || got.rule != want.rule || got.end != want.end || got.revision != want.revision || got.exit != want.exit {
					t.Errorf("%s: code %q rule %q end %q revision %d exit %d; want %q %q %q %d %d\n%s",
						name, got.code, got.rule, got.end, got.revision, got.exit, want.code, want.rule, want.end, want.revision, want.exit, got.words)
				}
			}
		})
	}
}
