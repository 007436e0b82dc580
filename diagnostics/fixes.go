package diagnostics

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
)

// Fix is a change that resolves a finding, as an analyzer's suggested fix:
// byte edits of the note (computed by frontmatter.SetFields, so every other
// byte stays), a file to create or rename, or a command for fixes that need
// the server (register an ID, promote a note, rerun a rollup). Front ends
// convert it: the LSP to a quick-fix code action.
type Fix struct {
	Title string
	// Preferred marks the fix to apply when there is no doubt (the journal
	// file name its period calls for).
	Preferred bool
	// Edits change files' text by byte offsets. With Create they fill the new
	// (empty) file.
	Edits []Edit
	// Create is a file to make (left alone when it exists).
	Create string
	// Rename moves a file.
	Rename *Rename
	// Command runs on the server.
	Command *Command
}

// Edit replaces the bytes [Start, End) of the file at Path with NewText.
type Edit struct {
	Path       string
	Start, End int
	NewText    string
}

// Rename moves the file From to To.
type Rename struct{ From, To string }

// Command is a server command and its one argument object (docs/protocol.md,
// workspace/executeCommand).
type Command struct {
	Name string
	Args map[string]any
}

// FileArg is an argument of a Command naming a file: each front end writes
// it its own way (the LSP as the document's URI).
type FileArg string

// The titles of the two answers to a stale buffer, also the buttons of the
// save-time question.
const (
	FixTakeDisk = "Take disk version"
	FixKeepMine = "Keep mine as next revision"
)

// fixes are the fixes of one finding of c's note (docs/diagnostics.md), in
// the order an editor lists them: edits of the note, server commands, a
// journal file's rename.
func (c *checker) fixes(f Finding) []Fix {
	out := append(c.editFixes(f), c.commandFixes(f)...)
	if fix, ok := journalRename(c.e, f); ok {
		out = append(out, fix)
	}
	return out
}

// editFixes are the fixes of f that edit files: the note's frontmatter, a
// duplicate key removed, a missing link target created.
func (c *checker) editFixes(f Finding) []Fix {
	e := c.e
	var out []Fix
	set := func(title string, sets ...frontmatter.Set) {
		if fix, ok := c.setFields(title, sets); ok {
			out = append(out, fix)
		}
	}
	switch f.Code {
	case CodeFrontmatterMissing:
		sets := []frontmatter.Set{{Key: "revision", Value: 1}, {Key: "updated", Value: c.nowUpdated()}}
		if e.Dimension == engine.Device {
			if id := c.thisMachine(); id != "" {
				sets = append(sets, frontmatter.Set{Key: "machine", Value: id})
			}
		}
		set("Add frontmatter (revision 1, updated now)", sets...)
	case CodeRevisionMissing, CodeRevisionNotInteger, CodeRevisionTooSmall:
		rev := intData(f.Data, "suggest", 1)
		title := fmt.Sprintf("Set revision to %d", rev)
		if f.Code == CodeRevisionMissing {
			title = fmt.Sprintf("Add revision: %d", rev)
		}
		set(title, frontmatter.Set{Key: "revision", Value: rev})
	case CodeUpdatedMissing:
		set("Add updated: now", frontmatter.Set{Key: "updated", Value: c.nowUpdated()})
	case CodeUpdatedInvalid:
		if utc, ok := f.Data["suggest"].(string); ok && utc != "" {
			set("Write it as UTC ("+utc+")", frontmatter.Set{Key: "updated", Value: utc})
		}
		set("Set updated to now", frontmatter.Set{Key: "updated", Value: c.nowUpdated()})
	case CodeMachineMissing:
		if id := c.thisMachine(); id != "" {
			set("Bind to this machine ("+id+")", frontmatter.Set{Key: "machine", Value: id})
		}
	case CodeMachineForbidden:
		set("Remove machine", frontmatter.Set{Key: "machine"})
	case CodeSkillMissingName:
		name := strings.TrimSuffix(filepath.Base(e.Path), filepath.Ext(e.Path))
		set("Add name: "+name, frontmatter.Set{Key: "name", Value: name})
	case CodeSkillMissingDescription:
		set("Add description:", frontmatter.Set{Key: "description", Value: "TODO: what this skill does and when to use it"})
	case CodeDuplicateKey:
		if fix, ok := c.removeDuplicate(f); ok {
			out = append(out, fix)
		}
	case CodeBrokenLink:
		if target, _ := f.Data["target"].(string); target != "" && c.in.Memory != nil {
			if _, ok := c.in.Memory.Locate(target); ok {
				content := frontmatter.Compose([]frontmatter.Set{{Key: "revision", Value: 1}, {Key: "updated", Value: c.nowUpdated()}}, nil)
				out = append(out, Fix{Title: "Create the note " + filepath.Base(target), Create: target,
					Edits: []Edit{{Path: target, NewText: string(content)}}})
			}
		}
	}
	return out
}

