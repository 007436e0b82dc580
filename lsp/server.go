package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/magicfrog/mf-lsp/lsp/internal/jsonrpc"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/session"
)

// Options configure a Server. The zero value is what production uses.
type Options struct {
	// Log receives the server's own log (never stdout: that is the protocol).
	// Default os.Stderr.
	Log io.Writer
	// MaxMessageBytes bounds one JSON-RPC message; larger ones are drained and
	// answered with an error. Default DefaultMaxMessageBytes.
	MaxMessageBytes int64
	// MaxDocumentBytes bounds one open document; larger ones are not tracked and the
	// user is told why. Default DefaultMaxDocumentBytes.
	MaxDocumentBytes int
	// Version is reported in serverInfo. Default: the module version from build info.
	Version string
	// Now is the server's clock: the journal's today (unless the today setting
	// names one), open-loop ages and the `updated` a save writes. Default
	// time.Now; tests pin it (clock.go).
	Now func() time.Time

	// beforeLoad, set by tests, runs before each memory tree is loaded
	// (session.Options.BeforeLoad): a test holds a load with it.
	beforeLoad func(engine.Options)
}

// ErrExitWithoutShutdown is returned by Serve when the client sent exit without a
// shutdown first, or went away without exit; the spec asks for exit code 1 then.
var ErrExitWithoutShutdown = errors.New("lsp: connection ended without shutdown")

// lifecycle is where the session stands; see Server.Handle.
type lifecycle int32

const (
	stateNew lifecycle = iota
	stateRunning
	stateShutdown
	stateExited
)

// Server is the mf-lsp language server: the connection to one client over a
// session.Session that holds memory and answers. Feature files add a handler
// each; handlers.go is the one place that wires them to LSP requests. Everything
// on a Server is safe for concurrent use, because Async funcs and Server.Go
// goroutines run beside the loop.
type Server struct {
	opts Options
	log  *log.Logger

	// handler is glsp's typed dispatcher, filled in by registerHandlers (handlers.go).
	handler protocol.Handler
	// extra handles methods glsp does not know (or ones that need the raw params); it
	// is consulted before handler. Keys are LSP method names.
	extra map[string]RawHandler
	// commands are the workspace/executeCommand commands (commands.go).
	commands map[string]CommandFunc

	// sess is the protocol-free core: memory, open documents, features.
	sess *session.Session
	// Docs are the open documents (the session's, seen from the protocol).
	Docs *Documents

	state        atomic.Int32 // lifecycle
	shutdownSeen atomic.Bool

	mu         sync.Mutex
	settingErr []error
	clientCaps protocol.ClientCapabilities
	trace      protocol.TraceValue
	conn       *jsonrpc.Conn
	notify     glsp.NotifyFunc // captured at initialized
	ready      chan struct{}   // closed at initialized
	progress   map[string]*Progress
	seq        atomic.Int64

	// changePending: the memoryChanged goroutine is running; changeDirty: memory
	// changed since it last rendered (diagnostics.go). Guarded by mu.
	changePending, changeDirty bool
}

// RawHandler handles one LSP method given its raw params (ctx.Params). It may return
// Async for slow work.
type RawHandler func(ctx *glsp.Context) (any, error)

// NewServer makes a server ready to Serve one connection.
func NewServer(opts Options) *Server {
	if opts.Log == nil {
		opts.Log = os.Stderr
	}
	if opts.Version == "" {
		opts.Version = "devel"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
			opts.Version = bi.Main.Version
		}
	}
	s := &Server{
		opts:     opts,
		log:      log.New(opts.Log, "mf-lsp: ", log.LstdFlags|log.Lmsgprefix),
		extra:    map[string]RawHandler{},
		trace:    protocol.TraceValueOff,
		ready:    make(chan struct{}),
		progress: map[string]*Progress{},
	}
	s.sess = s.newSession()
	s.Docs = &Documents{sess: s.sess}
	s.registerHandlers()
	return s
}

// Serve runs one LSP session over rwc (stdio in production, a net.Pipe end in tests)
// until exit, the end of input, or ctx is done. It returns nil after a clean
// shutdown+exit and ErrExitWithoutShutdown otherwise.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) error {
	return NewServer(opts).Serve(ctx, rwc)
}

// Serve runs the session; see the package-level Serve. A Server serves once.
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser) error {
	conn := s.newConn(ctx, rwc)
	s.mu.Lock()
	s.conn = conn
	s.mu.Unlock()
	_ = conn.Run(glspHandler(s, conn, s.log.Printf)) // the conn logged why it ended
	if lifecycle(s.state.Load()) == stateExited && s.shutdownSeen.Load() {
		return nil
	}
	return ErrExitWithoutShutdown
}

