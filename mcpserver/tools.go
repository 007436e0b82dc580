package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/magicfrog/mf-lsp/engine/errcode"
	"github.com/magicfrog/mf-lsp/engine/journal"
	"github.com/magicfrog/mf-lsp/engine/participant"
)

// The tools' arguments. Fields without omitempty are required; the SDK
// checks types and refuses unknown arguments before a handler runs.

type contextArgs struct {
	Budget   int    `json:"budget,omitempty" jsonschema:"the most o200k tokens the block may take; notes that do not fit become <omitted/> lines (0 or absent: 8000)"`
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
		Name:         "memory_context",
		OutputSchema: outputSchema[participant.Context](),
		Title:        "Read the <memory> block",
		Description: "Returns this session's <memory> block: the effective memory (task, agent, user, account, device notes; today's and yesterday's daily notes, the week's summary, MEMORY.md, sticky notes; skills listed by name) and its generation. " +
			"Call it first in every session. Without a budget it takes at most 8000 tokens; notes left out are <omitted/> lines (read them with memory_read, or pass a larger budget). Pass previous (the generation you hold) to learn whether it changed.",
		Annotations: readOnly,
	}, handler(func(a contextArgs) (*participant.Context, error) { return s.p.Context(a.Budget, a.Previous) }, contextText))

	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:         "memory_read",
		OutputSchema: outputSchema[participant.ReadResult](),
		Title:        "Read a note",
		Description: "Returns a note's body, revision and hash (what memory_write expects), and whether it is effective or shadowed by a more specific note (and by which). " +
			"Pass start_line and end_line (a memory_search hit's) to read only those lines of a long note. " +
			"The dimension is where the note lives, as memory_view and memory_search name it: agent/ID for an agent's own notes, agent for notes every agent shares.",
		Annotations: readOnly,
	}, handler(func(a readArgs) (*participant.ReadResult, error) {
		return s.p.ReadLines(a.Dimension, a.Key, a.StartLine, a.EndLine)
	}, readText))

	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:         "memory_write",
		OutputSchema: outputSchema[participant.WriteResult](),
		Title:        "Write a note (revision-checked)",
		Description: "Replaces a note's body, or creates the note with expected_revision 0. The write lands only if the note is still at expected_revision (and expected_hash, when given); it returns the new revision. " +
			"If someone else changed the note since you read it, the call fails with the current revision, hash and body and nothing is written: merge your change into that body and call memory_write again with the new revision.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: false, OpenWorldHint: ptr(false)},
	}, handler(func(a writeArgs) (*participant.WriteResult, error) {
		return s.p.Write(participant.WriteInput{Place: a.Dimension, Key: a.Key, Body: a.Body, ExpectedRevision: a.ExpectedRevision, ExpectedHash: a.ExpectedHash})
	}, writeText))

	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:         "memory_append",
		OutputSchema: outputSchema[participant.AppendResult](),
		Title:        "Append to today's daily note",
		Description: "Adds a block of Markdown at the end of today's daily note in a journal (made, with frontmatter and a dated title, when missing): what you built, what broke, decisions and why, files and commands. " +
			"Safe with other agents appending at the same time: every append lands once. Returns the note's new revision.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
	}, handler(func(a appendArgs) (*participant.AppendResult, error) {
		return s.p.Append(a.Dimension, a.Text, journal.Day{})
	}, appendText))

	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:         "memory_search",
		OutputSchema: outputSchema[participant.SearchResult](),
		Title:        "Search notes",
		Description: "Finds notes in scope (every journal day included, and notes shadowed by more specific ones) by words, best first: dimension, key, revision, whether it is effective, and the passage that answers best (snippet, with its start_line and end_line in the body). " +
			"Write questions as you would ask them; dates in them (\"last week\", \"in May\", \"on 8 May 2026\") favour the journal days they name. Read around a hit with memory_read and its lines.",
		Annotations: readOnly,
	}, handler(func(a searchArgs) (*participant.SearchResult, error) { return s.p.Search(a.Query, a.Limit) }, searchText))

	mcp.AddTool(s.mcp, &mcp.Tool{
		Name:         "memory_view",
		OutputSchema: outputSchema[participant.View](),
		Title:        "List the effective view",
		Description:  "Lists every key in scope with the note that wins it and the notes it shadows (most specific first), then this machine's device notes. Use it to find where a note lives before reading or writing it.",
		Annotations:  readOnly,
	}, handler(func(viewArgs) (*participant.View, error) { return s.p.View(), nil }, viewText))
}

