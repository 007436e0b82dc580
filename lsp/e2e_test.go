package lsp_test

import (
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/engine/errcode"
	"github.com/magicfrog/mf-lsp/lsp/internal/jsonrpc"
	"github.com/magicfrog/mf-lsp/lsp/lsptest"
	"github.com/magicfrog/mf-lsp/session"
)

// The end-to-end tests build the real binary once per test binary (lazily, so
// `go test -run Mapper` or fuzzing does not pay for it) and speak LSP over its stdio.
var (
	buildOnce sync.Once
	binDir    string
	binPath   string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

func binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "mf-lsp-test-"); buildErr == nil {
			binPath, buildErr = lsptest.Build(binDir)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

func start(t *testing.T) *lsptest.Client {
	return lsptest.StartBinary(t, binary(t))
}

func rpcCode(err error) int64 {
	var e *jsonrpc.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// rpcData is the errcode.Data of a JSON-RPC error reply (zero when it has none).
func rpcData(t *testing.T, err error) errcode.Data {
	t.Helper()
	var e *jsonrpc.Error
	var d errcode.Data
	if errors.As(err, &e) && e.Data != nil {
		if jerr := json.Unmarshal(e.Data, &d); jerr != nil {
			t.Errorf("error data %s: %v", e.Data, jerr)
		}
	}
	return d
}

// alive checks the server still answers a request.
func alive(t *testing.T, c *lsptest.Client) {
	t.Helper()
	var res any
	if err := c.Call("workspace/symbol", map[string]any{"query": ""}, &res); err != nil {
		t.Fatalf("server no longer answers: %v", err)
	}
}

func TestInitializeShutdown(t *testing.T) {
	c := start(t)
	raw := c.Initialize("file:///tmp/project", map[string]any{"task": "T-7"})
	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
		ServerInfo   struct{ Name string }      `json:"serverInfo"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if res.ServerInfo.Name != "mf-lsp" {
		t.Errorf("serverInfo.name = %q", res.ServerInfo.Name)
	}
	for _, cap := range []string{"textDocumentSync", "hoverProvider", "codeLensProvider", "codeActionProvider",
		"executeCommandProvider", "documentSymbolProvider", "workspaceSymbolProvider"} {
		if _, ok := res.Capabilities[cap]; !ok {
			t.Errorf("capability %s missing", cap)
		}
	}
	var sync struct {
		Change            int
		WillSaveWaitUntil bool
		Save              json.RawMessage
		OpenClose         bool
	}
	_ = json.Unmarshal(res.Capabilities["textDocumentSync"], &sync)
	if sync.Change != 2 || !sync.WillSaveWaitUntil || !sync.OpenClose || len(sync.Save) == 0 {
		t.Errorf("textDocumentSync = %s; want incremental, openClose, willSaveWaitUntil, save", res.Capabilities["textDocumentSync"])
	}
	alive(t, c)
	if err := c.Call("initialize", lsptest.InitializeParams("", nil), nil); rpcCode(err) != jsonrpc.CodeInvalidRequest {
		t.Errorf("second initialize: %v; want InvalidRequest", err)
	}
	if err := c.Shutdown(); err != nil {
		t.Fatal(err)
	}
}

func TestExitWithoutShutdownExitsOne(t *testing.T) {
	c := start(t)
	c.Initialize("", nil)
	if err := c.Notify("exit", nil); err != nil {
		t.Fatal(err)
	}
	err := c.WaitExit()
	if err == nil || !strings.Contains(err.Error(), "exit status 1") {
		t.Fatalf("exit without shutdown: %v; want exit status 1", err)
	}
}

func TestRequestsAfterShutdown(t *testing.T) {
	c := start(t)
	c.Initialize("", nil)
	if err := c.Call("shutdown", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call("textDocument/hover", map[string]any{}, nil); rpcCode(err) != jsonrpc.CodeInvalidRequest {
		t.Errorf("hover after shutdown: %v; want InvalidRequest", err)
	}
	_ = c.Notify("exit", nil)
	if err := c.WaitExit(); err != nil {
		t.Fatal(err)
	}
}

// The executeCommand capability lists exactly the commands of docs/protocol.md,
// which are the contract's (session.Commands; session's TestContractDocs).
func TestCapabilitiesListCommands(t *testing.T) {
	doc, err := os.ReadFile("../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, m := range regexp.MustCompile("(?m)^\\| `(magicfrog\\.[A-Za-z]+)` \\|").FindAllStringSubmatch(string(doc), -1) {
		want = append(want, m[1])
	}
	slices.Sort(want)
	if len(want) == 0 {
		t.Fatal("no commands found in docs/protocol.md")
	}

	c := start(t)
	var res struct {
		Capabilities struct {
			ExecuteCommandProvider struct {
				Commands []string `json:"commands"`
			} `json:"executeCommandProvider"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(c.Initialize("", nil), &res); err != nil {
		t.Fatal(err)
	}
	got := slices.Sorted(slices.Values(res.Capabilities.ExecuteCommandProvider.Commands))
	if !slices.Equal(got, want) {
		t.Errorf("executeCommand commands = %v\nwant (docs/protocol.md) %v", got, want)
	}
	var declared []string
	for _, c := range session.Commands {
		declared = append(declared, c.Name)
	}
	if slices.Sort(declared); !slices.Equal(got, declared) {
		t.Errorf("executeCommand commands = %v\nwant (session.Commands) %v", got, declared)
	}
	err = c.Call("workspace/executeCommand", map[string]any{"command": "magicfrog.nope"}, nil)
	if rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "unknown command") || rpcData(t, err).Code != errcode.InvalidArgument {
		t.Errorf("unknown command: %v; want InvalidParams naming it, code invalid-argument", err)
	}
}

func TestRequestBeforeInitialize(t *testing.T) {
	c := start(t)
	err := c.Call("textDocument/hover", map[string]any{}, nil)
	if rpcCode(err) != -32002 {
		t.Fatalf("hover before initialize: %v; want -32002 ServerNotInitialized", err)
	}
	// A notification before initialize is dropped, not fatal.
	_ = c.Notify("textDocument/didOpen", map[string]any{})
	c.Initialize("", nil)
	alive(t, c)
	if err := c.Shutdown(); err != nil {
		t.Fatal(err)
	}
}

func TestUnknownMethod(t *testing.T) {
	c := start(t)
	c.Initialize("", nil)
	err := c.Call("magicfrog/bogus", map[string]any{}, nil)
	if rpcCode(err) != jsonrpc.CodeMethodNotFound {
		t.Errorf("unknown method: %v; want MethodNotFound", err)
	}
	_ = c.Notify("magicfrog/bogusNotification", map[string]any{})
	_ = c.Notify("$/somethingOptional", map[string]any{})
	alive(t, c)
	if err := c.Shutdown(); err != nil {
		t.Fatal(err)
	}
}

func TestMalformedInput(t *testing.T) {
	c := start(t)
	c.Initialize("", nil)
	cases := []struct {
		name string
		raw  []byte
		code int64
		id   bool // reply carries the request id (else id null)
	}{
		{"not JSON", lsptest.Frame(`{"jsonrpc":"2.0","id":1,"method":`), jsonrpc.CodeParseError, false},
		{"not an object", lsptest.Frame(`42`), jsonrpc.CodeInvalidRequest, false},
		{"batch", lsptest.Frame(`[{"jsonrpc":"2.0","id":1,"method":"shutdown"}]`), jsonrpc.CodeInvalidRequest, false},
		{"method not a string", lsptest.Frame(`{"jsonrpc":"2.0","id":"m1","method":7}`), jsonrpc.CodeInvalidRequest, true},
		{"fractional id", lsptest.Frame(`{"jsonrpc":"2.0","id":1.5,"method":"shutdown"}`), jsonrpc.CodeInvalidRequest, false},
		{"wrong jsonrpc", lsptest.Frame(`{"jsonrpc":"1.0","id":"m2","method":"shutdown"}`), jsonrpc.CodeInvalidRequest, true},
		{"neither request nor response", lsptest.Frame(`{"jsonrpc":"2.0","id":"m3"}`), jsonrpc.CodeInvalidRequest, true},
		{"no Content-Length", []byte("Content-Type: application/json\r\n\r\n"), jsonrpc.CodeParseError, false},
		{"junk before header", append([]byte("garbage!"), lsptest.Frame(`{"jsonrpc":"2.0","id":"m4","method":7}`)...), jsonrpc.CodeInvalidRequest, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := len(c.NullIDErrors())
			if err := c.SendRaw(tc.raw); err != nil {
				t.Fatal(err)
			}
			if tc.id {
				var id struct{ ID string }
				_ = json.Unmarshal(tc.raw[strings.Index(string(tc.raw), "{"):], &id)
				r, err := c.WaitRawReply(id.ID)
				if err != nil {
					t.Fatal(err)
				}
				if r.Error == nil || r.Error.Code != tc.code || r.Error.Message == "" {
					t.Errorf("reply = %+v; want code %d with a message", r.Error, tc.code)
				}
				alive(t, c)
				return
			}
			if err := c.WaitFor("null-id error", func(r lsptest.Recorded) bool { return len(r.NullIDErrors) > before }); err != nil {
				t.Fatal(err)
			}
			got := c.NullIDErrors()[before]
			if got.Code != tc.code || got.Message == "" {
				t.Errorf("reply = %d %q; want code %d with a message", got.Code, got.Message, tc.code)
			}
			alive(t, c)
		})
	}
	// Wrong param types: glsp's decoding fails, we answer InvalidParams with why.
	err := c.Call("textDocument/hover", map[string]any{"position": "top"}, nil)
	if rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "hover") {
		t.Errorf("hover with wrong param types: %v; want InvalidParams", err)
	}
	alive(t, c)
	if err := c.Shutdown(); err != nil {
		t.Fatal(err)
	}
}

