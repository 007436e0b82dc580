// Package mcpserver serves one participant's memory over the Model Context
// Protocol (github.com/modelcontextprotocol/go-sdk): the tools memory_context,
// memory_read, memory_write, memory_append, memory_search and memory_view,
// every note in scope as a resource memory://DIMENSION[/ID]/KEY with
// resources/subscribe, and the <memory> block as memory://context.
//
// It only translates: every check and every write is package participant's,
// over the engine's revision-checked store. A refusal or a stale write is a
// tool error (isError, with a message that says what to do); only an unknown
// tool or method is a protocol error, as the MCP specification has it. On
// stdio a line that is not one JSON-RPC 2.0 message is answered with a
// JSON-RPC error and the session goes on (Stdio); over HTTP a cross-origin
// browser request is refused (HTTPHandler).
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/magicfrog/mf-lsp/engine/errcode"
	"github.com/magicfrog/mf-lsp/engine/participant"
)

// Server is the MCP server of one participant.
type Server struct {
	p    *participant.Participant
	mcp  *mcp.Server
	logf func(string, ...any)

	mu         sync.Mutex
	resources  map[string]bool // URIs of the notes listed as resources
	generation string          // the <memory> block's generation last seen
}

// Options configure a Server.
type Options struct {
	Version string               // the server's version, as initialize reports it
	Logf    func(string, ...any) // diagnostics (stderr); nil: none
	Logger  *slog.Logger         // the SDK's log; nil: none
}

// New builds the server of participant p: tools, resources and the
// subscription handlers. Serve it with Run or HTTPHandler; Watch keeps it in
// step with the disk.
func New(p *participant.Participant, opts Options) *Server {
	s := &Server{p: p, logf: opts.Logf, resources: map[string]bool{}}
	if s.logf == nil {
		s.logf = func(string, ...any) {}
	}
	version := opts.Version
	if version == "" {
		version = "(devel)"
	}
	so := &mcp.ServerOptions{
		Instructions:       s.instructions(),
		Logger:             opts.Logger,
		SubscribeHandler:   s.subscribe,
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{ListChanged: false},
			Resources: &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
		},
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "mf-lsp", Title: "MagicFrog memory", Version: version}, so)
	// A tool error's structured content is its errcode.Data (or none), never
	// the SDK's zero output, which is no answer.
	s.mcp.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError {
				r.StructuredContent = nil
				if d, ok := toolErrorData.LoadAndDelete(r); ok {
					r.StructuredContent = d
				}
			}
			// An unknown tool stays a JSON-RPC error (the MCP specification's
			// rule), but one that says which tools there are.
			var we *jsonrpc.Error
			if method == "tools/call" && errors.As(err, &we) && we.Code == jsonrpc.CodeInvalidParams && strings.HasPrefix(we.Message, "unknown tool") {
				err = &jsonrpc.Error{Code: we.Code, Message: we.Message + "; the tools are " + strings.Join(ToolNames, ", ")}
			}
			return res, err
		}
	})
	s.addTools()
	s.mcp.AddResource(&mcp.Resource{
		URI: participant.ContextURI, Name: "memory-context", Title: "The <memory> block",
		Description: "This participant's <memory> block (the same text memory_context returns). Subscribe to hear when it changes.",
		MIMEType:    "text/plain",
	}, s.readContext)
	s.syncResources()
	return s
}

// MCP is the SDK server, for transports this package does not wrap.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Run serves one session on t (stdio: &mcp.StdioTransport{}) until the client
// goes away or ctx is done.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	return s.mcp.Run(ctx, t)
}

// HTTPHandler serves the streamable HTTP transport: every session is this
// one participant. Unless allowRemote, requests whose Host is not a loopback
// name are refused by the SDK's DNS-rebinding protection, and a request with
// an Origin header that is not this machine (http or https on localhost,
// 127.0.0.0/8 or ::1) is refused with 403 Forbidden: a web page the user
// visits may not read or write their memory (the MCP specification's rule
// for the streamable transport). A request without Origin (an agent host, a
// script) is not a browser's and is served.
func (s *Server) HTTPHandler(allowRemote bool) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{DisableLocalhostProtection: allowRemote})
	if allowRemote {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && !LoopbackOrigin(o) {
			http.Error(w, fmt.Sprintf("Forbidden: Origin %q is not this machine (localhost, 127.0.0.1, [::1]): a web page may not reach your memory; start mf-lsp mcp with --allow-remote to allow other origins", o), http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// LoopbackOrigin reports whether an Origin header names this machine: an
// http or https origin whose host is localhost or a loopback address.
func LoopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Path != "" && u.Path != "/" {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// instructions tell the agent who it is here and how to write safely.
func (s *Server) instructions() string {
	sc := s.p.Scope()
	var b strings.Builder
	b.WriteString("MagicFrog memory: notes in five dimensions (account < user < agent < task, plus device); the most specific note of a key wins.\n")
	b.WriteString("Start every session with memory_context and read the <memory> block it returns.\n")
	if a := s.p.Agent(); a != "" {
		fmt.Fprintf(&b, "You are agent %s: your own notes are dimension \"agent/%s\"; \"agent\" holds notes every agent shares.\n", a, a)
	} else {
		b.WriteString("This server has no agent (start it with --agent ID): \"agent\" holds notes every agent shares.\n")
	}
	if sc.Task != "" {
		fmt.Fprintf(&b, "Task %s: its own notes are \"task/%s\"; the project's notes for every task are \"task\".\n", sc.Task, sc.Task)
	}
	fmt.Fprintf(&b, "Log your work with memory_append (today's daily note, default journal %q). ", s.p.DefaultJournal())
	b.WriteString("Change a note with memory_read then memory_write with the revision and hash you read; a stale write is refused with the current note: merge and write again.\n")
	return b.String()
}

// toolErrorData holds, from toolError until the middleware sets it, the
// errcode.Data of a tool error result (the SDK replaces the structured
// content a handler sets with its output's).
var toolErrorData sync.Map // *mcp.CallToolResult → errcode.Data

// toolError is a tool result that reports err: its message, and for a stale
// write the note as it is now, as JSON, for the agent to merge. A coded
// error's errcode.Data becomes the result's structured content, the code the
// language server sends too (docs/protocol.md, "Errors").
func toolError(err error) *mcp.CallToolResult {
	res := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
	if d, ok := errcode.DataOf(err); ok {
		toolErrorData.Store(res, d)
	}
	var sw *participant.StaleWrite
	if errors.As(err, &sw) {
		cur := map[string]any{"error": "stale", "dimension": sw.Place, "key": sw.Key, "exists": sw.Exists,
			"expected_revision": sw.Expected, "current_revision": sw.CurrentRevision()}
		if sw.Current != nil {
			cur["current_hash"], cur["current_body"] = sw.Current.Hash, sw.Current.Body
		}
		if data, jerr := json.Marshal(cur); jerr == nil {
			res.Content = append(res.Content, &mcp.TextContent{Text: string(data)})
		}
	}
	return res
}