// commandFixes are the fixes of f that run a server command (magicfrog.*).
func (c *checker) commandFixes(f Finding) []Fix {
	e := c.e
	var out []Fix
	command := func(title, name string, args map[string]any) {
		out = append(out, Fix{Title: title, Command: &Command{Name: name, Args: args}})
	}
	switch f.Code {
	case CodeShadowed:
		if w, ok := f.Data["winner"].(string); ok && w != "" {
			command("Open the winning version", "magicfrog.showEntry", map[string]any{"uri": FileArg(w)})
		}
	case CodeLegacyLocation:
		if canonical, _ := f.Data["canonical"].(string); canonical != "" && c.in.Memory != nil && c.in.Memory.Note(e.Path) != nil {
			args := map[string]any{"uri": FileArg(e.Path), "to": e.Dimension.String()}
			if e.Dimension.HasOwners() {
				args["scope"] = e.Owner
			}
			command("Move to the canonical tree ("+displayPath(c.in.Memory.Paths, canonical)+")", "magicfrog.promote", args)
		}
	case CodeOverwrittenRevision:
		// magicfrog.resolveOverwrite: Restore the version lost, Merge it
		// (three-way, when the history holds what this version was based on
		// and the two merge cleanly), or Keep this one as the next revision.
		lost, rev := intData(f.Data, "lostRevision", 0), intData(f.Data, "revision", 0)
		resolve := func(title, choice string) {
			command(title, "magicfrog.resolveOverwrite", map[string]any{"uri": FileArg(e.Path), "choice": choice})
		}
		resolve(fmt.Sprintf(FixRestoreLost, lost), "restore")
		if c.in.Memory != nil {
			if _, ok := OverwriteMerge(c.in.Memory, e.Path, c.src); ok {
				resolve(fmt.Sprintf(FixMergeLost, lost), "merge")
			}
		}
		resolve(fmt.Sprintf(FixKeepOverwrite, max(lost, rev)+1), "keep")
	case CodeUnregisteredAgentFolder:
		if folder, _ := f.Data["folder"].(string); folder != "" {
			command(fmt.Sprintf("Register %s as an agent ID", folder), "magicfrog.registerAgent", map[string]any{"id": folder})
			command("Keep shared", "magicfrog.registerAgent", map[string]any{"id": folder, "shared": true})
		}
	case CodeUnregisteredTaskFolder:
		if folder, _ := f.Data["folder"].(string); folder != "" {
			command(fmt.Sprintf("Register %s as a task ID", folder), "magicfrog.registerTask", map[string]any{"id": folder})
			command("Keep shared", "magicfrog.registerTask", map[string]any{"id": folder, "shared": true})
		}
	case CodeStaleRevision:
		// Both run magicfrog.resolveConflict, the code the save-time question
		// runs, so that both know what the conflict found on disk. A note
		// removed on disk has nothing to choose: saving creates it again. One a
		// promotion moved from under the buffer is shown where it went.
		if to, _ := f.Data["movedTo"].(string); to != "" {
			command("Open the note where it went", "magicfrog.showEntry", map[string]any{"uri": FileArg(to)})
		}
		if exists, _ := f.Data["exists"].(bool); exists {
			resolve := func(title, choice string) {
				command(title, "magicfrog.resolveConflict", map[string]any{"uri": FileArg(e.Path), "choice": choice})
			}
			resolve(FixTakeDisk, "takeDisk")
			resolve(fmt.Sprintf("%s (%d)", FixKeepMine, intData(f.Data, "diskRevision", 0)+1), "keepMine")
		}
	case CodeRollupStale:
		if kind, _ := f.Data["kind"].(string); kind != "" {
			period, _ := f.Data["period"].(string)
			command(fmt.Sprintf("Rerun the rollup (%s %s)", kind, period), "magicfrog.rollup",
				map[string]any{"kind": kind, "period": period, "dimension": e.Dimension.String(), "scope": e.Owner})
		}
	}
	return out
}