// Errors for malformed requests that carry an id reach the caller of that id.
func TestMalformedRequestWithIDIsAnswered(t *testing.T) {
	c := start(t)
	c.Initialize("", nil)
	// A known method with params glsp cannot decode: InvalidParams on the same id.
	if err := c.SendRaw(lsptest.Frame(`{"jsonrpc":"2.0","id":"p1","method":"textDocument/hover","params":"top"}`)); err != nil {
		t.Fatal(err)
	}
	r, err := c.WaitRawReply("p1")
	if err != nil {
		t.Fatal(err)
	}
	if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("reply = %+v; want InvalidParams", r.Error)
	}
	alive(t, c)
}

func TestHugeDocument(t *testing.T) {
	c := start(t)
	// Decoding 20 MB of JSON takes seconds in a -race build of the server.
	c.Timeout = time.Minute
	c.Initialize("", nil)
	const uri = "file:///tmp/huge.md"
	text := strings.Repeat("0123456789abcdef\n", 20<<20/17+1) // just over 20 MB
	if err := c.Notify("textDocument/didOpen", map[string]any{
		"textDocument": map[string]any{"uri": uri, "languageId": "markdown", "version": 1, "text": text},
	}); err != nil {
		t.Fatal(err)
	}
	m, err := c.WaitNotification("window/showMessage", func(p json.RawMessage) bool {
		return strings.Contains(string(p), "huge.md")
	})
	if err != nil {
		t.Fatal(err)
	}
	var msg struct{ Message string }
	_ = json.Unmarshal(m.Params, &msg)
	if !strings.Contains(msg.Message, "MB") || !strings.Contains(msg.Message, "limit") {
		t.Errorf("showMessage = %q; want the size and the limit", msg.Message)
	}
	// Edits to the ignored document are ignored quietly; the server still answers.
	_ = c.Notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"range": rng(0, 0, 0, 0), "text": "x"}},
	})
	alive(t, c)
	if err := c.Shutdown(); err != nil {
		t.Fatal(err)
	}
}

func TestInvalidInitializationOptionsAreReported(t *testing.T) {
	c := start(t)
	c.Initialize("", map[string]any{"budget": "lots", "today": "2026-13-01", "agent": []string{"larry"}, "task": "T-7"})
	m, err := c.WaitNotification("window/showMessage", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"budget", "today", "agent", "not a known option"} {
		if !strings.Contains(string(m.Params), want) {
			t.Errorf("showMessage %s does not mention %q", m.Params, want)
		}
	}
	alive(t, c)
	if err := c.Shutdown(); err != nil {
		t.Fatal(err)
	}
}

func TestStdioFlagServes(t *testing.T) {
	c := lsptest.StartBinary(t, binary(t), "--stdio")
	c.Initialize("", nil)
	if err := c.Shutdown(); err != nil {
		t.Fatal(err)
	}
}

func rng(l1, c1, l2, c2 int) map[string]any {
	p := func(l, c int) map[string]any { return map[string]any{"line": l, "character": c} }
	return map[string]any{"start": p(l1, c1), "end": p(l2, c2)}
}
