// Package diagnostics turns what the engine knows about a note into findings
// with byte ranges: pure checks, one note at a time (Check) or the whole tree
// (CheckTree). Each finding carries the fixes that resolve it (Fix: byte
// edits, file operations or a server command, as analyzers' suggested
// fixes). The LSP converts findings to protocol diagnostics and their fixes
// to code actions at its edge; `mf-lsp check` prints them. Every code is
// stable and documented in docs/diagnostics.md.
//
// Check looks only at the note, the versions of its key (Memory.Versions) and a
// bounded number of keyed lookups; it never walks the tree, so it stays cheap on
// every keystroke whatever the size of the memory.
package diagnostics

import (
	"bytes"
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
	"github.com/magicfrog/mf-lsp/engine/journal"
	"github.com/magicfrog/mf-lsp/engine/mdlinks"
	"github.com/magicfrog/mf-lsp/engine/roam"
)

// Severity is how much a finding matters. The values are LSP's
// DiagnosticSeverity numbers, so the LSP can convert them as they are.
type Severity int

const (
	Error       Severity = 1
	Warning     Severity = 2
	Information Severity = 3
	Hint        Severity = 4
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	case Information:
		return "information"
	case Hint:
		return "hint"
	}
	return "unknown"
}

// The stable codes. docs/diagnostics.md describes each one.
const (
	CodeFrontmatterMissing      = "frontmatter-missing"
	CodeFrontmatterUnterminated = "frontmatter-unterminated"
	CodeFrontmatterInvalid      = "frontmatter-invalid"
	CodeDuplicateKey            = "duplicate-key"
	CodeRevisionMissing         = "revision-missing"
	CodeRevisionNotInteger      = "revision-not-integer"
	CodeRevisionTooSmall        = "revision-too-small"
	CodeUpdatedMissing          = "updated-missing"
	CodeUpdatedInvalid          = "updated-invalid"
	CodeMachineMissing          = "machine-missing"
	CodeMachineForbidden        = "machine-forbidden"
	CodeMachineOther            = "machine-other"
	CodeShadowed                = "shadowed"
	CodeLegacyLocation          = "legacy-location"
	CodeUnregisteredAgentFolder = "unregistered-agent-folder"
	CodeUnregisteredTaskFolder  = "unregistered-task-folder"
	CodeOutOfScope              = "out-of-scope"
	CodeBrokenLink              = "broken-link"
	CodeStaleRevision           = "stale-revision"
	CodeSkillMissingName        = "skill-missing-name"
	CodeSkillMissingDescription = "skill-missing-description"
	CodeOpenLoop                = "journal/open-loop"
	CodeRollupStale             = "rollup-stale"
	CodeRollupSourcesInvalid    = "rollup-sources-invalid"
	CodeFileUnreadable          = "file-unreadable"
	CodeLinkCrossesScope        = "link-crosses-scope"
	CodeFileBinary              = "file-binary"
	CodeFileTooLarge            = "file-too-large"
	CodeConfigInvalid           = "config-invalid"
	// The journal naming codes are journal.Code* ("journal/misnamed", …),
	// passed through as they are.
)

// Related points at another place a finding is about (the note that wins a
// key, the file on disk). A zero Span means the start of the file.
type Related struct {
	Path    string
	Span    frontmatter.Span
	Message string
}

// Finding is one diagnostic: where (Path and a byte Span of the note's source),
// how bad, a stable Code, a message for a person, related places, Data
// (documented per code in docs/diagnostics.md), and the fixes Check proposes
// when asked (Input.WithFixes).
type Finding struct {
	Path     string
	Span     frontmatter.Span
	Severity Severity
	Code     string
	Message  string
	Related  []Related      `json:",omitempty"`
	Data     map[string]any `json:",omitempty"`
	Fixes    []Fix          `json:",omitempty"`
}

// Base is what an editor buffer was based on: the revision and content hash
// (store.Hash) of the disk version it was loaded from or last saved as.
type Base struct {
	Revision int
	Hash     string
	// MovedTo is the file a promotion moved the note to while the buffer
	// stayed on the old path; "" when none did.
	MovedTo string
}

// DefaultOpenLoopDays is how old a refined day's blocker or next step must be
// before it is reported as an open loop.
const DefaultOpenLoopDays = 7

// DefaultOpenLoopHorizon is the age past which a refined day is history: its
// open loops are no longer reported. It also bounds the cost of the check, which
// reads every later journal file of the layer.
const DefaultOpenLoopHorizon = 90