// handler adapts an operation to the SDK: its error becomes a tool error
// (toolError); its result is the structured content (whose type is the
// tool's output schema), and its text, what the model reads, is text(out):
// the <memory> block itself, the note, a listing. Left to itself the SDK
// would put the result's JSON there, every newline and < escaped.
func handler[In, Out any](op func(In) (Out, error), text func(Out) string) mcp.ToolHandlerFor[In, Out] {
	return func(_ context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		out, err := op(in)
		if err != nil {
			var zero Out
			return toolError(err), zero, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text(out)}}}, out, nil
	}
}

// contextText is the <memory> block, after a line for each notice (an agent
// that is not registered learns it, and how to register, before the block).
func contextText(c *participant.Context) string {
	var b strings.Builder
	for _, n := range c.Notices {
		fmt.Fprintf(&b, "Warning: %s.\n", n)
	}
	b.WriteString(c.Block)
	return b.String()
}

// noteLine names a note as the tools take it, with what a write expects.
func noteLine(n participant.NoteInfo) string {
	return fmt.Sprintf("%s %s (revision %d, hash %s)", n.Dimension, n.Key, n.Revision, n.Hash)
}

// readText is the note: one line naming it (place, key, revision, hash:
// what memory_write takes) and its standing, then its body.
func readText(r *participant.ReadResult) string {
	var b strings.Builder
	b.WriteString(noteLine(r.NoteInfo))
	switch {
	case r.ShadowedBy != nil:
		fmt.Fprintf(&b, ", shadowed by %s %s", r.ShadowedBy.Dimension, r.ShadowedBy.Key)
	case r.Effective && len(r.Shadows) > 0:
		b.WriteString(", effective; shadows")
		for i, sh := range r.Shadows {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " %s %s", sh.Dimension, sh.Key)
		}
	case r.Effective:
		b.WriteString(", effective")
	}
	if r.StartLine > 0 {
		fmt.Fprintf(&b, "; lines %d-%d of %d", r.StartLine, r.EndLine, r.Lines)
	}
	b.WriteString(":\n\n")
	b.WriteString(r.Body)
	return b.String()
}

func writeText(r *participant.WriteResult) string {
	return "wrote " + noteLine(r.NoteInfo)
}

func appendText(r *participant.AppendResult) string {
	verb := "appended to "
	if r.Created {
		verb = "created "
	}
	return verb + noteLine(r.NoteInfo)
}

// searchText lists the hits, best first: place, key, revision, standing,
// and the snippet.
func searchText(r *participant.SearchResult) string {
	var b strings.Builder
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "Warning: %s.\n", w)
	}
	fmt.Fprintf(&b, "%d of %d matching notes, best first:\n", len(r.Hits), r.Total)
	for _, h := range r.Hits {
		state := "effective"
		if !h.Effective {
			state = "shadowed"
		}
		fmt.Fprintf(&b, "- %s %s (revision %d, %s), lines %d-%d:\n", h.Dimension, h.Key, h.Revision, state, h.StartLine, h.EndLine)
		for _, line := range strings.Split(strings.TrimRight(h.Snippet, "\n"), "\n") {
			b.WriteString("    " + line + "\n")
		}
	}
	return b.String()
}

// viewText lists the effective view: each key with the place of its winner
// and of the notes it shadows, then the device notes.
func viewText(v *participant.View) string {
	var b strings.Builder
	fmt.Fprintf(&b, "effective view of agent %q, task %q, machine %q: %d keys\n", v.Agent, v.Task, v.Machine, len(v.Keys))
	for _, k := range v.Keys {
		fmt.Fprintf(&b, "- %s: %s (revision %d)", k.Key, k.Winner.Dimension, k.Winner.Revision)
		for _, sh := range k.Shadowed {
			fmt.Fprintf(&b, ", shadows %s", sh.Dimension)
		}
		b.WriteString("\n")
	}
	if len(v.Device) > 0 {
		fmt.Fprintf(&b, "device notes (machine %s):\n", v.Machine)
		for _, d := range v.Device {
			fmt.Fprintf(&b, "- %s (revision %d)\n", d.Key, d.Revision)
		}
	}
	return b.String()
}

func ptr[T any](v T) *T { return &v }

// outputSchema is a tool's output schema: its result (Out's schema, as the
// SDK would infer it) or, for a tool error, the error's data (errcode.Data,
// the result's structured content then). Clients check a tool error's
// structured content against the output schema too (the TypeScript SDK's
// Client.callTool does, as agent hosts built on it), and refused the
// result's schema alone for a stale write's data.
func outputSchema[Out any]() *jsonschema.Schema {
	out, err := jsonschema.For[Out](nil)
	if err != nil {
		panic(err) // a result type the schema inference cannot read: a bug here
	}
	data, err := jsonschema.For[errcode.Data](nil)
	if err != nil {
		panic(err)
	}
	data.Description = "a tool error's data (isError): its code, and for a stale write the current revision and hash"
	return &jsonschema.Schema{Type: "object", AnyOf: []*jsonschema.Schema{out, data}}
}
