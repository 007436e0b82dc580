package lsp

import (
	"context"
	"encoding/json"
	"errors"
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
	// BeforeShutdown, when set, runs when the client asks the server to shut
	// down, before the session lets go of its memory: the binary writes its
	// heap profile there (MF_LSP_MEMPROFILE), so that it shows what a loaded
	// session holds rather than what is left after it.
	BeforeShutdown func()
	// TokenCache keeps token counts across processes (hover's sizes, renders
	// under a budget); the binary makes one in the user's cache folder and
	// writes it at exit. nil counts in this process only.
	TokenCache *engine.TokenCache

	// beforeLoad, set by tests, runs before each memory tree is loaded
	// (session.Options.BeforeLoad): a test holds a load with it.
	beforeLoad func(engine.Options)
	// beforeDiagnostics, set by tests, runs on the diagnostics worker before
	// the diagnostics of a document's version are computed: a test makes them
	// slow with it.
	beforeDiagnostics func(uri protocol.DocumentUri, version int32)
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
	optIn      map[string]bool // the server's own notifications the client opted in to (clientcaps.go)
	trace      protocol.TraceValue
	conn       *jsonrpc.Conn
	notify     glsp.NotifyFunc // captured at initialized
	ready      chan struct{}   // closed at initialized
	progress   map[string]*Progress
	seq        atomic.Int64

	// changePending: the memoryChanged goroutine is running; changeDirty: memory
	// changed since it last rendered (diagnostics.go). Guarded by mu.
	changePending, changeDirty bool

	// diags runs the documents' diagnostics beside the read loop (diagworker.go).
	diags *diagWorker

	// renames are the moves of answered renames the client will announce (rename.go).
	renames issuedRenames
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
	s.diags = newDiagWorker(s)
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
	s.diags.stop()
	// The client is gone, with or without shutdown: the watchers stop, and a
	// batch they are applying (the history it records) ends before Serve
	// returns, so nothing of this server writes after it.
	s.sess.Shutdown()
	if lifecycle(s.state.Load()) == stateExited && s.shutdownSeen.Load() {
		return nil
	}
	return ErrExitWithoutShutdown
}

// Handle implements glsp.Handler. It runs the LSP lifecycle itself (glsp gets it
// wrong: -32600 instead of -32002 before initialize, and it refuses exit after
// shutdown) and passes everything else to extra, then to glsp's typed dispatch.
func (s *Server) Handle(ctx *glsp.Context) (r any, validMethod, validParams bool, err error) {
	defer s.sess.Busy()() // the session's background passes wait for the client's messages
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
		if s.opts.BeforeShutdown != nil {
			s.opts.BeforeShutdown()
		}
		s.diags.stop() // the runs in flight publish before the reply
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
	s.optIn = optedInNotifications(params.Capabilities.Experimental)
	if params.Trace != nil {
		s.trace = *params.Trace
	}
	s.mu.Unlock()
	for _, p := range problems {
		s.log.Printf("initializationOptions: %v", p)
	}
	return initializeResult{ // inlay.go
		Capabilities: capabilities317{ServerCapabilities: s.capabilities(), InlayHintProvider: true},
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

// Stdio is the server's end of a client that started it: stdin and stdout,
// each through the runtime's poller when it is a pipe or a socket (see
// Pollable).
func Stdio() io.ReadWriteCloser {
	return stdio{in: Pollable(os.Stdin), out: Pollable(os.Stdout)}
}

type stdio struct{ in, out *os.File }

func (s stdio) Read(p []byte) (int, error)  { return s.in.Read(p) }
func (s stdio) Write(p []byte) (int, error) { return s.out.Write(p) }

// Close closes stdout, which tells the client we are gone; stdin is left to the
// process exit (closing it would not unblock a pending read on every platform).
func (s stdio) Close() error { return s.out.Close() }
