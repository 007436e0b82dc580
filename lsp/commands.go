package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"time"

	"github.com/tliron/glsp"

	"github.com/magicfrog/mf-lsp/session"
)

// CommandFunc runs one workspace/executeCommand command. arg is the first element of
// the request's arguments (docs/protocol.md: one JSON object), or nil. Slow commands
// return Async; commands that report progress use BeginProgress with
// WorkDoneToken(ctx).
type CommandFunc func(ctx *glsp.Context, arg json.RawMessage) (any, error)

// registerCommands lists every command of docs/protocol.md, each a method in its
// feature file. The capability list is derived from these keys, and a test checks
// them against docs/protocol.md.
func (s *Server) registerCommands() map[string]CommandFunc {
	return map[string]CommandFunc{
		"magicfrog.render":          s.renderCommand,          // cmd_view.go
		"magicfrog.renderInto":      s.renderIntoCommand,      // cmd_bridge.go
		"magicfrog.effectiveView":   s.effectiveViewCommand,   // cmd_view.go
		"magicfrog.describe":        s.describeCommand,        // cmd_view.go
		"magicfrog.showEntry":       s.showEntryCommand,       // cmd_view.go
		"magicfrog.promote":         s.promoteCommand,         // cmd_write.go
		"magicfrog.export":          s.exportCommand,          // cmd_write.go
		"magicfrog.import":          s.importCommand,          // cmd_write.go
		"magicfrog.today":           s.todayCommand,           // cmd_write.go
		"magicfrog.registerAgent":   s.registerAgentCommand,   // cmd_write.go
		"magicfrog.registerTask":    s.registerTaskCommand,    // cmd_write.go
		"magicfrog.resolveConflict": s.resolveConflictCommand, // save.go
		"magicfrog.rollup":          s.rollupCommand,          // cmd_rollup.go
		"magicfrog.sync":            s.syncCommand,            // cmd_sync.go
		"magicfrog.syncStatus":      s.syncStatusCommand,      // cmd_sync.go
		"magicfrog.syncResolve":     s.syncResolveCommand,     // cmd_sync.go
		"magicfrog.sessionInfo":     s.sessionInfoCommand,     // cmd_session_info.go

		"magicfrog.resolveOverwrite": s.resolveOverwriteCommand, // cmd_overwrite.go
	}
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
	if err := json.Unmarshal(ctx.Params, &params); err != nil {
		return nil, Errorf(CodeInvalidParams, "invalid params for workspace/executeCommand: %v", err)
	}
	fn, known := s.commands[params.Command]
	if !known {
		return nil, Errorf(CodeInvalidParams, "unknown command %q (known: %v)", params.Command, s.commandNames())
	}
	var arg json.RawMessage
	if len(params.Arguments) > 0 {
		arg = params.Arguments[0]
	}
	return fn(ctx, arg)
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
			return nil, Errorf(CodeInvalidParams, "%s: %s is not a memory note", cmd, session.PathToURI(path))
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

// noteArg is the "uri" field of the commands about one note; their argument
// structs embed it.
type noteArg struct {
	URI string `json:"uri"`
}

func (a noteArg) noteURI() string { return a.URI }

// decodeNoteArg decodes the argument of a command about one note into a (a
// pointer to a struct embedding noteArg) and checks its required uri; it
// returns the note's path.
func decodeNoteArg(command string, arg json.RawMessage, a interface{ noteURI() string }) (string, error) {
	if err := DecodeArg(command, arg, a); err != nil {
		return "", err
	}
	return argURI(command, a.noteURI())
}
