package diagnostics

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
)

// UpdatedLayout is how the engine writes `updated` (RFC 3339, UTC, milliseconds);
// quick fixes that rewrite a value use it.
const UpdatedLayout = engine.UpdatedLayout

// frontmatter checks the block itself and the keys the engine owns.
func (c *checker) frontmatter() {
	d := c.doc
	parsed := d.Has()
	for _, err := range d.Errors {
		switch err.Kind {
		case frontmatter.Unterminated:
			c.add(Finding{Span: err.Span, Severity: Error, Code: CodeFrontmatterUnterminated,
				Message: "frontmatter is not terminated: no closing --- line, so the whole note reads as body and revision 0"})
		case frontmatter.Syntax, frontmatter.NotMapping:
			parsed = false
			c.add(Finding{Span: err.Span, Severity: Error, Code: CodeFrontmatterInvalid,
				Message: err.Message + "; the note is never overwritten until this is fixed"})
		case frontmatter.DuplicateKey:
			key := string(c.src[err.Span.Start:err.Span.End])
			c.add(Finding{Span: err.Span, Severity: Error, Code: CodeDuplicateKey, Message: err.Message,
				Data: map[string]any{"key": key}})
		}
	}
	if !d.Present && !c.e.Mounted {
		// A journal kept in place keeps its host's plain files: no
		// frontmatter is the format there (docs/journal.md).
		c.add(Finding{Span: c.head(), Severity: Warning, Code: CodeFrontmatterMissing,
			Message: "no frontmatter: the note reads as revision 0 (never written by the engine); add revision and updated",
			Data:    map[string]any{"revision": 0}})
	}
	if parsed {
		c.revision()
		c.updated()
	}
	if parsed || !d.Present {
		c.machine()
		c.skill()
	}
}

func (c *checker) revision() {
	f := c.doc.Field("revision")
	if f == nil {
		c.add(Finding{Span: c.head(), Severity: Warning, Code: CodeRevisionMissing,
			Message: "no revision: the note reads as revision 0 (never written by the engine)",
			Data:    map[string]any{"suggest": 1}})
		return
	}
	span := valueOrKey(f)
	switch v := f.Value.(type) {
	case int:
		if v < 1 {
			c.add(Finding{Span: span, Severity: Error, Code: CodeRevisionTooSmall,
				Message: fmt.Sprintf("revision %d: revisions start at 1", v),
				Data:    map[string]any{"suggest": 1}})
		}
		return
	case string:
		// A quoted number: the integer it spells is the likely intent.
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 1 {
			c.add(Finding{Span: span, Severity: Error, Code: CodeRevisionNotInteger,
				Message: fmt.Sprintf("revision %q is a string, not an integer", v),
				Data:    map[string]any{"suggest": n}})
			return
		}
	}
	c.add(Finding{Span: span, Severity: Error, Code: CodeRevisionNotInteger,
		Message: fmt.Sprintf("revision must be an integer ≥ 1, not %s", describe(f)),
		Data:    map[string]any{"suggest": 1}})
}

func (c *checker) updated() {
	f := c.doc.Field("updated")
	if f == nil {
		c.add(Finding{Span: c.head(), Severity: Warning, Code: CodeUpdatedMissing,
			Message: "no updated: the time of the last write is unknown"})
		return
	}
	s, ok := f.Value.(string)
	if !ok {
		c.add(Finding{Span: valueOrKey(f), Severity: Error, Code: CodeUpdatedInvalid,
			Message: fmt.Sprintf("updated must be an RFC 3339 UTC time such as 2026-10-20T09:12:00.000Z, not %s", describe(f))})
		return
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		c.add(Finding{Span: valueOrKey(f), Severity: Error, Code: CodeUpdatedInvalid,
			Message: fmt.Sprintf("updated %q is not an RFC 3339 time such as 2026-10-20T09:12:00.000Z", s)})
		return
	}
	if _, off := t.Zone(); off != 0 {
		fixed := t.UTC().Format(UpdatedLayout)
		c.add(Finding{Span: valueOrKey(f), Severity: Error, Code: CodeUpdatedInvalid,
			Message: fmt.Sprintf("updated %q is not UTC: write it as %s", s, fixed),
			Data:    map[string]any{"suggest": fixed}})
	}
}

func (c *checker) thisMachine() string {
	if c.in.Memory == nil {
		return c.in.Scope.Machine
	}
	return c.in.Memory.MachineOf(c.in.Scope)
}

func (c *checker) machine() {
	f := c.doc.Field("machine")
	if c.e.Dimension != engine.Device {
		if f != nil {
			span := frontmatter.Span{Start: f.KeySpan.Start, End: max(f.KeySpan.End, f.ValueSpan.End)}
			c.add(Finding{Span: span, Severity: Error, Code: CodeMachineForbidden,
				Message: fmt.Sprintf("machine binds a note to a machine, which only device notes do; this is a %s note", c.e.Dimension)})
		}
		return
	}
	this := c.thisMachine()
	bound := ""
	if f != nil {
		bound, _ = f.Value.(string)
	}
	if bound == "" {
		data := map[string]any{}
		if this != "" {
			data["machine"] = this
		}
		if c.e.Legacy {
			c.add(Finding{Span: c.head(), Severity: Information, Code: CodeMachineMissing,
				Message: "legacy machine/ note without a machine binding (the legacy tree predates it): read as this machine's note",
				Data:    data})
			return
		}
		c.add(Finding{Span: c.head(), Severity: Error, Code: CodeMachineMissing,
			Message: "device note without machine: every device note names the machine it belongs to",
			Data:    data})
		return
	}
	if this != "" && bound != this {
		c.add(Finding{Span: valueOrKey(f), Severity: Information, Code: CodeMachineOther,
			Message: fmt.Sprintf("bound to machine %s, not this one (%s): not in this session's memory", bound, this),
			Data:    map[string]any{"machine": bound, "thisMachine": this}})
	}
}

func (c *checker) skill() {
	if !c.e.Layer.IsSkills() {
		return
	}
	for _, k := range []struct{ key, code string }{{"name", CodeSkillMissingName}, {"description", CodeSkillMissingDescription}} {
		if s, _ := c.doc.String(k.key); strings.TrimSpace(s) != "" {
			continue
		}
		c.add(Finding{Span: c.head(), Severity: Warning, Code: k.code,
			Message: fmt.Sprintf("skill without a %s: the <memory> block lists skills by name and description", k.key),
			Data:    map[string]any{"key": k.key}})
	}
}

// valueOrKey is a field's value span, or its key span when the value is empty.
func valueOrKey(f *frontmatter.Field) frontmatter.Span {
	if f.ValueSpan.Len() > 0 {
		return f.ValueSpan
	}
	return f.KeySpan
}

func describe(f *frontmatter.Field) string {
	switch v := f.Value.(type) {
	case nil:
		return "an empty value"
	case string:
		return strconv.Quote(v)
	case bool:
		return fmt.Sprintf("the boolean %v", v)
	case float64:
		return fmt.Sprintf("the number %v", v)
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	}
	return fmt.Sprintf("%v", f.Value)
}