// Handle implements glsp.Handler. It runs the LSP lifecycle itself (glsp gets it
// wrong: -32600 instead of -32002 before initialize, and it refuses exit after
// shutdown) and passes everything else to extra, then to glsp's typed dispatch.
func (s *Server) Handle(ctx *glsp.Context) (r any, validMethod, validParams bool, err error) {
	state := lifecycle(s.state.Load())
	switch ctx.Method {
	case string(protocol.MethodInitialize):
		if state != stateNew {
			return nil, true, true, Errorf(CodeInvalidRequest, "initialize may only be sent once")
		}
		r, err = s.initialize(ctx)
		if err == nil {
			s.state.Store(int32(stateRunning))
			s.handler.SetInitialized(true) // let glsp's own gate through
		}
		return r, true, true, err
	case string(protocol.MethodExit):
		s.state.Store(int32(stateExited))
		return nil, true, true, nil
	}
	switch state {
	case stateNew:
		// Notifications answered with an error are dropped by the adapter (logged).
		return nil, true, true, Errorf(CodeServerNotInitialized, "server not initialized: send initialize before %s", ctx.Method)
	case stateShutdown, stateExited:
		return nil, true, true, Errorf(CodeInvalidRequest, "server is shutting down: %s after shutdown", ctx.Method)
	}
	if ctx.Method == string(protocol.MethodShutdown) {
		s.sess.Shutdown()
		s.state.Store(int32(stateShutdown))
		s.shutdownSeen.Store(true)
		return nil, true, true, nil
	}
	if h, ok := s.extra[ctx.Method]; ok {
		r, err = h(ctx)
		return r, true, true, err
	}
	return s.handler.Handle(ctx)
}

// initialize answers the initialize request: it reads the client's capabilities, the
// workspace and initializationOptions, and announces what we serve.
func (s *Server) initialize(ctx *glsp.Context) (any, error) {
	var params protocol.InitializeParams
	if err := json.Unmarshal(ctx.Params, &params); err != nil {
		return nil, Errorf(CodeInvalidParams, "invalid initialize params: %v", err)
	}
	var raw struct {
		InitializationOptions json.RawMessage `json:"initializationOptions"`
	}
	_ = json.Unmarshal(ctx.Params, &raw) // cannot fail where the line above succeeded
	settings, problems := session.ParseSettings(raw.InitializationOptions)
	settings.ProjectDir = projectDir(&params)

	s.sess.SetSettings(settings)
	s.mu.Lock()
	s.settingErr = problems
	s.clientCaps = params.Capabilities
	if params.Trace != nil {
		s.trace = *params.Trace
	}
	s.mu.Unlock()
	for _, p := range problems {
		s.log.Printf("initializationOptions: %v", p)
	}
	return protocol.InitializeResult{
		Capabilities: s.capabilities(),
		ServerInfo:   &protocol.InitializeResultServerInfo{Name: "mf-lsp", Version: &s.opts.Version},
	}, nil
}

// projectDir is the first workspace folder, else rootUri, else rootPath (protocol.md).
func projectDir(p *protocol.InitializeParams) string {
	var uri string
	switch {
	case len(p.WorkspaceFolders) > 0:
		uri = p.WorkspaceFolders[0].URI
	case p.RootURI != nil:
		uri = *p.RootURI
	case p.RootPath != nil:
		return *p.RootPath
	}
	if uri == "" {
		return ""
	}
	path, err := session.URIToPath(uri)
	if err != nil {
		return ""
	}
	return path
}

// initialized: the client is ready for notifications and requests from us. Capture
// its notify func and tell the user about bad initializationOptions now that a
// message box can be shown.
func (s *Server) initialized(ctx *glsp.Context, _ *protocol.InitializedParams) error {
	s.mu.Lock()
	first := s.notify == nil
	s.notify = ctx.Notify
	problems := s.settingErr
	s.mu.Unlock()
	if !first {
		return nil
	}
	close(s.ready)
	s.Go("load memory", func(context.Context) { s.loadMemory() })
	if len(problems) > 0 {
		msg := "mf-lsp: ignoring invalid initializationOptions (defaults used):"
		for _, p := range problems {
			msg += "\n- " + p.Error()
		}
		s.ShowMessage(protocol.MessageTypeWarning, "%s", msg)
	}
	return nil
}

func (s *Server) setTrace(_ *glsp.Context, p *protocol.SetTraceParams) error {
	s.mu.Lock()
	s.trace = p.Value
	s.mu.Unlock()
	return nil
}

// Settings returns the settings from initializationOptions (defaults until initialize).
func (s *Server) Settings() session.Settings { return s.sess.Settings() }

// ClientCapabilities returns what the client announced at initialize.
func (s *Server) ClientCapabilities() protocol.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clientCaps
}

