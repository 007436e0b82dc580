package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/magicfrog/mf-lsp/engine/roam"
	"github.com/magicfrog/mf-lsp/session/base"
)

// The command contract: every magicfrog.* command of docs/protocol.md,
// declared once here as a Command value with its argument type A and its
// result type R, after gopls's command.Interface. From these declarations
//
//   - the language server's dispatch decodes each command's argument into its
//     A (lsp: registerCommands binds each Command to its handler);
//   - the code actions are built (Command.Action: a typed argument, never a
//     map);
//   - the editors' declarations are generated (editors/vscode/src/contract.ts
//     and editors/neovim/lua/magicfrog/contract.lua, by session's
//     TestContractFiles -update) and docs/protocol.md's command table is
//     checked, so a command without a declaration, a row or an editor type
//     fails a test.
//
// Argument fields are optional unless docs/protocol.md marks them required;
// omitempty keeps the arguments a code action carries as short as the
// client's own.

// Command is one command: its name, with argument A and result R.
type Command[A, R any] struct{ Name string }

// Spec is a command's declaration without its type parameters.
type Spec struct {
	Name   string
	Arg    reflect.Type // a struct
	Result reflect.Type // nil: the result is null; an interface: documented in docs/protocol.md
}

// Spec returns c's declaration.
func (c Command[A, R]) Spec() Spec {
	s := Spec{Name: c.Name, Arg: reflect.TypeFor[A](), Result: reflect.TypeFor[R]()}
	if s.Result == reflect.TypeFor[Null]() {
		s.Result = nil
	}
	return s
}

// Action is a code action (or lens) of kind running c with argument a.
func (c Command[A, R]) Action(title, kind string, a A) CommandAction {
	return CommandAction{Title: title, Kind: kind, Command: c.Name, Arg: a}
}

// Null is the result of a command that answers null.
type Null struct{}

// NoArgs is the argument of a command that takes none.
type NoArgs struct{}

// NoteArgs is the argument of a command about one note.
type NoteArgs struct {
	URI string `json:"uri"` // required
}

// PromoteArgs is magicfrog.promote's argument: the note and where to.
type PromoteArgs struct {
	NoteArgs
	PromoteRequest
}

// RenderIntoArgs is magicfrog.renderInto's argument.
type RenderIntoArgs struct {
	RenderRequest
	File string `json:"file,omitempty"`
}

// SkillsIntoArgs is magicfrog.skillsInto's argument: the scope (render's)
// and the skills folder, relative to the project ("" is .claude/skills).
type SkillsIntoArgs struct {
	RenderRequest
	Dir string `json:"dir,omitempty"`
}

// ExportArgs is magicfrog.export's argument.
type ExportArgs struct {
	Dir         string `json:"dir"` // required
	WithDevice  bool   `json:"withDevice,omitempty"`
	AllMachines bool   `json:"allMachines,omitempty"`
}

// ImportArgs is magicfrog.import's argument.
type ImportArgs struct {
	Dir string `json:"dir"` // required
}

// RegisterAgentArgs is magicfrog.registerAgent's argument.
type RegisterAgentArgs struct {
	ID     string `json:"id"` // required
	Shared bool   `json:"shared,omitempty"`
}

// RegisterTaskArgs is magicfrog.registerTask's argument.
type RegisterTaskArgs struct {
	ID string `json:"id"` // required
	// Shared: keep the task-root folder id shared (the project's "shared"),
	// the Keep shared fix of unregistered-task-folder.
	Shared bool `json:"shared,omitempty"`
}

// ResolveConflictArgs is magicfrog.resolveConflict's argument.
type ResolveConflictArgs struct {
	NoteArgs
	Choice string `json:"choice"` // required: takeDisk, keepMine, merge or compare
}

// ResolveOverwriteArgs is magicfrog.resolveOverwrite's argument.
type ResolveOverwriteArgs struct {
	NoteArgs
	Choice string `json:"choice"` // required: restore, merge or keep
}

// OverwriteResolved is magicfrog.resolveOverwrite's result: the note's revision afterwards.
type OverwriteResolved struct {
	Revision int `json:"revision"`
}

// SyncArgs is magicfrog.sync's argument.
type SyncArgs struct {
	Remote string `json:"remote,omitempty"`
}

// SyncStatusArgs is magicfrog.syncStatus's argument.
type SyncStatusArgs struct {
	Offline bool `json:"offline,omitempty"`
}

// SyncResolveArgs is magicfrog.syncResolve's argument.
type SyncResolveArgs struct {
	Path string `json:"path"` // required: the portable path
	Keep string `json:"keep"` // required: mine or theirs
}