// journalRename is the rename a journal naming finding (journal/misnamed,
// journal/wrong-folder, …) suggests: it carries the right name.
func journalRename(e *engine.Note, f Finding) (Fix, bool) {
	to, _ := f.Data["suggestPath"].(string)
	if to == "" || !strings.HasPrefix(f.Code, "journal/") {
		return Fix{}, false
	}
	suggest, _ := f.Data["suggest"].(string)
	if suggest == "" {
		suggest = filepath.Base(to)
	}
	return Fix{Title: "Rename to " + suggest, Preferred: true, Rename: &Rename{From: e.Path, To: to}}, true
}

// setFields is a fix editing the note's frontmatter; none when the frontmatter
// cannot be edited safely (unterminated, unparseable) or nothing changes.
func (c *checker) setFields(title string, sets []frontmatter.Set) (Fix, bool) {
	fe, ok := frontmatter.SetFields(c.src, c.doc, sets)
	if !ok || len(fe) == 0 {
		return Fix{}, false
	}
	fix := Fix{Title: title}
	for _, x := range fe {
		fix.Edits = append(fix.Edits, Edit{Path: c.e.Path, Start: x.Span.Start, End: x.Span.End, NewText: x.Text})
	}
	return fix, true
}

// removeDuplicate deletes the line(s) of the duplicate key the finding is on.
func (c *checker) removeDuplicate(f Finding) (Fix, bool) {
	src := c.src
	for _, fl := range c.doc.Fields {
		if !fl.Duplicate || fl.KeySpan.Start != f.Span.Start {
			continue
		}
		start := fl.KeySpan.Start
		for start > 0 && src[start-1] != '\n' && src[start-1] != '\r' {
			start--
		}
		end := max(fl.KeySpan.End, fl.ValueSpan.End)
		for end < len(src) && src[end] != '\n' {
			end++
		}
		if end < len(src) {
			end++
		}
		return Fix{Title: "Remove the duplicate " + fl.Key + " line", Edits: []Edit{{Path: c.e.Path, Start: start, End: end}}}, true
	}
	return Fix{}, false
}

// nowUpdated is the updated value a fix writes: Input.Now, else the clock.
func (c *checker) nowUpdated() string {
	now := c.in.Now
	if now.IsZero() {
		now = time.Now()
	}
	return engine.FormatTime(now)
}

// displayPath shortens a path for a title: relative to the data directory or
// the project when under one.
func displayPath(p engine.Paths, path string) string {
	for _, dir := range []string{p.DataDir, p.ProjectDir} {
		if dir == "" {
			continue
		}
		if rel, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return path
}

// intData reads an integer from a finding's Data (int, or float64 after JSON).
func intData(data map[string]any, key string, def int) int {
	switch v := data[key].(type) {
	case int:
		return v
	case float64:
		return int(v)
	}
	return def
}
