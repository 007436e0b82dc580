// Package errcode names the failures a client decides on. Every front end
// (the language server's JSON-RPC error data, the MCP tools' error results,
// the CLI's --json output) carries the same Code, so no client ever matches
// English text: an editor that asks "was this stale?" reads Code "stale".
//
// An error takes part by having a method ErrorCode() Code; Of finds the first
// such error in a wrapped chain. Details a client acts on (the current
// revision and hash of a stale note, the rule a body broke) travel in Data.
package errcode

import "errors"

// Code is a failure's machine-readable name: lower case, words joined by '-'.
// Codes are part of the published contract (docs/protocol.md): add, never rename.
type Code string

const (
	// Stale: a write's expected revision or hash is not the disk's; or a
	// note read on demand is no longer the text loaded (engine.ChangedError).
	Stale Code = "stale"
	// Unregistered: an agent or task ID that is on no roster.
	Unregistered Code = "unregistered"
	// NotANote: a text that the loader would not read as a note (too large,
	// a NUL byte, not UTF-8, a second frontmatter block…); Data.Rule says which.
	NotANote Code = "not-a-note"
	// SeveralAgents: the scope names more than one agent and none was chosen.
	SeveralAgents Code = "several-agents"
	// NoParticipant: an operation that needs one participant found none.
	NoParticipant Code = "no-participant"
	// Loading: the memory is still loading; try again.
	Loading Code = "loading"
	// Forbidden: the target is outside what this participant or front end may touch.
	Forbidden Code = "forbidden"
	// NotFound: no such note (or file) in scope.
	NotFound Code = "not-found"
	// InvalidArgument: the request's arguments are malformed.
	InvalidArgument Code = "invalid-argument"
	// Conflict: two versions that could not be merged.
	Conflict Code = "conflict"
)

// Coded is an error that names its Code.
type Coded interface {
	error
	ErrorCode() Code
}

// Detailed is a Coded error that also carries details a client acts on.
type Detailed interface {
	Coded
	ErrorData() Data
}

// Data is the machine-readable part of a failure, as front ends send it
// (JSON-RPC error `data`, an MCP tool result's structured content).
type Data struct {
	Code Code `json:"code"`
	// Revision and Hash are the current disk version's, for Stale.
	Revision *int   `json:"revision,omitempty"`
	Hash     string `json:"hash,omitempty"`
	// End is which end of a promotion was Stale: "source" or "destination".
	End string `json:"end,omitempty"`
	// Path is the note or file the failure is about, when there is one.
	Path string `json:"path,omitempty"`
	// Rule is the rule that failed, for NotANote (and other checks that have rules).
	Rule string `json:"rule,omitempty"`
	// Choices are the values the user may pick from, for SeveralAgents.
	Choices []string `json:"choices,omitempty"`
}

// Of returns the Code of the first Coded error in err's chain, or "".
func Of(err error) Code {
	var c Coded
	if errors.As(err, &c) {
		return c.ErrorCode()
	}
	return ""
}

// DataOf returns the Data of err's first Coded error: its own details when it
// is Detailed, else just the code. ok is false when no error in the chain is coded.
func DataOf(err error) (d Data, ok bool) {
	var dt Detailed
	if errors.As(err, &dt) {
		return dt.ErrorData(), true
	}
	var c Coded
	if errors.As(err, &c) {
		return Data{Code: c.ErrorCode()}, true
	}
	return Data{}, false
}
