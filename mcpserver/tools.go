package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/magicfrog/mf-lsp/engine/journal"
	"github.com/magicfrog/mf-lsp/engine/participant"
)

// The tools' arguments. Fields without omitempty are required; the SDK
// checks types and refuses unknown arguments before a handler runs.

type contextArgs struct {
	Budget   int    `json:"budget,omitempty" jsonschema:"the most o200k tokens the block may take; notes that do not fit become <omitted/> lines (0 or absent: no limit)"`
	Previous string `json:"previous,omitempty" jsonschema:"the generation of the block you already hold; the result says replaces when the view changed since"`
}

type readArgs struct {
	Dimension string `json:"dimension" jsonschema:"the note's place: account, user, agent (shared by every agent), agent/ID (your own), task (the project's), task/ID, or device"`
	Key       string `json:"key" jsonschema:"the note's path inside the dimension, e.g. notes/style.md"`
	StartLine int    `json:"start_line,omitempty" jsonschema:"read from this line of the body (1 is its first line; a search hit's start_line); absent: the whole note"`
	EndLine   int    `json:"end_line,omitempty" jsonschema:"read to this line of the body, included (a search hit's end_line); absent: to the end"`
}

type writeArgs struct {
	Dimension        string `json:"dimension" jsonschema:"the note's place: account, user, agent, agent/ID (your own), task, task/ID, or device"`
	Key              string `json:"key" jsonschema:"the note's path inside the dimension: a relative .md path, e.g. notes/style.md"`
	Body             string `json:"body" jsonschema:"the whole new body, Markdown without frontmatter (revision and updated are set by the write)"`
	ExpectedRevision int    `json:"expected_revision" jsonschema:"the revision you read with memory_read; 0 to create a note that must not exist yet"`
	ExpectedHash     string `json:"expected_hash,omitempty" jsonschema:"the hash you read with memory_read: also refuses the write when the file was edited without a revision change"`
}

type appendArgs struct {
	Text      string `json:"text" jsonschema:"the Markdown block to add at the end of today's daily note"`
	Dimension string `json:"dimension,omitempty" jsonschema:"whose journal: task (the project's, the default when there is a project), agent/ID (your own), user, account or device"`
}

type searchArgs struct {
	Query string `json:"query" jsonschema:"words to find (case-insensitive); \"quoted words\" match as a phrase"`
	Limit int    `json:"limit,omitempty" jsonschema:"the most hits to return, 1 to 100 (default 10)"`
}

type viewArgs struct{}

// ToolNames are the server's tools, sorted.
var ToolNames = []string{"memory_append", "memory_context", "memory_read", "memory_search", "memory_view", "memory_write"}

func (s *Server) addTools() {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:  "memory_context",
		Title: "Read the <memory> block",
		Description: "Returns this session's <memory> block: the effective memory (task, agent, user, account, device notes; today's and yesterday's daily notes, the week's summary, MEMORY.md, sticky notes; skills listed by name) and its generation. " +
			"Call it first in every session. Pass previous (the generation you hold) to learn whether it changed.",
		Annotations: readOnly,
	}, handler(func(a contextArgs) (*participant.Context, error) { return s.p.Context(a.Budget, a.Previous) }))

	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:  "memory_read",
		Title: "Read a note",
		Description: "Returns a note's body, revision and hash (what memory_write expects), and whether it is effective or shadowed by a more specific note (and by which). " +
			"Pass start_line and end_line (a memory_search hit's) to read only those lines of a long note. " +
			"The dimension is where the note lives, as memory_view and memory_search name it: agent/ID for an agent's own notes, agent for notes every agent shares.",
		Annotations: readOnly,
	}, handler(func(a readArgs) (*participant.ReadResult, error) {
		return s.p.ReadLines(a.Dimension, a.Key, a.StartLine, a.EndLine)
	}))

	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:  "memory_write",
		Title: "Write a note (revision-checked)",
		Description: "Replaces a note's body, or creates the note with expected_revision 0. The write lands only if the note is still at expected_revision (and expected_hash, when given); it returns the new revision. " +
			"If someone else changed the note since you read it, the call fails with the current revision, hash and body and nothing is written: merge your change into that body and call memory_write again with the new revision.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: false, OpenWorldHint: ptr(false)},
	}, handler(func(a writeArgs) (*participant.WriteResult, error) {
		return s.p.Write(participant.WriteInput{Place: a.Dimension, Key: a.Key, Body: a.Body, ExpectedRevision: a.ExpectedRevision, ExpectedHash: a.ExpectedHash})
	}))

	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:  "memory_append",
		Title: "Append to today's daily note",
		Description: "Adds a block of Markdown at the end of today's daily note in a journal (made, with frontmatter and a dated title, when missing): what you built, what broke, decisions and why, files and commands. " +
			"Safe with other agents appending at the same time: every append lands once. Returns the note's new revision.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
	}, handler(func(a appendArgs) (*participant.AppendResult, error) {
		return s.p.Append(a.Dimension, a.Text, journal.Day{})
	}))

	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:  "memory_search",
		Title: "Search notes",
		Description: "Finds notes in scope (every journal day included, and notes shadowed by more specific ones) by words, best first: dimension, key, revision, whether it is effective, and the passage that answers best (snippet, with its start_line and end_line in the body). " +
			"Write questions as you would ask them; dates in them (\"last week\", \"in May\", \"on 8 May 2026\") favour the journal days they name. Read around a hit with memory_read and its lines.",
		Annotations: readOnly,
	}, handler(func(a searchArgs) (*participant.SearchResult, error) { return s.p.Search(a.Query, a.Limit) }))

	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:        "memory_view",
		Title:       "List the effective view",
		Description: "Lists every key in scope with the note that wins it and the notes it shadows (most specific first), then this machine's device notes. Use it to find where a note lives before reading or writing it.",
		Annotations: readOnly,
	}, handler(func(viewArgs) (*participant.View, error) { return s.p.View(), nil }))
}

// handler adapts an operation to the SDK: its error becomes a tool error
// (toolError), its result the structured content.
func handler[In, Out any](op func(In) (Out, error)) mcp.ToolHandlerFor[In, Out] {
	return func(_ context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		out, err := op(in)
		if err != nil {
			var zero Out
			return toolError(err), zero, nil
		}
		return nil, out, nil
	}
}

func ptr[T any](v T) *T { return &v }