// Ready is closed when the client sent initialized; code that pushes to the client on
// its own (file watchers) waits for it.
func (s *Server) Ready() <-chan struct{} { return s.ready }

// Notify sends a notification to the client. Safe from any goroutine, including
// handlers on the read loop (sending does not wait for the client).
func (s *Server) Notify(method string, params any) {
	s.mu.Lock()
	notify, conn := s.notify, s.conn
	s.mu.Unlock()
	switch {
	case notify != nil:
		notify(method, params)
	case conn != nil:
		// Before initialized only logMessage/showMessage/$/progress should be sent;
		// that is the caller's business, not worth a queue here.
		if err := conn.Notify(method, params); err != nil {
			s.log.Printf("notify %s: %v", method, err)
		}
	default:
		s.log.Printf("notify %s dropped: not connected", method)
	}
}

// Call sends a request to the client and waits for its reply. NEVER call it from a
// handler running on the read loop (it deadlocks: the reply is read by that loop);
// call it from an Async func or a Server.Go goroutine.
func (s *Server) Call(ctx context.Context, method string, params, result any) error {
	s.mu.Lock()
	conn := s.conn
	s.mu.Unlock()
	if conn == nil {
		return fmt.Errorf("call %s: not connected", method)
	}
	return conn.Call(ctx, method, params, result)
}

// Go runs fn beside the read loop, with a context that ends with the connection, and
// recovers (and logs) a panic in it. Use it for work that must talk to the client.
func (s *Server) Go(name string, fn func(ctx context.Context)) {
	s.mu.Lock()
	conn := s.conn
	s.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer cancel()
		defer func() {
			if p := recover(); p != nil {
				s.log.Printf("panic in %s: %v\n%s", name, p, debug.Stack())
				s.LogMessage(protocol.MessageTypeError, "internal error in %s: %v", name, p)
			}
		}()
		if conn != nil {
			go func() {
				select {
				case <-conn.Done():
					cancel()
				case <-ctx.Done():
				}
			}()
		}
		fn(ctx)
	}()
}

// LogMessage logs to stderr and to the client's output panel (window/logMessage).
func (s *Server) LogMessage(typ protocol.MessageType, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.log.Print(msg)
	s.Notify(string(protocol.ServerWindowLogMessage), &protocol.LogMessageParams{Type: typ, Message: msg})
}

// ShowMessage pops a message up in the client (window/showMessage) and logs it.
func (s *Server) ShowMessage(typ protocol.MessageType, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.log.Print(msg)
	s.Notify(string(protocol.ServerWindowShowMessage), &protocol.ShowMessageParams{Type: typ, Message: msg})
}

// ShowMessageRequest asks the user to pick one of actions (window/showMessageRequest).
// It returns at once and may be called from a handler: the request runs beside the
// read loop and then calls then(choice, err) there; choice is "" when the user
// dismissed the message. then runs on its own goroutine: lock what it touches.
func (s *Server) ShowMessageRequest(typ protocol.MessageType, message string, actions []string, then func(choice string, err error)) {
	items := make([]protocol.MessageActionItem, len(actions))
	for i, a := range actions {
		items[i] = protocol.MessageActionItem{Title: a}
	}
	s.Go("showMessageRequest", func(ctx context.Context) {
		var picked *protocol.MessageActionItem
		err := s.Call(ctx, string(protocol.ServerWindowShowMessageRequest),
			&protocol.ShowMessageRequestParams{Type: typ, Message: message, Actions: items}, &picked)
		choice := ""
		if picked != nil {
			choice = picked.Title
		}
		if then != nil {
			then(choice, err)
		}
	})
}

// PublishDiagnostics sends the diagnostics of one document. A nil slice is sent as []
// (glsp would send null, which clients reject), clearing the document's diagnostics.
func (s *Server) PublishDiagnostics(uri protocol.DocumentUri, version *int32, diags []protocol.Diagnostic) {
	if diags == nil {
		diags = []protocol.Diagnostic{}
	}
	var v *protocol.UInteger
	if version != nil && *version >= 0 {
		u := protocol.UInteger(*version)
		v = &u
	}
	s.Notify(string(protocol.ServerTextDocumentPublishDiagnostics), &protocol.PublishDiagnosticsParams{URI: uri, Version: v, Diagnostics: diags})
}

// Stdio is the server's end of a client that started it: stdin and stdout.
func Stdio() io.ReadWriteCloser { return stdio{} }

type stdio struct{}

func (stdio) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (stdio) Write(p []byte) (int, error) { return os.Stdout.Write(p) }

// Close closes stdout, which tells the client we are gone; stdin is left to the
// process exit (closing it would not unblock a pending read on every platform).
func (stdio) Close() error { return os.Stdout.Close() }
