package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/magicfrog/mf-lsp/lsp/lsptest"
	"github.com/magicfrog/mf-lsp/session"
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
	cmd := exec.Command(bin, args...)
	cmd.Dir = project
	cmd.Env = append(os.Environ(), append([]string{"XDG_CACHE_HOME=" + t.TempDir(), "MAGICFROG_AGENT="}, env...)...)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	ctx := context.Background()
	s, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("mcp %v: %v", args, err)
	}
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
