package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"sort"
	"time"

	"github.com/tliron/glsp"

	"github.com/magicfrog/mf-lsp/engine/errcode"
	"github.com/magicfrog/mf-lsp/lsp/internal/jsonrpc"
	"github.com/magicfrog/mf-lsp/session"
)

// CommandFunc runs one workspace/executeCommand command. arg is the first element of
// the request's arguments (docs/protocol.md: one JSON object), or nil. Slow commands
// return Async; commands that report progress use BeginProgress with
// WorkDoneToken(ctx).
type CommandFunc func(ctx *glsp.Context, arg json.RawMessage) (any, error)

// registerCommands binds every command of the contract (session/commands.go)
// to its handler, each a method in its feature file. The capability list is
// derived from these keys, and tests check them against the contract and
// docs/protocol.md.
func (s *Server) registerCommands() map[string]CommandFunc {
	return commandTable(
		bind(session.RenderCmd, s.renderCommand),                     // cmd_view.go
		bind(session.RenderIntoCmd, s.renderIntoCommand),             // cmd_bridge.go
		bind(session.EffectiveViewCmd, s.effectiveViewCommand),       // cmd_view.go
		bind(session.DescribeCmd, s.describeCommand),                 // cmd_view.go
		bind(session.ShowEntryCmd, s.showEntryCommand),               // cmd_view.go
		bind(session.PromoteCmd, s.promoteCommand),                   // cmd_write.go
		bind(session.ExportCmd, s.exportCommand),                     // cmd_write.go
		bind(session.ImportCmd, s.importCommand),                     // cmd_write.go
		bind(session.TodayCmd, s.todayCommand),                       // cmd_write.go
		bind(session.RegisterAgentCmd, s.registerAgentCommand),       // cmd_write.go
		bind(session.RegisterTaskCmd, s.registerTaskCommand),         // cmd_write.go
		bind(session.ResolveConflictCmd, s.resolveConflictCommand),   // save.go
		bind(session.ResolveOverwriteCmd, s.resolveOverwriteCommand), // cmd_overwrite.go
		bind(session.RollupCmd, s.rollupCommand),                     // cmd_rollup.go
		bind(session.SyncCmd, s.syncCommand),                         // cmd_sync.go
		bind(session.SyncStatusCmd, s.syncStatusCommand),             // cmd_sync.go
		bind(session.SyncResolveCmd, s.syncResolveCommand),           // cmd_sync.go
		bind(session.SessionInfoCmd, s.sessionInfoCommand),           // cmd_session_info.go
		bind(session.SkillsIntoCmd, s.skillsIntoCommand),             // cmd_bridge.go
		bind(session.SearchCmd, s.searchCommand),                     // cmd_search.go
	)
}

// boundCommand is a command's name and its handler taking raw arguments.
type boundCommand struct {
	name string
	fn   CommandFunc
}

// bind makes a command's handler from one taking its declared argument type:
// the argument is decoded into A (DecodeArg: InvalidParams naming the
// command), and the result, direct or Async, must be the declared R (or
// null): any other is an InternalError naming the command, so the tests that
// run a command hold its handler to the contract.
func bind[A, R any](c session.Command[A, R], fn func(ctx *glsp.Context, a A) (any, error)) boundCommand {
	check := func(res any, err error) (any, error) {
		if err != nil || res == nil {
			return res, err
		}
		if _, ok := res.(R); !ok {
			return nil, Errorf(CodeInternalError, "BUG: %s answered a %T, not its declared %s", c.Name, res, reflect.TypeFor[R]())
		}
		return res, nil
	}
	// A command that takes no argument ignores what it is sent (a Lua
	// client's empty table arrives as []).
	noArg := reflect.TypeFor[A]().Kind() == reflect.Struct && reflect.TypeFor[A]().NumField() == 0
	return boundCommand{c.Name, func(ctx *glsp.Context, arg json.RawMessage) (any, error) {
		var a A
		if noArg {
			arg = nil
		}
		if err := DecodeArg(c.Name, arg, &a); err != nil {
			return nil, err
		}
		res, err := fn(ctx, a)
		if async, ok := res.(Async); ok && err == nil {
			return Async(func(ctx context.Context) (any, error) { return check(async(ctx)) }), nil
		}
		return check(res, err)
	}}
}

func commandTable(cs ...boundCommand) map[string]CommandFunc {
	t := make(map[string]CommandFunc, len(cs))
	for _, c := range cs {
		t[c.name] = c.fn
	}
	return t
}