// Input is one note to check.
type Input struct {
	Memory *engine.Memory
	// Note is the note as parsed: the loaded note, or an unsaved buffer parsed
	// with Memory.Parse(path, buffer).
	Note *engine.Note
	// Scope is the session scope, for shadowing and out-of-scope notes.
	Scope engine.Scope
	// Base, when set, is what the buffer was based on (stale-revision).
	Base *Base
	// Today enables the date-relative journal checks (open loops); zero skips them.
	Today journal.Day
	// OpenLoopDays is the age of an open loop; 0 means DefaultOpenLoopDays.
	OpenLoopDays int
	// OpenLoopHorizon is the age (days) past which refined days are not checked
	// for open loops; 0 means DefaultOpenLoopHorizon, negative means no limit.
	OpenLoopHorizon int
	// WithFixes attaches to each finding its fixes (Finding.Fixes), what code
	// actions offer. Publishing and reports leave it off: proposing a fix (a
	// broken link's note to create, a field to set) costs about as much as
	// finding the problem.
	WithFixes bool
	// Now is the time fixes write as updated; zero means the clock.
	Now time.Time
	// MarkdownLinks, when set, are the note's Markdown links
	// (mdlinks.Links of its text), shared with the requests on the same
	// version of an open buffer; nil: found here.
	MarkdownLinks func() []mdlinks.Link
	// SyncState, when set, remembers the sync state between checks (the
	// language server's session holds one); nil reads the state file each time.
	SyncState *roam.StateCache

	// conflicts is the sync state as CheckNotes read it once for every note;
	// nil: each Check reads it (a stat when unchanged).
	conflicts *roam.Conflicts
	// overwrites are the open overwrites as CheckNotes read them once; nil:
	// each Check asks (a stat per root when unchanged).
	overwrites map[string]engine.Overwrite
}

// Check returns every finding for one note, sorted by position.
func Check(in Input) []Finding {
	e := in.Note
	if e == nil {
		return nil
	}
	src, err := e.Text()
	if err != nil {
		// Read on demand, it changed on disk since the load (the tree is
		// told, and its refresh is checked in turn): nothing is said of a
		// text that is no longer there.
		return nil
	}
	c := &checker{in: in, e: e, src: src, doc: e.Doc()}
	if in.Memory != nil {
		// The note's path is a link the engine does not follow, or lies
		// below one: the editor read the buffer through it, but it is no
		// note of this tree, and every other check would judge it as one.
		if p, ok := in.Memory.CrossingLink(e.Path); ok {
			c.add(Finding{Span: c.head(), Severity: Error, Code: CodeLinkCrossesScope, Message: p.Message})
			return c.out
		}
	}
	c.frontmatter()
	c.location()
	c.scope()
	c.links()
	c.stale()
	c.journal()
	c.secrets()
	c.syncConflict()
	c.overwritten()
	if in.WithFixes {
		for i := range c.out {
			c.out[i].Fixes = c.fixes(c.out[i])
		}
	}
	sortFindings(c.out)
	return c.out
}

type checker struct {
	in  Input
	e   *engine.Note
	src []byte
	doc *frontmatter.Document
	out []Finding
}

func (c *checker) add(f Finding) {
	f.Path = c.e.Path
	c.out = append(c.out, f)
}

// head is the span file-level findings sit on: the opening "---" line when
// there is one, else the note's first line (empty for an empty note).
func (c *checker) head() frontmatter.Span {
	if c.doc.Present {
		return c.doc.Open
	}
	start := 0
	if c.doc.BOM {
		start = 3
	}
	return lineSpan(c.src, start)
}

// lineSpan is the line starting at start, without its line end.
func lineSpan(src []byte, start int) frontmatter.Span {
	if start > len(src) {
		start = len(src)
	}
	end := start
	if i := bytes.IndexByte(src[start:], '\n'); i >= 0 {
		end = start + i
	} else {
		end = len(src)
	}
	if end > start && src[end-1] == '\r' {
		end--
	}
	return frontmatter.Span{Start: start, End: end}
}

func sortFindings(fs []Finding) { slices.SortStableFunc(fs, compareFindings) }

// compareFindings orders findings by path, then position, then code.
func compareFindings(a, b Finding) int {
	return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Span.Start, b.Span.Start),
		cmp.Compare(a.Span.End, b.Span.End), strings.Compare(a.Code, b.Code))
}