// ShowEntryResult is magicfrog.showEntry's result.
type ShowEntryResult struct {
	Success bool `json:"success"`
	// A client without window/showDocument is answered the note's Location
	// instead (uri and range: line 1), for it to open itself.
	URI   string     `json:"uri,omitempty"`
	Range *LineRange `json:"range,omitempty"`
}

// LineRange is an LSP-shaped range ({start, end} of {line, character}), here the
// start of a note.
type LineRange struct {
	Start LinePos `json:"start"`
	End   LinePos `json:"end"`
}

// LinePos is an LSP-shaped position.
type LinePos struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// The commands.
var (
	RenderCmd           = Command[RenderRequest, any]{"magicfrog.render"} // the block, or with details a Preview
	RenderIntoCmd       = Command[RenderIntoArgs, base.Written]{"magicfrog.renderInto"}
	EffectiveViewCmd    = Command[ScopeRequest, EffectiveView]{"magicfrog.effectiveView"}
	DescribeCmd         = Command[NoteArgs, Description]{"magicfrog.describe"}
	ShowEntryCmd        = Command[NoteArgs, ShowEntryResult]{"magicfrog.showEntry"}
	PromoteCmd          = Command[PromoteArgs, Promoted]{"magicfrog.promote"}
	ExportCmd           = Command[ExportArgs, Exported]{"magicfrog.export"}
	ImportCmd           = Command[ImportArgs, Imported]{"magicfrog.import"}
	TodayCmd            = Command[TodayRequest, Daily]{"magicfrog.today"}
	RegisterAgentCmd    = Command[RegisterAgentArgs, Registration]{"magicfrog.registerAgent"}
	RegisterTaskCmd     = Command[RegisterTaskArgs, Registration]{"magicfrog.registerTask"}
	ResolveConflictCmd  = Command[ResolveConflictArgs, Null]{"magicfrog.resolveConflict"}
	ResolveOverwriteCmd = Command[ResolveOverwriteArgs, OverwriteResolved]{"magicfrog.resolveOverwrite"}
	RollupCmd           = Command[RollupRequest, *RollupReport]{"magicfrog.rollup"}
	SyncCmd             = Command[SyncArgs, *roam.Report]{"magicfrog.sync"}
	SyncStatusCmd       = Command[SyncStatusArgs, *roam.Report]{"magicfrog.syncStatus"}
	SyncResolveCmd      = Command[SyncResolveArgs, Null]{"magicfrog.syncResolve"}
	SessionInfoCmd      = Command[NoArgs, Info]{"magicfrog.sessionInfo"}
	SkillsIntoCmd       = Command[SkillsIntoArgs, SkillsWritten]{"magicfrog.skillsInto"}
	SearchCmd           = Command[SearchArgs, *SearchResult]{"magicfrog.search"}
)

// Commands is every command's declaration, in docs/protocol.md's order.
var Commands = []Spec{
	RenderCmd.Spec(), RenderIntoCmd.Spec(), EffectiveViewCmd.Spec(), DescribeCmd.Spec(),
	PromoteCmd.Spec(), ExportCmd.Spec(), ImportCmd.Spec(), RollupCmd.Spec(), TodayCmd.Spec(),
	ShowEntryCmd.Spec(), RegisterAgentCmd.Spec(), RegisterTaskCmd.Spec(), ResolveConflictCmd.Spec(),
	ResolveOverwriteCmd.Spec(), SyncCmd.Spec(), SyncStatusCmd.Spec(), SyncResolveCmd.Spec(), SessionInfoCmd.Spec(),
	SkillsIntoCmd.Spec(), SearchCmd.Spec(),
}

// Lookup returns the declaration of the command named name.
func Lookup(name string) (Spec, bool) {
	for _, c := range Commands {
		if c.Name == name {
			return c, true
		}
	}
	return Spec{}, false
}

// TypedArg converts an argument built as a map (diagnostics' fixes, below the
// contract) into the declared argument type of the command named name. A
// command the contract does not declare, a field its argument does not have
// or a value of the wrong type is an error: such a fix would fail when run.
func TypedArg(name string, arg map[string]any) (any, error) {
	spec, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("%s is not a declared command (session/commands.go)", name)
	}
	b, err := json.Marshal(arg)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	v := reflect.New(spec.Arg)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v.Interface()); err != nil {
		return nil, fmt.Errorf("%s: the argument is not its declared %s: %v", name, spec.Arg, err)
	}
	return v.Elem().Interface(), nil
}