// commandNames is the sorted command list for the executeCommand capability.
func (s *Server) commandNames() []string {
	names := make([]string, 0, len(s.commands))
	for name := range s.commands {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// executeCommand dispatches workspace/executeCommand from the raw params (glsp's
// decoded Arguments would be []any, and its workDoneToken nil).
func (s *Server) executeCommand(ctx *glsp.Context) (any, error) {
	var params struct {
		Command   string            `json:"command"`
		Arguments []json.RawMessage `json:"arguments"`
	}
	if err := decodeParams(ctx, &params); err != nil {
		return nil, commandError(err)
	}
	fn, known := s.commands[params.Command]
	if !known {
		return nil, commandError(Errorf(CodeInvalidParams, "unknown command %q (known: %v)", params.Command, s.commandNames()))
	}
	var arg json.RawMessage
	if len(params.Arguments) > 0 {
		arg = params.Arguments[0]
	}
	res, err := fn(ctx, arg)
	if async, ok := res.(Async); ok && err == nil {
		return Async(func(ctx context.Context) (any, error) {
			res, err := async(ctx)
			return res, commandError(err)
		}), nil
	}
	return res, commandError(err)
}

// commandError is the one place a command's failure becomes its JSON-RPC
// error: the error's errcode.Data (errcode.DataOf: any error in the chain,
// through a jsonrpc.Error's Cause, that names its code) is the error's data,
// and an InvalidParams error with no coded cause is invalid-argument. The
// message stays the one the user reads; clients decide on data.code
// (docs/protocol.md, "Errors"). Uncoded errors (a cancellation) pass as they are.
func commandError(err error) error {
	if err == nil {
		return nil
	}
	var je *jsonrpc.Error
	isRPC := errors.As(err, &je)
	if isRPC && len(je.Data) > 0 {
		return err
	}
	d, ok := errcode.DataOf(err)
	if !ok && isRPC && je.Code == CodeInvalidParams {
		d, ok = errcode.Data{Code: errcode.InvalidArgument}, true
	}
	if !ok {
		return err
	}
	data, jerr := json.Marshal(d)
	if jerr != nil {
		return err
	}
	out := &jsonrpc.Error{Code: CodeRequestFailed, Message: err.Error(), Data: data, Cause: err}
	if isRPC {
		out.Code, out.Message = je.Code, je.Message
	}
	return out
}

// DecodeArg decodes a command argument into v (a pointer to a struct), with an
// InvalidParams error naming the command that the user can act on. A missing or null
// argument leaves v as it is.
func DecodeArg(command string, arg json.RawMessage, v any) error {
	if len(arg) == 0 || string(arg) == "null" {
		return nil
	}
	if err := json.Unmarshal(arg, v); err != nil {
		return Errorf(CodeInvalidParams, "%s: invalid argument: %v", command, err)
	}
	return nil
}

// MissingArg is the error for a required argument field that is absent.
func MissingArg(command, field string) error {
	return Errorf(CodeInvalidParams, "%s: argument %q is required", command, field)
}

// loadWait bounds how long a command waits for a tree to load.
const loadWait = 2 * time.Minute

// withSnapshot is the one way a command (or other work beside the read loop)
// reaches memory: a result that waits, with the request's context (for at
// most loadWait), for the tree that holds path ("" for the main tree), and
// runs fn on its snapshot (Session.AwaitSnapshot: a path the main tree
// locates but holds no note at gets the main tree's, with Note nil). A tree
// that could not be opened is a RequestFailed error the user can read, a path
// no tree holds an InvalidParams error naming cmd; fn is not called then.
func (s *Server) withSnapshot(cmd, path string, fn func(ctx context.Context, snap *session.Snapshot) (any, error)) Async {
	return func(ctx context.Context) (any, error) {
		wctx, cancel := context.WithTimeout(ctx, loadWait)
		snap, err := s.sess.AwaitSnapshot(wctx, path)
		cancel()
		switch {
		case errors.Is(err, session.ErrNotNote):
			return nil, withCause(Errorf(CodeInvalidParams, "%s: %s is not a memory note", cmd, session.PathToURI(path)), err)
		case err != nil:
			return nil, Errorf(CodeRequestFailed, "mf-lsp: memory is not available: %v", err)
		}
		return fn(ctx, snap)
	}
}

// argURI checks a required uri argument: present and a file:// URI.
func argURI(command, uri string) (string, error) {
	if uri == "" {
		return "", MissingArg(command, "uri")
	}
	path, err := session.URIToPath(uri)
	if err != nil {
		return "", Errorf(CodeInvalidParams, "%s: argument \"uri\": %v", command, err)
	}
	return path, nil
}

// withCause sets e's cause (for a message that does not name it).
func withCause(e *jsonrpc.Error, cause error) *jsonrpc.Error {
	e.Cause = cause
	return e
}
